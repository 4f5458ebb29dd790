#include "search/evaluation.h"

#include "core/enum_names.h"

namespace kopt {
namespace {

constexpr EnumNameTable<GenerationMode, 3> kModeNames = {{
    {GenerationMode::kInitial, "initial"},
    {GenerationMode::kRepair, "repair"},
    {GenerationMode::kOptimize, "optimize"},
}};

constexpr EnumNameTable<NodeStatus, 8> kStatusNames = {{
    {NodeStatus::kPending, "pending"},
    {NodeStatus::kVerified, "verified"},
    {NodeStatus::kFailedGenerate, "failed_generate"},
    {NodeStatus::kFailedCompile, "failed_compile"},
    {NodeStatus::kFailedCheck, "failed_check"},
    {NodeStatus::kFailedRun, "failed_run"},
    {NodeStatus::kRejected, "rejected"},
    {NodeStatus::kDuplicate, "duplicate"},
}};

}  // namespace

std::string_view GenerationModeName(GenerationMode mode) {
  return EnumName(kModeNames, mode);
}
std::optional<GenerationMode> ParseGenerationMode(std::string_view name) {
  return EnumFromName(kModeNames, name);
}
std::string_view NodeStatusName(NodeStatus status) {
  return EnumName(kStatusNames, status);
}
std::optional<NodeStatus> ParseNodeStatus(std::string_view name) {
  return EnumFromName(kStatusNames, name);
}

bool IsFailure(NodeStatus status) {
  switch (status) {
    case NodeStatus::kFailedGenerate:
    case NodeStatus::kFailedCompile:
    case NodeStatus::kFailedCheck:
    case NodeStatus::kFailedRun:
    case NodeStatus::kRejected: return true;
    default: return false;
  }
}

}  // namespace kopt
