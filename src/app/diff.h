// `kopt diff BEFORE AFTER`: what changed between two profiles (docs/diff.md).
//
// BEFORE and AFTER are anything `kopt explain` accepts (CSV export, bundle
// directory, .ncu-rep report, .cu file); each is loaded and its launches
// selected by profile/profile_loader.h, both are diagnosed and compared by
// analysis/profile_comparison.h, and the comparison is rendered by
// report/comparison_renderer.h (term, md, json, html). `--llm` adds a
// narrative checked number by number against the comparison
// (prompts/diff/*); an LLM failure never fails the command.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analysis/diagnose.h"
#include "app/explain.h"
#include "core/status.h"
#include "core/subprocess.h"
#include "profile/profile.h"

namespace kopt {

struct DiffOptions {
  std::string before;              // path
  std::string after;               // path
  std::string format = "term";     // term | md | json | html
  std::string output_path;         // empty: `out`
  std::string kernel_regex;        // applied to both profiles
  std::vector<std::string> pairs;  // "BEFORE=AFTER" hand-made pairs (regex or #N each)
  std::string gpu;                 // spec-table key or device name overriding both profiles' device
  std::string config_path;         // tool configuration (analysis/tool_config.h)
  size_t moved_metrics = 12;       // metrics listed per pair
  bool llm = false;
  bool verbose = false;
  std::string llm_config_path;
  std::string llm_record_path;
  std::string llm_replay_path;
};

Status RunDiff(const DiffOptions& options, CommandRunner& runner, std::ostream& out, std::ostream& log);

// Shared with `kopt explain`'s sweeps and versions (app/explain_series.h):
// a profile loaded and its launches selected by `kernel_regex`;
Result<Profile> LoadSelectedProfile(const std::string& target, const std::string& kernel_regex,
                                    CommandRunner& runner, std::vector<std::string>& notes);
// the diagnosis options of --gpu and --config;
Result<DiagnoseOptions> DiagnoseOptionsFor(const std::string& gpu_name, const std::string& config_path);
// the LLM half of ExplainOptions (for LlmSession::Open);
ExplainOptions LlmOptionsOf(bool verbose, const std::string& config, const std::string& record,
                            const std::string& replay);
// `rendered` to `out`, or written atomically to output_path.
Status WriteReport(const std::string& rendered, const std::string& output_path, std::ostream& out);

}  // namespace kopt
