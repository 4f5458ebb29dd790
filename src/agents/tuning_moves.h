// The builtin generator's view of the tools' moves (docs/tuning.md "Moves"):
// each micro-profiling tool declares, per finding id, which roles of tunable
// parameters its recommendation acts on and in which direction
// (ToolDefinition::tuning_moves, analysis/tool.h) — an expert's "the profile
// says X, so change knob Y", as data. This file gathers them.
//
// Thread safety: immutable tables, built once.
#pragma once

#include <string_view>
#include <vector>

#include "analysis/tuning_role.h"

namespace kopt::agents {

// Every finding id's moves over the whole tool registry, in finding-id order.
const std::vector<FindingTuningMoves>& MoveTable();

// The moves of a finding id (empty for an unknown id or a tool whose remedy
// is structural: tensor cores, fp64 literals, 64-bit indices, "healthy").
const std::vector<RoleMove>& MovesForFinding(std::string_view finding_id);

}  // namespace kopt::agents
