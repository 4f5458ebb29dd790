// The move table of the builtin generator (docs/tuning.md "Moves"): for each
// micro-profiling tool id (analysis/*_tools.cc, `kopt rules`), which roles of
// tunable parameters its recommendation acts on and in which direction — an
// expert's "the profile says X, so change knob Y", as data.
//
// Kept here, keyed by tool id, until the tool declarations
// (analysis/tool.h, one file per tool: WP-B) gain a field for it; then each
// row moves into its tool's declaration and MovesForFinding reads it there.
//
// Thread safety: immutable tables.
#pragma once

#include <string_view>
#include <vector>

#include "harness/tunable_declarations.h"

namespace kopt::agents {

enum class MoveDirection { kIncrease, kDecrease };
std::string_view MoveDirectionName(MoveDirection direction);  // "increase", "decrease"

struct RoleMove {
  ParameterRole role;
  MoveDirection direction;
};

struct FindingMoves {
  std::string_view tool;        // finding id (Finding::tool)
  std::vector<RoleMove> moves;  // in priority order
  std::string_view rationale;   // why, in one line (shown in docs/tuning.md)
};

// Every row, in tool-id order.
const std::vector<FindingMoves>& MoveTable();

// The moves of a finding (empty for an unknown id or a tool whose remedy is
// structural: tensor cores, fp64 literals, 64-bit indices, "healthy").
const std::vector<RoleMove>& MovesForFinding(std::string_view tool);

}  // namespace kopt::agents
