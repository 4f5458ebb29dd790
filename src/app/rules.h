// `kopt rules`: lists the micro-profiling tools — their inputs, thresholds
// (with overrides from a config file applied), trigger and relevance; with
// --policy, the static policy of `kopt bench` instead (harness/candidate_policy.h:
// id, what it matches, why, how to allow).
#pragma once

#include <ostream>
#include <string>

#include "core/status.h"

namespace kopt {

struct RulesOptions {
  std::string format = "term";  // term | md | json
  std::string config_path;      // optional tool config (analysis/tool_config.h)
  std::string tool;             // only this tool (with `policy`: this construct); empty: all
  bool policy = false;          // the candidate policy's table instead of the tools
  int width = 0;                // term: wrap the lines to this many columns; 0: no wrapping
};

Status RunRules(const RulesOptions& options, std::ostream& out);

}  // namespace kopt
