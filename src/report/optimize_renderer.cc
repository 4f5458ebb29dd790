#include "report/optimize_renderer.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/quantity_format.h"
#include "core/terminal_text.h"
#include "core/text.h"
#include "core/text_diff.h"
#include "report/baseline_speedups.h"
#include "report/markup_escape.h"
#include "report/optimize_energy.h"
#include "report/text_table.h"

namespace kopt {
namespace {

using nlohmann::json;

std::string Time(double seconds) {
  return seconds > 0 ? FormatDuration(seconds * 1e9, QuantityStyle::kTrimmed) : "-";
}

std::string Speedup(const RunState& state, const SearchNode& node) {
  if (!node.verified() || node.time_s <= 0 || state.reference_time_s <= 0) return "-";
  return fmt::format("{:.2f}×", state.reference_time_s / node.time_s);
}

std::string StatusText(const SearchNode& node) {
  std::string text(NodeStatusName(node.status));
  if (node.duplicate_of) text += fmt::format(" of n{}", *node.duplicate_of);
  return text;
}

std::string ParentText(const SearchNode& node) {
  return node.parent ? fmt::format("n{}", *node.parent) : "-";
}

// The finding the parent's profile put first: what the generator acted on.
std::string FindingActedOn(const RunState& state, const SearchNode& node) {
  if (!node.parent || node.mode != GenerationMode::kOptimize) return "-";
  const NodeRecord& parent = state.record(*node.parent);
  return parent.top_finding.empty() ? "-" : parent.top_finding;
}

struct Counts {
  std::map<NodeStatus, int> by_status;
  int total = 0;
};

Counts CountNodes(const RunState& state) {
  Counts counts;
  for (const SearchNode& node : state.tree.nodes()) {
    if (!node.parent) continue;
    ++counts.by_status[node.status];
    ++counts.total;
  }
  return counts;
}

std::string CountsText(const Counts& counts) {
  std::string text;
  for (const auto& [status, count] : counts.by_status) {
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", count, NodeStatusName(status));
  }
  return text.empty() ? "none" : text;
}

std::string BudgetText(const RunState& state) {
  const RunUsage& usage = state.usage;
  return fmt::format("{} evaluations, {:.1f} GPU-s, {} LLM tokens ({}{:.2f} USD), {:.1f} s wall",
                     usage.evaluations, usage.gpu_seconds, usage.llm_input_tokens + usage.llm_output_tokens,
                     usage.llm_cost_known ? "" : "at least ", usage.llm_cost_usd, usage.wall_seconds);
}

std::string Header(const RunState& state) {
  return fmt::format("kopt optimize: {} (run {}), {}{}", state.task, state.run_id,
                     RunStatusName(state.status), state.stop_reason.empty() ? "" : ": " + state.stop_reason);
}

std::string SettingsText(const RunState& state) {
  const json& settings = state.settings;
  return fmt::format("GPU {} · seed {} · search {} · generator {} · objective {} · feedback {}",
                     state.gpu.empty() ? "unknown" : state.gpu, state.seed, settings.value("search", "?"),
                     settings.value("generator", "?"), settings.value("objective", "?"),
                     settings.value("feedback", "?"));
}

// The best verified node's time; nullopt when nothing beat the reference.
std::optional<double> BestTime(const RunState& state) {
  std::optional<NodeId> best = state.tree.BestNode();
  if (!best || *best == 0) return std::nullopt;
  return state.tree.node(*best).time_s;
}

std::string BestText(const OptimizeReportInput& input) {
  const RunState& state = *input.state;
  std::optional<NodeId> best = state.tree.BestNode();
  if (!best || *best == 0) return "nothing beat the reference";
  const SearchNode& node = state.tree.node(*best);
  std::string against_pytorch =
      input.pytorch_baselines ? SpeedupsAgainstText(*input.pytorch_baselines, node.time_s) + "; " : "";
  return fmt::format("n{}: {} ({}{} faster than the reference){}", *best, Time(node.time_s), against_pytorch,
                     Speedup(state, node), input.best_path.empty() ? "" : ", " + input.best_path);
}

std::string SourceFor(const OptimizeReportInput& input, NodeId id) {
  auto found = input.sources.find(id);
  return found == input.sources.end() ? "" : found->second;
}

std::string StepDiff(const OptimizeReportInput& input, NodeId parent, NodeId child) {
  std::string before = SourceFor(input, parent);
  std::string after = SourceFor(input, child);
  if (before.empty() || after.empty()) return "";
  return UnifiedDiff(before, after, parent == 0 ? "reference.cu" : fmt::format("n{}.cu", parent),
                     fmt::format("n{}.cu", child));
}

std::string RenderTerminal(const OptimizeReportInput& input) {
  const RunState& state = *input.state;
  std::string out =
      SanitizeForTerminal(Header(state)) + "\n" + SanitizeForTerminal(SettingsText(state)) + "\n\n";
  out += fmt::format("Reference  {}{}{}\n", Time(state.reference_time_s),
                     state.reference_class.empty() ? "" : "  (" + state.reference_class + ")",
                     state.floor_s > 0 ? "  roofline floor " + Time(state.floor_s) : "");
  out += "Best       " + SanitizeForTerminal(BestText(input)) + "\n";
  bool energy = EnergyShown(state);
  if (energy) {
    out += "Energy     " + SanitizeForTerminal(BestEnergyText(state)) + "\n";
    out += "Chosen by  " + SanitizeForTerminal(BestChoiceText(state)) + "\n";
  }
  out += "\n";
  std::vector<NodeId> path = BestPath(state);
  if (path.size() > 1) {
    out += "Path from the reference to the best\n";
    TextTable table;
    table.rows.push_back({"node", "mode", "time", "speedup", "acted on", "change", "reason"});
    for (size_t step = 1; step < path.size(); ++step) {
      const SearchNode& node = state.tree.node(path[step]);
      DiffStatistics changed =
          CountChangedLines(SourceFor(input, path[step - 1]), SourceFor(input, path[step]));
      table.rows.push_back({fmt::format("n{}", node.id), std::string(GenerationModeName(node.mode)),
                            Time(node.time_s), Speedup(state, node),
                            SanitizeForTerminal(FindingActedOn(state, node)),
                            fmt::format("+{} -{} lines", changed.added_lines, changed.removed_lines),
                            SanitizeForTerminal(state.record(node.id).reason)});
    }
    for (const std::string& line : AlignedTableLines(table, {2, 120, false})) out += line + "\n";
    out += "\n";
    for (size_t step = 1; step < path.size(); ++step) {
      const std::string& change = state.record(path[step]).change_text;
      if (change.empty()) continue;
      out += fmt::format("What n{}'s change did (profile diff against n{}):\n", path[step], path[step - 1]);
      for (std::string_view line : SplitLines(change)) out += "  " + SanitizeForTerminal(line) + "\n";
      out += "\n";
    }
  }
  Counts counts = CountNodes(state);
  out += fmt::format("Evaluations ({}): {}\n", counts.total, CountsText(counts));
  TextTable nodes;
  nodes.rows.push_back({"node", "parent", "mode", "status", "time", "speedup", "note"});
  if (energy) nodes.rows.back().insert(nodes.rows.back().begin() + 6, "energy/launch");
  for (const SearchNode& node : state.tree.nodes()) {
    if (!node.parent) continue;
    const NodeRecord& record = state.record(node.id);
    nodes.rows.push_back({fmt::format("n{}", node.id), ParentText(node),
                          std::string(GenerationModeName(node.mode)), StatusText(node),
                          Time(node.verified() ? node.time_s : 0), Speedup(state, node),
                          SanitizeForTerminal(record.message.empty() ? record.reason : record.message)});
    if (energy) nodes.rows.back().insert(nodes.rows.back().begin() + 6, NodeEnergyText(state, node.id));
  }
  for (const std::string& line : AlignedTableLines(nodes, {2, 120, false})) out += line + "\n";
  for (const std::string& note : state.notes) out += "note: " + SanitizeForTerminal(note) + "\n";
  out += "\nBudget: " + BudgetText(state) + "\n";
  return out;
}

std::string RenderMarkdown(const OptimizeReportInput& input) {
  const RunState& state = *input.state;
  std::string out =
      "# " + EscapeMarkdown(Header(state)) + "\n\n" + EscapeMarkdown(SettingsText(state)) + "\n\n";
  out += fmt::format("- **Reference:** {}{}\n", Time(state.reference_time_s),
                     state.floor_s > 0 ? ", roofline floor " + Time(state.floor_s) : "");
  out += "- **Best:** " + EscapeMarkdown(BestText(input)) + "\n";
  bool energy = EnergyShown(state);
  if (energy) {
    out += "- **Energy:** " + EscapeMarkdown(BestEnergyText(state)) + "\n";
    out += "- **Chosen by:** " + EscapeMarkdown(BestChoiceText(state)) + "\n";
  }
  out += "- **Budget:** " + BudgetText(state) + "\n\n";
  std::vector<NodeId> path = BestPath(state);
  if (path.size() > 1) {
    out += "## Path from the reference to the best\n\n";
    for (size_t step = 1; step < path.size(); ++step) {
      const SearchNode& node = state.tree.node(path[step]);
      out += fmt::format("### Step {}: n{} ({}), {}, {}\n\n", step, node.id, GenerationModeName(node.mode),
                         Time(node.time_s), Speedup(state, node));
      out += "Acted on: " + MarkdownCode(FindingActedOn(state, node)) +
             ". Reason: " + EscapeMarkdown(state.record(node.id).reason) + "\n\n";
      std::string diff = StepDiff(input, path[step - 1], path[step]);
      if (!diff.empty()) out += "~~~~diff\n" + diff + "~~~~\n\n";
      const std::string& change = state.record(path[step]).change_text;
      if (!change.empty())
        out += "What the change did (profile diff against its parent):\n\n~~~~text\n" + change + "~~~~\n\n";
    }
  }
  Counts counts = CountNodes(state);
  out += fmt::format("## Evaluations ({}): {}\n\n", counts.total, CountsText(counts));
  out += energy
             ? "| node | parent | mode | status | time | speedup | energy/launch | note |\n"
               "|---|---|---|---|---|---|---|---|\n"
             : "| node | parent | mode | status | time | speedup | note |\n|---|---|---|---|---|---|---|\n";
  for (const SearchNode& node : state.tree.nodes()) {
    if (!node.parent) continue;
    const NodeRecord& record = state.record(node.id);
    out += fmt::format("| n{} | {} | {} | {} | {} | {} |{} {} |\n", node.id, ParentText(node),
                       GenerationModeName(node.mode), StatusText(node),
                       Time(node.verified() ? node.time_s : 0), Speedup(state, node),
                       energy ? " " + EscapeMarkdown(NodeEnergyText(state, node.id)) + " |" : "",
                       MarkdownCode(Truncate(record.message.empty() ? record.reason : record.message, 120)));
  }
  for (const std::string& note : state.notes) out += "\n> " + EscapeMarkdown(note) + "\n";
  return out;
}

json Quantity(double value, const char* unit) {
  return json{{"value", value}, {"unit", unit}};
}

json RenderJsonDocument(const OptimizeReportInput& input) {
  const RunState& state = *input.state;
  json path = json::array();
  std::vector<NodeId> best_path = BestPath(state);
  for (size_t step = 1; step < best_path.size(); ++step) {
    const SearchNode& node = state.tree.node(best_path[step]);
    path.push_back(json{{"node", node.id},
                        {"mode", GenerationModeName(node.mode)},
                        {"time", Quantity(node.time_s, "s")},
                        {"speedup", Quantity(state.reference_time_s / node.time_s, "ratio")},
                        {"acted_on", FindingActedOn(state, node)},
                        {"reason", state.record(node.id).reason},
                        {"diff", StepDiff(input, best_path[step - 1], best_path[step])},
                        {"profile_diff", state.record(best_path[step]).change_text}});
  }
  std::optional<NodeId> best = state.tree.BestNode();
  json document = {{"schema", kOptimizeReportSchema},
                   {"schema_version", 1},
                   {"task", state.task},
                   {"run_id", state.run_id},
                   {"status", RunStatusName(state.status)},
                   {"stop_reason", state.stop_reason},
                   {"gpu", state.gpu},
                   {"seed", state.seed},
                   {"settings", state.settings},
                   {"reference_time", Quantity(state.reference_time_s, "s")},
                   {"floor", Quantity(state.floor_s, "s")},
                   {"best_node", best ? json(*best) : json(nullptr)},
                   {"best_speedup", Quantity(state.tree.BestSpeedup(), "ratio")},
                   {"best_speedup_against", SpeedupsAgainstJson(input.pytorch_baselines, BestTime(state))},
                   {"pytorch_baselines", PytorchBaselinesJson(input.pytorch_baselines)},
                   {"best_path", input.best_path},
                   {"path", path},
                   {"usage",
                    {{"evaluations", state.usage.evaluations},
                     {"wall", Quantity(state.usage.wall_seconds, "s")},
                     {"gpu", Quantity(state.usage.gpu_seconds, "s")},
                     {"llm_tokens", state.usage.llm_input_tokens + state.usage.llm_output_tokens},
                     {"llm_cost", Quantity(state.usage.llm_cost_usd, "USD")},
                     {"llm_cost_known", state.usage.llm_cost_known}}},
                   {"energy", EnergyReportJson(state)},
                   {"notes", state.notes},
                   {"run", RunStateToJson(state)}};
  return document;
}

}  // namespace

std::vector<NodeId> BestPath(const RunState& state) {
  if (state.tree.empty()) return {};
  std::optional<NodeId> best = state.tree.BestNode();
  if (!best) return {0};
  return state.tree.PathFromRoot(*best);
}

Result<std::string> RenderOptimizeReport(const OptimizeReportInput& input, ReportFormat format,
                                         const RenderOptions& options) {
  (void)options;
  if (input.state == nullptr) return Internal("RenderOptimizeReport: no state");
  switch (format) {
    case ReportFormat::kTerminal: return RenderTerminal(input);
    case ReportFormat::kMarkdown: return RenderMarkdown(input);
    case ReportFormat::kJson: return RenderJsonDocument(input).dump(2) + "\n";
    case ReportFormat::kHtml: return RenderOptimizeHtml(input);
    case ReportFormat::kFeedback: break;
  }
  return InvalidInput(
      "--format feedback is for kopt explain; kopt optimize and kopt report write term, md, json "
      "or html");
}

std::string FormatOptimizeProgressLine(const RunState& state, NodeId id, int64_t max_evaluations) {
  const SearchNode& node = state.tree.node(id);
  std::string counter = max_evaluations > 0 ? fmt::format("[{}/{}]", state.usage.evaluations, max_evaluations)
                                            : fmt::format("[{}]", state.usage.evaluations);
  if (!node.parent) counter = "[ref]";
  std::optional<NodeId> best = state.tree.BestNode();
  std::string best_text = best && *best != 0
                              ? fmt::format("best {:.2f}× (n{})", state.tree.BestSpeedup(), *best)
                              : "best 1.00× (reference)";
  const NodeRecord& record = state.record(id);
  std::string verdict = StatusText(node);
  if (!record.failure_kind.empty() && !node.verified()) verdict += " (" + record.failure_kind + ")";
  if (node.verified() && (node.energy_j || node.predicted_energy_j)) {
    verdict = fmt::format("{} {} {}", verdict, Time(node.time_s), NodeEnergyText(state, id));
  } else {
    verdict = fmt::format("{} {}", verdict, Time(node.verified() ? node.time_s : 0));
  }
  return SanitizeForTerminal(fmt::format("{} n{} {} from {}: {} {}  {}  gpu {:.1f} s, llm {} tokens", counter,
                                         id, GenerationModeName(node.mode), ParentText(node), verdict,
                                         Speedup(state, node), best_text, state.usage.gpu_seconds,
                                         state.usage.llm_input_tokens + state.usage.llm_output_tokens));
}

}  // namespace kopt
