// Placeholder until the memory tool family lands (issue 3, in progress).
#include "analysis/tool_families.h"

namespace kopt {

std::vector<ToolDefinition> MemoryTools() { return {}; }

}  // namespace kopt
