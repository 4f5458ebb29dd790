// The tool families; each returns its tools in a fixed order. One file per
// family: memory_tools.cc, occupancy_tools.cc, compute_tools.cc, health_tools.cc.
#pragma once

#include <vector>

#include "analysis/tool.h"

namespace kopt {

std::vector<ToolDefinition> MemoryTools();     // coalescing, bank conflicts, local memory, latency, atomics
std::vector<ToolDefinition> OccupancyTools();  // occupancy, waves/tail, launch overhead, imbalance, barriers
std::vector<ToolDefinition> ComputeTools();    // divergence, tensor cores, FP64, MUFU, integer division
std::vector<ToolDefinition> HealthTools();     // the healthy-kernel verdict

}  // namespace kopt
