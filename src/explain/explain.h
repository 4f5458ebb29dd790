// The explain engine: a profile (loaded from a file or collected live)
// turned into a Diagnosis with its measured ceilings, energy section,
// hypotheses and narrative. Renders nothing and writes nothing: the commands
// in app/ choose the format and where the report goes.
//
// Errors: InvalidInput for a bad --gpu, tool configuration, LLM
// configuration, ceilings or energy table (before any collection where they
// can be checked first); the profile loader's errors (profile/profile_loader.h).
// The LLM side never fails: its failures become notes or the narrative's
// missing reason (explain/llm_session.h).
//
// Thread safety: one Explain at a time per ExplainEnvironment.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analysis/diagnose.h"
#include "analysis/diagnosis.h"
#include "core/status.h"
#include "core/subprocess.h"
#include "explain/llm_session.h"
#include "explain/profile_request.h"
#include "llm/log_sink.h"

namespace kopt {

struct ExplainSettings {
  ProfileRequest profile;   // what is explained, and how a live one is collected
  std::string gpu;          // spec-table key or device name overriding the profile's device
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
  // Kernel source shown to the hypothesis pass and the LLM (default: the
  // target when it is a .cu file); empty: none.
  std::string source_path;
  bool hypotheses = false;  // run the hypothesis pass (static rules; llm.narrative adds the LLM's)
  LlmSettings llm;
};

// The outside world Explain touches.
// Sees the paths a request read (profiles, companions, sidecars) before any
// analysis; an error stops the request (the command refuses an output among them).
using InputCheck = std::function<Status(const std::vector<std::string>& inputs)>;

struct ExplainEnvironment {
  CommandRunner* command_runner = nullptr;  // ncu, nvcc, cuobjdump, nvidia-smi, the program
  // Live collection: each step, then "analysing N launches"; null: none.
  CollectionProgress progress;
  llm::LogSink* llm_log = nullptr;  // the LLM exchanges when settings.llm.verbose; null: none
  // Called with every file the profile was read from before the analysis;
  // an error stops Explain (a command refusing to overwrite an input). Null: none.
  InputCheck check_inputs;
};

// Every file the settings name for reading (target, companions, configurations,
// transcripts, the kernel source): what an output path must not be.
std::vector<std::string> InputPathsOf(const ExplainSettings& settings);

Result<Diagnosis> Explain(const ExplainSettings& settings, const ExplainEnvironment& environment);

// The diagnosis options of --gpu and --config (InvalidInput for a GPU the
// table lacks or a bad configuration).
Result<DiagnoseOptions> ResolveDiagnoseOptions(const std::string& gpu_name, const std::string& config_path);

}  // namespace kopt
