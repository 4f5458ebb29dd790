// ncu's guided-analysis rules (`ncu --page details`, column "Rule Name") that
// name the cause of a kopt tool: a tool declares its counterparts
// (ToolDefinition::ncu_rules), and bench/diagnosis_accuracy scores ncu's own
// ranking by them. CPIStall names different causes by the stall reason in its
// text, so it is one value per reason.
//
// Thread safety: pure functions over values.
#pragma once

#include <optional>
#include <string_view>

namespace kopt {

enum class NcuRule {
  kUncoalescedGlobalAccess,
  kMemoryCacheAccessPattern,
  kSharedMemoryConflicts,
  kUncoalescedSharedAccess,
  kThreadDivergence,
  kTheoreticalOccupancy,
  kAchievedOccupancy,
  kLaunchConfiguration,
  kWorkloadImbalance,
  kSolFpRoofline,
  kLocalMemoryUsage,
  kCpiStallBarrier,   // CPIStall whose text names barrier stalls
  kCpiStallL1tex,     // ... L1TEX (long scoreboard) stalls
  kCpiStallMio,       // ... MIO throttle stalls
  kCpiStallMathPipe,  // ... math-pipe throttle stalls
};

// The rule's name in ncu ("UncoalescedGlobalAccess"; "CPIStall" for the four CPIStall values).
std::string_view NcuRuleName(NcuRule rule);

// The rule a details-page row names: by its name, and for CPIStall by the first
// stall reason its description names (barrier, L1TEX, MIO, math pipe, in that
// order). nullopt for a rule no tool has as counterpart.
std::optional<NcuRule> NcuRuleOf(std::string_view name, std::string_view description);

}  // namespace kopt
