// The comparison engine of `kopt diff BEFORE AFTER` (docs/diff.md): both
// profiles loaded through one ProfileRequest (the same selection and
// collection settings for both sides), diagnosed and compared by
// analysis/profile_comparison.h; with llm.narrative, a narrative checked
// number by number against the comparison (prompts/diff/*). Renders nothing.
//
// Errors: InvalidInput for a bad --gpu, configuration or --pair; the profile
// loader's errors for either side. The LLM side never fails.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analysis/profile_comparison.h"
#include "core/status.h"
#include "core/subprocess.h"
#include "explain/explain.h"
#include "explain/llm_session.h"
#include "explain/profile_request.h"
#include "llm/log_sink.h"

namespace kopt {

struct DiffSettings {
  std::string before;  // anything `kopt explain` accepts
  std::string after;
  // Both sides' selection (kernel regex, launch skip and count) and live
  // collection settings; its target and companion files are unused.
  ProfileRequest profile;
  std::vector<std::string> pairs;  // "BEFORE=AFTER" hand-made pairs (regex or #N each)
  std::string gpu;                 // spec-table key or device name overriding both profiles' device
  std::string config_path;         // tool configuration (analysis/tool_config.h)
  size_t moved_metrics = 12;       // metrics listed per pair
  LlmSettings llm;
};

// Two profiles, each loaded and selected as `profile` says for its target.
struct ProfilePair {
  Profile before;
  Profile after;
  std::vector<std::string> notes;  // both loads' notes, in order
};
Result<ProfilePair> LoadPair(const ProfileRequest& profile, const std::string& before,
                             const std::string& after, CommandRunner& runner);

// `llm_log` receives the LLM exchanges when settings.llm.verbose (may be null).
// `check_inputs`, when set, sees every file both profiles were read from before
// any analysis (the command refuses an output path among them).
Result<ProfileComparison> ExplainDiff(const DiffSettings& settings, CommandRunner& runner,
                                      llm::LogSink* llm_log, const InputCheck& check_inputs = nullptr);

}  // namespace kopt
