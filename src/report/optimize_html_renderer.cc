// The HTML page of a `kopt optimize` run (declared in optimize_renderer.h):
// self-contained, the search tree drawn as inline SVG (one box per node,
// coloured by status, labelled with its speedup; the best path in bold),
// then the path with its diffs and the table of every node. Everything
// embedded is escaped (EscapeHtml).
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "core/quantity_format.h"
#include "core/terminal_text.h"
#include "core/text_diff.h"
#include "report/markup_escape.h"
#include "report/optimize_energy.h"
#include "report/optimize_renderer.h"

namespace kopt {
namespace {

constexpr int kColumnWidth = 120;  // px per tree depth
constexpr int kRowHeight = 26;     // px per leaf row
constexpr int kBoxWidth = 96;
constexpr int kBoxHeight = 20;

const char* StatusColor(NodeStatus status) {
  switch (status) {
    case NodeStatus::kVerified: return "#4caf50";
    case NodeStatus::kPending: return "#bdbdbd";
    case NodeStatus::kDuplicate: return "#90a4ae";
    case NodeStatus::kRejected: return "#8e24aa";
    case NodeStatus::kFailedGenerate: return "#ffb74d";
    case NodeStatus::kFailedCompile:
    case NodeStatus::kFailedCheck:
    case NodeStatus::kFailedRun: return "#e57373";
  }
  return "#bdbdbd";
}

struct Placement {
  std::vector<int> row;    // per node: its row (leaves in DFS order, parents centred)
  std::vector<int> depth;  // per node
  int rows = 0;
};

Placement PlaceNodes(const SearchTree& tree) {
  Placement placement;
  placement.row.assign(static_cast<size_t>(tree.size()), 0);
  placement.depth.assign(static_cast<size_t>(tree.size()), 0);
  std::function<void(NodeId, int)> place = [&](NodeId id, int depth) {
    const SearchNode& node = tree.node(id);
    placement.depth[static_cast<size_t>(id)] = depth;
    if (node.children.empty()) {
      placement.row[static_cast<size_t>(id)] = placement.rows++;
      return;
    }
    for (NodeId child : node.children) place(child, depth + 1);
    int first = placement.row[static_cast<size_t>(node.children.front())];
    int last = placement.row[static_cast<size_t>(node.children.back())];
    placement.row[static_cast<size_t>(id)] = (first + last) / 2;
  };
  if (!tree.empty()) place(0, 0);
  return placement;
}

std::string TreeSvg(const RunState& state) {
  const SearchTree& tree = state.tree;
  Placement placement = PlaceNodes(tree);
  int max_depth = 0;
  for (int depth : placement.depth) max_depth = std::max(max_depth, depth);
  std::vector<NodeId> best_path = BestPath(state);
  auto on_path = [&](NodeId id) {
    return std::find(best_path.begin(), best_path.end(), id) != best_path.end();
  };
  auto x = [&](NodeId id) { return 10 + placement.depth[static_cast<size_t>(id)] * kColumnWidth; };
  auto y = [&](NodeId id) { return 10 + placement.row[static_cast<size_t>(id)] * kRowHeight; };
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" role=\"img\" "
      "aria-label=\"search tree\" font-family=\"sans-serif\" font-size=\"11\">\n",
      20 + (max_depth + 1) * kColumnWidth, 20 + std::max(1, placement.rows) * kRowHeight);
  for (const SearchNode& node : tree.nodes()) {
    if (!node.parent) continue;
    bool bold = on_path(node.id) && on_path(*node.parent);
    svg += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#616161\" stroke-width=\"{}\"/>\n",
        x(*node.parent) + kBoxWidth, y(*node.parent) + kBoxHeight / 2, x(node.id),
        y(node.id) + kBoxHeight / 2, bold ? 3 : 1);
  }
  for (const SearchNode& node : tree.nodes()) {
    std::string label = node.parent ? fmt::format("n{}", node.id) : "reference";
    if (node.verified() && node.parent && node.time_s > 0) {
      label += fmt::format(" {:.2f}×", state.reference_time_s / node.time_s);
    } else if (node.parent) {
      label += " " + std::string(NodeStatusName(node.status));
    }
    std::string title = fmt::format(
        "n{} {} {}: {}", node.id, GenerationModeName(node.mode), NodeStatusName(node.status),
        state.record(node.id).message.empty() ? state.record(node.id).reason : state.record(node.id).message);
    svg += fmt::format(
        "<g><title>{}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\" fill=\"{}\" "
        "stroke=\"{}\" stroke-width=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text></g>\n",
        EscapeHtml(title), x(node.id), y(node.id), kBoxWidth, kBoxHeight, StatusColor(node.status),
        on_path(node.id) ? "#000" : "#757575", on_path(node.id) ? 2 : 1, x(node.id) + 5, y(node.id) + 14,
        EscapeHtml(Truncate(label, 16)));
  }
  return svg + "</svg>\n";
}

