// The tool configuration file: threshold overrides for the micro-profiling
// tools, in TOML.
//
//   # kopt-tools.toml
//   [tools.uncoalesced_loads]
//   min_excess_sector_share = 0.5
//
//   [orchestration]
//   healthy_percent = 90
//
//   [tools.tail_effect]
//   enabled = false          # turn the tool off: it does not run, the report says so
//
// Every table under [tools] must name a registered tool and every key one of
// its thresholds (`kopt rules` lists them) or `enabled`; threshold values are
// numbers, `enabled` a boolean. Errors name the file, the line and the key,
// say what was expected, and suggest the nearest tool or threshold name.
#pragma once

#include <string>
#include <string_view>

#include "analysis/orchestrator.h"
#include "core/status.h"

namespace kopt {

Result<OrchestrationOptions> ParseToolConfig(std::string_view text, std::string_view file_name);
Result<OrchestrationOptions> LoadToolConfig(const std::string& path);

}  // namespace kopt
