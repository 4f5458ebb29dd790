// `kopt plan TARGET...`: the prioritized plan of a program with many kernels,
// or of a collection of programs (docs/plan.md; analysis/program_plan.h).
//
// TARGETs are programs as explain/program_set.h reads them; every profile is
// loaded, its launches selected by --kernel, diagnosed, and the plan built and rendered (term, md, json
// `kopt.plan/1`, html). Bad input (no target, an unreadable profile) is InvalidInput or NotFound naming the
// path.
//
// With `llm.narrative` (`--llm`, the same options and [llm] configuration as
// `kopt explain --llm`), the plan gets a narrative over the whole set,
// every number checked against the plan (explain/plan_narrative.h). A bad
// --llm-config is InvalidInput before any work; anything else the LLM does
// only costs the narrative (its section says why), never the command.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/diagnosis.h"
#include "core/status.h"
#include "core/subprocess.h"
#include "explain/llm_session.h"

namespace kopt {

struct PlanCommandOptions {
  std::vector<std::string> targets;
  std::string format;        // term | md | json | html; empty: from output_path, else term
  std::string output_path;   // empty: `out`
  std::string kernel_regex;  // only kernels whose demangled name matches; empty: all
  std::string gpu;           // spec-table key or device name overriding the profiles' device
  std::string config_path;   // tool configuration (analysis/tool_config.h)
  size_t max_findings = 20;  // ranked findings listed (0: all)
  size_t max_kernels = 20;   // kernels listed under "where the time goes" (0: all)
  LlmSettings llm;           // --llm, --llm-config, --llm-record, --llm-replay, --verbose
};

// `log` receives the LLM exchanges (redacted) with llm.verbose.
Status RunPlan(const PlanCommandOptions& options, CommandRunner& runner, std::ostream& out,
               std::ostream& log);

}  // namespace kopt
