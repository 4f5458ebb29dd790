#include "agents/tuning_moves.h"

#include <algorithm>

#include "analysis/tool.h"

namespace kopt::agents {

const std::vector<FindingTuningMoves>& MoveTable() {
  static const std::vector<FindingTuningMoves> table = [] {
    std::vector<FindingTuningMoves> rows;
    for (const ToolDefinition& tool : ToolRegistry()) {
      rows.insert(rows.end(), tool.tuning_moves.begin(), tool.tuning_moves.end());
    }
    std::sort(rows.begin(), rows.end(), [](const FindingTuningMoves& a, const FindingTuningMoves& b) {
      return a.finding_id < b.finding_id;
    });
    return rows;
  }();
  return table;
}

const std::vector<RoleMove>& MovesForFinding(std::string_view finding_id) {
  static const std::vector<RoleMove> none;
  for (const FindingTuningMoves& row : MoveTable()) {
    if (row.finding_id == finding_id) return row.moves;
  }
  return none;
}

}  // namespace kopt::agents
