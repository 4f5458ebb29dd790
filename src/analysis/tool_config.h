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
// Every table under [tools] must name a registered tool and every key one of
// its thresholds (`kopt rules` lists them); values are numbers. Errors name
// the file, the line and the key, and say what was expected.
#pragma once

#include <string>
#include <string_view>

#include "analysis/orchestrator.h"
#include "core/status.h"

namespace kopt {

Result<OrchestrationOptions> ParseToolConfig(std::string_view text, std::string_view file_name);
Result<OrchestrationOptions> LoadToolConfig(const std::string& path);

}  // namespace kopt
