// Placeholder until the occupancy tool family lands (issue 3, in progress).
#include "analysis/tool_families.h"

namespace kopt {

std::vector<ToolDefinition> OccupancyTools() { return {}; }

}  // namespace kopt
