#include "search/evaluation.h"

#include <array>
#include <utility>

namespace kopt {
namespace {

constexpr std::array<std::pair<GenerationMode, std::string_view>, 3> kModeNames = {{
    {GenerationMode::kInitial, "initial"},
    {GenerationMode::kRepair, "repair"},
    {GenerationMode::kOptimize, "optimize"},
}};

constexpr std::array<std::pair<NodeStatus, std::string_view>, 8> kStatusNames = {{
    {NodeStatus::kPending, "pending"},
    {NodeStatus::kVerified, "verified"},
    {NodeStatus::kFailedGenerate, "failed_generate"},
    {NodeStatus::kFailedCompile, "failed_compile"},
    {NodeStatus::kFailedCheck, "failed_check"},
    {NodeStatus::kFailedRun, "failed_run"},
    {NodeStatus::kRejected, "rejected"},
    {NodeStatus::kDuplicate, "duplicate"},
}};

template <typename Enum, size_t N>
std::string_view NameOf(const std::array<std::pair<Enum, std::string_view>, N>& table, Enum value) {
  for (const auto& [entry, name] : table) {
    if (entry == value) return name;
  }
  return "";
}

template <typename Enum, size_t N>
std::optional<Enum> ValueOf(const std::array<std::pair<Enum, std::string_view>, N>& table,
                            std::string_view name) {
  for (const auto& [entry, entry_name] : table) {
    if (entry_name == name) return entry;
  }
  return std::nullopt;
}

}  // namespace

std::string_view GenerationModeName(GenerationMode mode) {
  return NameOf(kModeNames, mode);
}
std::optional<GenerationMode> ParseGenerationMode(std::string_view name) {
  return ValueOf(kModeNames, name);
}
std::string_view NodeStatusName(NodeStatus status) {
  return NameOf(kStatusNames, status);
}
std::optional<NodeStatus> ParseNodeStatus(std::string_view name) {
  return ValueOf(kStatusNames, name);
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
