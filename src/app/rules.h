// `kopt rules`: lists the micro-profiling tools — their inputs, thresholds
// (with overrides from a config file applied), trigger and relevance.
#pragma once

#include <ostream>
#include <string>

#include "core/status.h"

namespace kopt {

struct RulesOptions {
  std::string format = "term";  // term | md | json
  std::string config_path;      // optional tool config (analysis/tool_config.h)
  std::string tool;             // only this tool; empty: all
};

Status RunRules(const RulesOptions& options, std::ostream& out);

}  // namespace kopt
