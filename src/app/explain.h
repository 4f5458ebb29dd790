// `kopt explain TARGET`: the use case that turns a profile into a diagnosis.
//
// TARGET is one of:
//  - an `ncu --csv --page raw` export (any extension but .cu/.ncu-rep), or a
//    profile bundle directory holding raw.csv (+ sass.txt, ptxas.txt);
//  - an Nsight Compute report (.ncu-rep), read through `ncu --import`;
//  - a CUDA source file (.cu): built, run and profiled on the local GPU;
//  - a program and its arguments (ExplainOptions::program_argv, after `--`).
// A CSV may be accompanied by a SASS listing, a ptxas report and an ncu
// source page (options, or sass.txt / ptxas.txt / source.csv beside it).
//
// The profile is loaded and its launches selected by profile/profile_loader.h
// (a ProfileSources built from these options).
//
// Writes the rendered diagnosis to `out`, or to options.output_path (written
// whole to a temporary file, then renamed into place). InvalidInput, before
// anything is written, when output_path names a file the command reads (the
// target, a companion file, a configuration).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"
#include "profile/profile.h"

namespace kopt {

struct ExplainOptions {
  std::string target;                     // path; empty when program_argv is set
  std::vector<std::string> program_argv;  // `kopt explain -- ./app args`
  std::string format;       // term | md | json | html | feedback; "": from output_path's extension, else term
  std::string output_path;  // empty: `out`
  bool color = false;       // ANSI colour in the terminal format
  int width = 100;          // columns of the terminal format (the CLI passes the terminal's)
  bool verbose = false;
  // Live collection: a progress line on `log` (building, each launch ncu profiles, exporting,
  // disassembling), redrawn in place and cleared before the report. The CLI sets it on a terminal.
  bool progress = false;
  std::string kernel_regex;      // ECMAScript regex searched in the demangled kernel name
  long long launch_skip = 0;     // skip this many matching launches
  long long launch_count = 0;    // then keep this many; 0 = all
  std::string sass_path;         // optional cuobjdump -sass / nvdisasm listing
  std::string ptxas_path;        // optional nvcc -Xptxas -v output
  std::string source_page_path;  // optional ncu --page source --csv --print-source sass export
  std::string gpu;               // spec-table key or device name overriding the profile's device
  std::string work_directory;    // live collection: where the bundle goes (default: kopt-profile-<stem>)
  // Live collection: "targeted" (the metrics and sections kopt's analysis
  // reads, analysis/collection_metrics.h: one ncu pass, about half the time of
  // the full set) or an ncu section set ("full", "detailed", …: ncu --set).
  std::string section_set = "targeted";
  // Live collection of a program or .cu: the launch timeline (the program run
  // once under libkopt_timeline.so, profile/launch_trace_collection.h) and a
  // sample of launches under ncu: the first launches_per_kernel of each launch
  // configuration; 0: every launch (docs/live-collection.md).
  long long launches_per_kernel = 3;
  // A CSV profile: its launch timeline file (default: timeline*.jsonl beside
  // it). Live collection: "none" takes no timeline (and samples nothing).
  std::string timeline_path;
  std::string config_path;  // tool configuration (analysis/tool_config.h); empty: defaults
  // Measured ceilings (`kopt calibrate`, hw/ceilings_table.h): a table file or a
  // directory searched for the profile's GPU; empty: DefaultCeilingsDirectory();
  // "none": the peaks alone. A named path that holds no table for the GPU is an error.
  std::string ceilings_path;
  // Energy model coefficients (hw/energy_coefficients.h, docs/energy.md): a
  // *.energy.toml file or a directory searched for the profile's GPU; empty:
  // FindEnergyCoefficients' lookup ($KOPT_CEILINGS_DIR, then the table shipped
  // for the GPU; none for the GPU: no energy section); "none": no energy
  // section. A named path without a table for the GPU, or a bad file, is an error.
  std::string energy_model_path;
  // Kernel source shown to the hypothesis pass and the LLM (default: TARGET
  // when it is a .cu file); empty: none.
  std::string source_path;
  bool hypotheses = false;  // run the hypothesis pass (static rules; --llm adds the LLM's)
  // `--llm`: a narrative written by an LLM, every number checked against the
  // evidence (agents/explanation_agent.h). An LLM failure never fails the
  // command: the report says why the narrative is missing.
  bool llm = false;
  std::string llm_config_path;  // TOML with an [llm] table (docs/llm.md); empty: environment only
  std::string llm_record_path;  // record every exchange to this transcript
  std::string llm_replay_path;  // answer from this transcript only (no network, no key)
  // Many profiles (app/explain_series.h, docs/diff.md): more targets after the
  // first (versions of one operation, ranked; or the points of a sweep), and
  // the swept parameter's name (a directory, glob or multi-kernel export is a
  // sweep then).
  std::vector<std::string> more_targets;
  std::string sweep;              // --sweep NAME; empty: no sweep
  std::string sweep_values_path;  // --sweep-values FILE: CSV sidecar (default DIR/sweep.csv when present)
};

// `log` receives the --verbose lines of the llm layer (already redacted) and
// the progress line (options.progress); nothing else goes there. The
// three-argument form uses std::cerr.
Status RunExplain(const ExplainOptions& options, CommandRunner& runner, std::ostream& out, std::ostream& log);
Status RunExplain(const ExplainOptions& options, CommandRunner& runner, std::ostream& out);

}  // namespace kopt
