// Placeholder until the compute tool family lands (issue 3, in progress).
#include "analysis/tool_families.h"

namespace kopt {

std::vector<ToolDefinition> ComputeTools() { return {}; }

}  // namespace kopt
