// Renders a `kopt optimize` run (search/run_state.h): terminal, Markdown,
// JSON (schema "kopt.optimize.report/1": every number {"value", "unit"}) and
// a self-contained HTML page with the search tree drawn in SVG
// (optimize_html_renderer.cc). docs/optimize.md shows each.
//
// What every format says: the task, GPU and settings; the reference and the
// best candidate (time, speedup, file); the path from the reference to the
// best, each step with the finding its parent's profile put first (what the
// generator was shown), the change (a unified diff in md/json/html, line
// counts on the terminal) and its measured effect; every node with its
// status; the stop reason; the budget spent.
//
// Everything the candidates or the generator wrote (reasons, messages,
// sources) is untrusted: sanitized for the terminal, escaped in Markdown and
// HTML.
//
// Thread safety: pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "harness/task_baselines.h"
#include "report/renderer.h"
#include "search/run_state.h"

namespace kopt {

struct OptimizeReportInput {
  const RunState* state = nullptr;        // required
  std::map<NodeId, std::string> sources;  // sources of the nodes on the best path (the root's included)
  std::string best_path;                  // where best.cu was written ("" when nothing verified)
  // The task's PyTorch baselines (baselines.json beside task.toml), when it
  // has them: the best node's speedup against each comes first.
  std::optional<TaskBaselines> pytorch_baselines;
};

// kTerminal, kMarkdown, kJson, kHtml; InvalidInput for kFeedback.
Result<std::string> RenderOptimizeReport(const OptimizeReportInput& input, ReportFormat format,
                                         const RenderOptions& options);

// The nodes from the root to the best verified node (root first); only the
// root when nothing beat the reference.
std::vector<NodeId> BestPath(const RunState& state);

// The HTML page (optimize_html_renderer.cc).
std::string RenderOptimizeHtml(const OptimizeReportInput& input);

// One progress line for an evaluation just recorded (`kopt optimize` on a
// terminal): node, mode, parent, verdict, time, speedup, best so far, budget.
std::string FormatOptimizeProgressLine(const RunState& state, NodeId node, int64_t max_evaluations);

inline constexpr const char* kOptimizeReportSchema = "kopt.optimize.report/1";

}  // namespace kopt
