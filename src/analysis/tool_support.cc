#include "analysis/tool_support.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/text.h"
#include "profile/dependency_stalls.h"

namespace kopt {
namespace {

// At most this many locations from the source page or the listing (memory-access tools).
constexpr size_t kMaxAccessLocations = 3;

}  // namespace

Evidence MakeEvidence(std::string metric, double value, std::string unit, std::string comparison,
                      double threshold) {
  Evidence evidence;
  evidence.metric = std::move(metric);
  evidence.value = value;
  evidence.unit = std::move(unit);
  evidence.comparison = std::move(comparison);
  evidence.threshold = threshold;
  return evidence;
}

double Percent(double fraction) {
  return fraction * 100;
}

RequiredInput NcuMetric(std::string name, bool optional) {
  return {InputSource::kNcuMetric, std::move(name), optional};
}

ThresholdDefinition MakeThreshold(std::string name, double value, std::string unit, std::string description) {
  return ThresholdDefinition{std::move(name), value, std::move(unit), std::move(description)};
}

ThresholdDefinition MinGainThreshold(double default_value, std::string description) {
  return {"min_gain", default_value, "fraction", std::move(description)};
}

ThresholdDefinition MemoryMinGainThreshold() {
  return MinGainThreshold(
      0.02, "smallest estimated gain worth reporting (the orchestrator's lower bound of \"minor\")");
}

std::string FormatCount(double value) {
  return fmt::format("{:.0f}", value);
}

double MetricOr(const ToolContext& context, std::string_view name, double fallback) {
  return context.Metric(name).value_or(fallback);
}

double SmActiveFraction(const ToolContext& context) {
  auto active = context.Metric("sm__cycles_active.avg");
  auto elapsed = context.Metric("sm__cycles_elapsed.avg");
  if (!active || !elapsed || *elapsed <= 0) return 1;
  return Clamp01(*active / *elapsed);
}

double MemoryThroughputPercent(const ToolContext& context) {
  return MetricOr(context, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                  context.roofline.memory_percent_of_peak);
}

bool HasClass(std::initializer_list<InstructionClass> classes, InstructionClass instruction_class) {
  return std::find(classes.begin(), classes.end(), instruction_class) != classes.end();
}

// The "file.cu:42" of the listing's instruction at `offset`, or empty.
std::string SourceLineAt(const SassFunction* sass, unsigned long long offset) {
  if (!sass) return "";
  for (const SassInstruction& instruction : sass->instructions) {
    if (instruction.offset == offset) return instruction.source_line;
  }
  return "";
}

std::vector<Location> SourcePageLocations(const SourcePage& page,
                                          std::initializer_list<InstructionClass> classes,
                                          const RowWeight& weight, const SassFunction* sass) {
  double total_samples = page.TotalStallSamples();
  DependencyStalls dependencies = AttributeDependencyStalls(page);
  std::vector<std::pair<size_t, double>> rows;  // row index, samples after the move
  for (size_t index = 0; index < page.rows.size(); ++index) {
    Result<SassInstruction> parsed = ParseSassInstruction(page.rows[index].source);
    bool any_class = classes.size() == 0;
    if (parsed.ok() && (any_class || HasClass(classes, parsed.value().instruction_class))) {
      rows.emplace_back(index, dependencies.AttributedSamples(page, index));
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    double weight_a = weight ? weight(page.rows[a.first]) : 0,
           weight_b = weight ? weight(page.rows[b.first]) : 0;
    if (weight_a != weight_b) return weight_a > weight_b;
    return a.second > b.second;
  });
  std::vector<Location> locations;
  for (const auto& [index, samples] : rows) {
    if (locations.size() == kMaxAccessLocations) break;
    const SourcePageRow& row = page.rows[index];
    Location location;
    location.source_line = SourceLineAt(sass, row.offset);
    location.sass_offset = row.offset;
    location.sass_text = row.source;
    location.stall_share = SafeRatio(samples, total_samples);
    location.waiting_share = SafeRatio(dependencies.waiting_samples[index], total_samples);
    if (size_t waiter = dependencies.main_waiter[index]; waiter != DependencyStalls::kNone) {
      location.waiting_sass_offset = page.rows[waiter].offset;
      location.waiting_sass_text = std::string(TrimWhitespace(page.rows[waiter].source));
    }
    locations.push_back(std::move(location));
  }
  return locations;
}

std::vector<Location> SassLocations(const SassFunction& function,
                                    std::initializer_list<InstructionClass> classes) {
  std::vector<Location> locations;
  for (const SassInstruction& instruction : function.instructions) {
    if (locations.size() == kMaxAccessLocations) break;
    if (NeverExecutes(instruction) || !HasClass(classes, instruction.instruction_class)) continue;
    Location location;
    location.source_line = instruction.source_line;
    location.sass_offset = instruction.offset;
    location.sass_text = SassText(instruction);
    locations.push_back(std::move(location));
  }
  return locations;
}

std::vector<Location> LocationsFor(const ToolContext& context,
                                   std::initializer_list<InstructionClass> classes, const RowWeight& weight) {
  if (context.source_page) {
    std::vector<Location> locations =
        SourcePageLocations(*context.source_page, classes, weight, context.sass);
    if (!locations.empty()) return locations;
  }
  if (context.sass) return SassLocations(*context.sass, classes);
  return {};
}

int StaticCount(const ToolContext& context, std::initializer_list<InstructionClass> classes) {
  if (!context.sass) return 0;
  int count = 0;
  for (InstructionClass instruction_class : classes) count += context.sass->Count(instruction_class);
  return count;
}

int DominantWidth(const std::map<int, int>& widths) {
  int width = 0, most = 0;
  for (const auto& [bits, count] : widths) {
    if (count > most) width = bits, most = count;
  }
  return width;
}

double LargestTerm(const std::vector<GainTerm>& terms, std::string& method) {
  double best = 0;
  std::string text;
  for (const GainTerm& term : terms) {
    best = std::max(best, term.value);
    text += fmt::format("{}{} = {:.1f}%", text.empty() ? "" : "; ", term.description, term.value * 100);
  }
  method = "largest of: " + text;
  return best;
}

Finding NewFinding(std::string title, double confidence) {
  Finding finding;
  finding.title = std::move(title);
  finding.confidence = confidence;
  return finding;
}

void AddTrafficTerms(const ToolContext& context, double removed_share, const std::string& what,
                     std::vector<GainTerm>& terms, Finding& finding) {
  // L2's percent is its busiest unit's throughput (lts__throughput), which can be far above the share
  // of L2 bandwidth its bytes use (the memory table's L2 row): the term says which it is.
  struct Level {
    const char* label;
    const char* key;  // RooflineAnalysis memory level
    const char* metric;
    const char* kind;
  };
  const Level levels[] = {
      {"L2", "l2", "lts__throughput.avg.pct_of_peak_sustained_elapsed", "unit throughput"},
      {"DRAM", "dram", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "throughput"}};
  for (const Level& level : levels) {
    auto percent = context.Metric(level.metric);
    if (!percent) continue;
    finding.evidence.push_back(MakeEvidence(level.metric, *percent, "%", "", 0));
    std::string description = fmt::format("{} {:.1f}% × {} {} {:.1f}%", what, removed_share * 100,
                                          level.label, level.kind, *percent);
    if (std::string_view(level.key) == "l2") {
      for (const MemoryTraffic& traffic : context.roofline.memory) {
        if (traffic.level == level.key && traffic.peak_bytes_per_second > 0)
          description += fmt::format(" (its bytes: {:.1f}% of L2 bandwidth)", traffic.percent_of_peak);
      }
    }
    terms.push_back({std::move(description), removed_share * *percent / 100});
  }
}

void AddLatencyTerm(const ToolContext& context, const std::vector<std::string>& reasons, double attributed,
                    const std::string& what, std::vector<GainTerm>& terms, Finding& finding) {
  double stall_share = 0;
  std::string names;
  for (const std::string& reason : reasons) {
    stall_share += context.StallShare(reason);
    names += (names.empty() ? "" : "+") + reason;
  }
  if (stall_share <= 0) return;
  double active = SmActiveFraction(context);
  finding.evidence.push_back(MakeEvidence("stall share: " + names, stall_share * 100, "%", "", 0));
  finding.evidence.push_back(MakeEvidence("SM active cycles / elapsed", active * 100, "%", "", 0));
  terms.push_back({fmt::format("{} stalls {:.1f}% × {} {:.1f}% × SM active {:.1f}%", names, stall_share * 100,
                               what, attributed * 100, active * 100),
                   stall_share * attributed * active});
}

unsigned long long MainBodyEnd(const SassFunction& function) {
  unsigned long long end = ~0ULL;
  for (const SassInstruction& instruction : function.instructions) {
    if (auto target = CallTarget(instruction)) end = std::min(end, *target);
  }
  return end;
}

InstructionList MainBody(const SassFunction& function) {
  InstructionList body;
  unsigned long long end = MainBodyEnd(function);
  for (const SassInstruction& instruction : function.instructions) {
    if (instruction.offset < end && !NeverExecutes(instruction)) body.push_back(&instruction);
  }
  return body;
}

InstructionList Subroutine(const SassFunction& function, unsigned long long start) {
  InstructionList routine;
  for (const SassInstruction& instruction : function.instructions) {
    if (instruction.offset < start || NeverExecutes(instruction)) continue;
    routine.push_back(&instruction);
    if (instruction.opcode == "RET") break;
  }
  return routine;
}

double StallShareAt(const ToolContext& context, unsigned long long offset) {
  if (!context.source_page) return 0;
  double total = context.source_page->TotalStallSamples();
  if (total <= 0) return 0;
  for (const SourcePageRow& row : context.source_page->rows) {
    if (row.offset == offset) return row.stall_samples.value_or(0) / total;
  }
  return 0;
}

std::vector<Location> LocationsOf(const ToolContext& context, const InstructionList& instructions) {
  std::vector<Location> locations;
  for (const SassInstruction* instruction : instructions) {
    Location location;
    location.source_line = instruction->source_line;
    location.sass_offset = instruction->offset;
    location.sass_text = SassText(*instruction);
    location.stall_share = StallShareAt(context, instruction->offset);
    locations.push_back(std::move(location));
  }
  std::stable_sort(locations.begin(), locations.end(),
                   [](const Location& a, const Location& b) { return a.stall_share > b.stall_share; });
  if (locations.size() > kMaxInstructionLocations) locations.resize(kMaxInstructionLocations);
  return locations;
}

double TotalStallShare(const std::vector<Location>& locations) {
  double total = 0;
  for (const Location& location : locations) total += location.stall_share;
  return total;
}

void AddStallShareEvidence(const ToolContext& context, Finding& finding) {
  if (!context.source_page || finding.locations.empty()) return;
  finding.evidence.push_back(MakeEvidence("stall samples at the listed SASS offsets (ncu source page)",
                                          TotalStallShare(finding.locations) * 100, "%", "", 0));
}

}  // namespace kopt
