#include "analysis/ncu_rule.h"

#include <array>
#include <utility>

namespace kopt {
namespace {

constexpr std::array<std::pair<NcuRule, std::string_view>, 11> kNamedRules = {{
    {NcuRule::kUncoalescedGlobalAccess, "UncoalescedGlobalAccess"},
    {NcuRule::kMemoryCacheAccessPattern, "MemoryCacheAccessPattern"},
    {NcuRule::kSharedMemoryConflicts, "SharedMemoryConflicts"},
    {NcuRule::kUncoalescedSharedAccess, "UncoalescedSharedAccess"},
    {NcuRule::kThreadDivergence, "ThreadDivergence"},
    {NcuRule::kTheoreticalOccupancy, "TheoreticalOccupancy"},
    {NcuRule::kAchievedOccupancy, "AchievedOccupancy"},
    {NcuRule::kLaunchConfiguration, "LaunchConfiguration"},
    {NcuRule::kWorkloadImbalance, "WorkloadImbalance"},
    {NcuRule::kSolFpRoofline, "SOLFPRoofline"},
    {NcuRule::kLocalMemoryUsage, "LocalMemoryUsage"},
}};

// CPIStall's stall reasons, in the order a description is searched for them.
constexpr std::array<std::pair<NcuRule, std::string_view>, 4> kCpiStallReasons = {{
    {NcuRule::kCpiStallBarrier, "barrier"},
    {NcuRule::kCpiStallL1tex, "L1TEX"},
    {NcuRule::kCpiStallMio, "MIO"},
    {NcuRule::kCpiStallMathPipe, "math pipe"},
}};

constexpr std::string_view kCpiStall = "CPIStall";

}  // namespace

std::string_view NcuRuleName(NcuRule rule) {
  for (const auto& [named, name] : kNamedRules) {
    if (named == rule) return name;
  }
  return kCpiStall;
}

std::optional<NcuRule> NcuRuleOf(std::string_view name, std::string_view description) {
  if (name == kCpiStall) {
    for (const auto& [rule, reason] : kCpiStallReasons) {
      if (description.find(reason) != std::string_view::npos) return rule;
    }
    return std::nullopt;
  }
  for (const auto& [rule, rule_name] : kNamedRules) {
    if (rule_name == name) return rule;
  }
  return std::nullopt;
}

}  // namespace kopt