std::string Cell(const std::string& text) {
  return "<td>" + EscapeHtml(text) + "</td>";
}

}  // namespace

std::string RenderOptimizeHtml(const OptimizeReportInput& input) {
  const RunState& state = *input.state;
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>kopt optimize: " +
      EscapeHtml(state.task) +
      "</title><style>body{font-family:sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}pre{background:#f6f6f6;padding:8px;"
      "overflow-x:auto;font-size:12px}</style></head><body>\n";
  html += fmt::format("<h1>kopt optimize: {} (run {})</h1>\n<p>{}{}</p>\n", EscapeHtml(state.task),
                      state.run_id, EscapeHtml(std::string(RunStatusName(state.status))),
                      state.stop_reason.empty() ? "" : ": " + EscapeHtml(state.stop_reason));
  std::optional<NodeId> best = state.tree.BestNode();
  html += fmt::format(
      "<p>Reference {}; best {}; GPU {}; {} evaluations, {:.1f} GPU-s, {} LLM tokens.</p>\n",
      FormatDuration(state.reference_time_s * 1e9, QuantityStyle::kFixed),
      best && *best != 0 ? fmt::format("n{} at {:.2f}×", *best, state.tree.BestSpeedup()) : "the reference",
      EscapeHtml(state.gpu), state.usage.evaluations, state.usage.gpu_seconds,
      state.usage.llm_input_tokens + state.usage.llm_output_tokens);
  if (EnergyShown(state)) {
    html += "<p>Energy: " + EscapeHtml(BestEnergyText(state)) +
            "<br>Chosen by: " + EscapeHtml(BestChoiceText(state)) + "</p>\n";
  }
  html += "<h2>Search tree</h2>\n" + TreeSvg(state);
  std::vector<NodeId> path = BestPath(state);
  if (path.size() > 1) {
    html += "<h2>Path from the reference to the best</h2>\n";
    for (size_t step = 1; step < path.size(); ++step) {
      const SearchNode& node = state.tree.node(path[step]);
      NodeId parent = path[step - 1];
      html += fmt::format("<h3>Step {}: n{} ({}), {:.2f}×</h3>\n<p>{}</p>\n", step, node.id,
                          GenerationModeName(node.mode), state.reference_time_s / node.time_s,
                          EscapeHtml(state.record(node.id).reason));
      auto before = input.sources.find(parent);
      auto after = input.sources.find(node.id);
      if (before != input.sources.end() && after != input.sources.end()) {
        html += "<pre>" +
                EscapeHtml(UnifiedDiff(before->second, after->second, fmt::format("n{}", parent),
                                       fmt::format("n{}", node.id))) +
                "</pre>\n";
      }
    }
  }
  html +=
      "<h2>Every node</h2>\n<table><tr><th>node</th><th>parent</th><th>mode</th><th>status</th><th>time "
      "(µs)</th><th>energy/launch</th><th>note</th></tr>\n";
  for (const SearchNode& node : state.tree.nodes()) {
    const NodeRecord& record = state.record(node.id);
    html += "<tr>" + Cell(fmt::format("n{}", node.id)) +
            Cell(node.parent ? fmt::format("n{}", *node.parent) : "-") +
            Cell(std::string(GenerationModeName(node.mode))) +
            Cell(std::string(NodeStatusName(node.status))) +
            Cell(node.verified() ? fmt::format("{:.4g}", node.time_s * 1e6) : "-") +
            Cell(NodeEnergyText(state, node.id)) +
            Cell(record.message.empty() ? record.reason : record.message) + "</tr>\n";
  }
  html += "</table>\n";
  return html + "</body></html>\n";
}

}  // namespace kopt
