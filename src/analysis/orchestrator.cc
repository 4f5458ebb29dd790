#include "analysis/orchestrator.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "analysis/latency_model.h"
#include "analysis/tool_selection.h"
#include "core/quantity_format.h"

namespace kopt {
namespace {

// The smallest time gain with which a finding folded into another (same root
// cause) stays listed as a secondary cause: the lower bound of "minor".
constexpr double kMinSecondaryGain = 0.02;

std::string HowToCollect(const std::vector<std::string>& missing) {
  std::vector<std::string> ways;
  auto add = [&ways](const std::string& way) {
    if (std::find(ways.begin(), ways.end(), way) == ways.end()) ways.push_back(way);
  };
  for (const std::string& input : missing) {
    if (input == "SASS listing")
      add("the SASS listing (cuobjdump -sass; kopt explain --sass FILE, or sass.txt beside the CSV)");
    else if (input == "ptxas report")
      add("the ptxas report (nvcc -Xptxas -v; --ptxas FILE, or ptxas.txt beside the CSV)");
    else if (input == "ncu source page")
      add("ncu's source page (ncu --import r.ncu-rep --csv --page source --print-source sass > source.csv "
          "beside the CSV)");
    else if (input == "all launches")
      add("a profile of every launch of the program");
    else if (input == "energy coefficients")
      add("the GPU's energy model coefficients (kopt calibrate --energy; kopt explain --energy-model FILE)");
    else
      add("ncu --set full");
  }
  std::string text;
  for (size_t i = 0; i < ways.size(); ++i) text += (i ? "; " : "") + ways[i];
  return text;
}

// The tool's finding. Reading a threshold it does not declare is a bug in the
// tool: ToolContext::Threshold throws, rethrown here with the tool's id.
std::optional<Finding> Analyze(const ToolDefinition& tool, const ToolContext& context) {
  try {
    return tool.analyze(context);
  } catch (const std::logic_error& error) {
    throw std::logic_error("tool " + tool.id + ": " + error.what());
  }
}

// A finding folded into the finding of the tool that subsumes it, kept in the
// list as a secondary cause: the indices of both in the findings.
struct SecondaryFinding {
  size_t subsumed = 0, subsuming = 0;
};

// Folds the findings of subsumed tools into the finding of the tool that
// explains them (its evidence and locations join that finding, whose gain is
// the larger of the two). A folded finding with a time gain of its own
// (>= min_secondary_gain) stays listed as a secondary cause after the one that
// explains it, rather than disappearing (an expert lists the plausible secondary causes
// with their lower gain; a dropped one could never be second or third when
// the first is wrong). One without (an energy-only
// finding on the same work) is removed as before.
std::vector<SecondaryFinding> MergeSharedRootCauses(std::vector<Finding>& findings) {
  std::vector<bool> folded(findings.size(), false);
  std::vector<SecondaryFinding> secondary;
  for (size_t i = 0; i < findings.size(); ++i) {
    Finding& finding = findings[i];
    if (folded[i]) continue;
    const ToolDefinition* tool = FindToolProducing(finding.tool);
    if (!tool || tool->subsumes.empty()) continue;
    for (size_t j = 0; j < findings.size(); ++j) {
      Finding& other = findings[j];
      if (j == i || folded[j] || other.tool.empty()) continue;
      if (std::find(tool->subsumes.begin(), tool->subsumes.end(), other.tool) == tool->subsumes.end())
        continue;
      for (const Evidence& evidence : other.evidence) {  // rows both tools read appear once
        bool seen = std::any_of(finding.evidence.begin(), finding.evidence.end(),
                                [&](const Evidence& existing) { return existing.metric == evidence.metric; });
        if (!seen) finding.evidence.push_back(evidence);
      }
      finding.locations.insert(finding.locations.end(), other.locations.begin(), other.locations.end());
      finding.merged_tools.push_back(other.tool);
      finding.estimated_gain = std::max(finding.estimated_gain, other.estimated_gain);
      folded[j] = true;
      if (other.estimated_gain >= kMinSecondaryGain)
        secondary.push_back({j, i});
      else
        other.tool.clear();  // marked for removal
    }
  }
  // Each kept secondary right after the finding that explains it (the final
  // sort is stable and never ranks it above that finding: see OrderSecondaries).
  std::vector<Finding> ordered;
  std::vector<size_t> position(findings.size(), 0);
  std::vector<SecondaryFinding> kept;
  for (size_t i = 0; i < findings.size(); ++i) {
    if (folded[i]) continue;
    position[i] = ordered.size();
    ordered.push_back(std::move(findings[i]));
    for (const SecondaryFinding& entry : secondary) {
      if (entry.subsuming != i) continue;
      kept.push_back({ordered.size(), position[i]});
      ordered.push_back(std::move(findings[entry.subsumed]));
    }
  }
  findings = std::move(ordered);
  return kept;
}

// A secondary finding ranks below the finding that explains it: its gain is
// at most that finding's (after both were capped), and its method says why it
// is listed. One whose capped gain fell below kMinSecondaryGain is removed
// (the roofline leaves it nothing to gain on its own).
void OrderSecondaries(const std::vector<SecondaryFinding>& secondary, std::vector<Finding>& findings) {
  for (const SecondaryFinding& entry : secondary) {
    Finding& finding = findings[entry.subsumed];
    const Finding& primary = findings[entry.subsuming];
    if (finding.estimated_gain > primary.estimated_gain) {
      finding.estimated_gain = primary.estimated_gain;
      finding.severity = std::min(finding.severity, primary.severity);
    }
    finding.gain_method += fmt::format(
        "; a secondary cause: {} explains it too (its finding carries this evidence), so it is listed after "
        "that finding with at most its gain",
        primary.tool);
  }
  for (const SecondaryFinding& entry : secondary) {
    if (findings[entry.subsumed].estimated_gain < kMinSecondaryGain) findings[entry.subsumed].tool.clear();
  }
  findings.erase(
      std::remove_if(findings.begin(), findings.end(), [](const Finding& f) { return f.tool.empty(); }),
      findings.end());
}

// Caps the gain at what the roofline allows once the fix is made: a fix that
// removes traffic can reach the compute floor at best, one that removes
// instructions the memory floor, anything else the full floor.
void CapAndGrade(const RooflineAnalysis& roofline, Finding& finding) {
  const ToolDefinition* tool = FindToolProducing(finding.tool);
  GainBound bound = tool ? tool->gain_bound : GainBound::kHidesLatency;
  if (bound ==
      GainBound::kRemovesLaunches) {  // the launch's fixed cost is what goes: no kernel floor applies
    finding.severity = SeverityForGain(finding.estimated_gain);
    return;
  }
  double floor_ns = bound == GainBound::kReducesTraffic   ? roofline.compute_floor_ns
                    : bound == GainBound::kReducesCompute ? roofline.memory_floor_ns
                                                          : roofline.floor_ns;
  const char* floor_name = bound == GainBound::kReducesTraffic   ? "compute floor"
                           : bound == GainBound::kReducesCompute ? "memory floor"
                                                                 : "roofline floor";
  if (roofline.duration_ns > 0) {
    double allowed = std::clamp(1.0 - floor_ns / roofline.duration_ns, 0.0, 1.0);
    if (finding.estimated_gain > allowed) {
      finding.estimated_gain = allowed;
      finding.gain_method +=
          fmt::format("; capped at {:.1f}%, what the roofline allows (1 − {} {} / duration {})",
                      allowed * 100, floor_name, FormatDuration(floor_ns, QuantityStyle::kFixed),
                      FormatDuration(roofline.duration_ns, QuantityStyle::kFixed));
    }
  }
  finding.severity = finding.tool == "healthy" ? Severity::kInfo : SeverityForGain(finding.estimated_gain);
}

// The measured rate at a kernel's size under this share of the DRAM peak: the
// floor is the fixed cost of a launch (launch, ramp-up and drain), not its
// bytes (the H200 table's smallest cold read, 1 MB in 4.5 µs, is 0.05% of the
// peak; a 19 MB copy reaches about 25%).
constexpr double kFixedCostRateShare = 0.1;

// True when the kernel takes no longer than the measured floor for its
// traffic and that floor is the fixed cost of a launch (a tiny one-off
// kernel of a few microseconds). Nothing the other tools see in
// its counters (wasted sectors of a few KB, idle warps of a few hundred
// blocks) can make it faster than a launch that moves nothing.
bool AtTheFixedCostOfALaunch(const RooflineAnalysis& roofline) {
  if (roofline.achievable_percent < 100 || !roofline.achievable_dram) return false;
  for (const MemoryTraffic& level : roofline.memory) {
    if (level.level == "dram" && level.peak_bytes_per_second > 0)
      return roofline.achievable_dram->per_second < kFixedCostRateShare * level.peak_bytes_per_second;
  }
  return false;
}

// A kernel at high throughput that another tool shows doing wasted work (for
// example 8x the DRAM bytes it needs) is not healthy. One that already runs at
// the fixed cost of a launch is contradicted only by a finding that removes
// launches (that fixed cost is then what goes: many tiny launches in a loop).
void WithdrawHealthyVerdictIfContradicted(const RooflineAnalysis& roofline,
                                          const OrchestrationOptions& options,
                                          std::vector<Finding>& findings) {
  const ToolDefinition* healthy = FindTool("healthy");
  if (!healthy) return;
  double max_other_gain = ResolveThresholds(*healthy, options)["max_other_gain"];
  bool fixed_cost = AtTheFixedCostOfALaunch(roofline);
  bool contradicted = std::any_of(findings.begin(), findings.end(), [&](const Finding& finding) {
    if (finding.tool == "healthy" || finding.estimated_gain < max_other_gain) return false;
    const ToolDefinition* tool = FindToolProducing(finding.tool);
    return !fixed_cost || (tool && tool->gain_bound == GainBound::kRemovesLaunches);
  });
  if (!contradicted) return;
  findings.erase(std::remove_if(findings.begin(), findings.end(),
                                [](const Finding& finding) { return finding.tool == "healthy"; }),
                 findings.end());
}

// On a kernel judged healthy and within `healthy_percent` of its ceiling, no
// finding is above minor: what is left there is next-order polish. (A kernel
// whose high throughput is waste, e.g. 32-way bank conflicts saturating L1,
// has lost its healthy verdict above and keeps its severities.)
void CapSeverityOnHealthyKernel(const RooflineAnalysis& roofline, const OrchestrationOptions& options,
                                std::vector<Finding>& findings) {
  bool healthy =
      std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.tool == "healthy"; });
  bool near_ceiling = roofline.speed_of_light_percent >= options.healthy_percent ||
                      roofline.achievable_percent >= options.healthy_percent;  // measured, size-limited
  if (!healthy || !near_ceiling) return;
  for (Finding& finding : findings) finding.severity = std::min(finding.severity, Severity::kMinor);
}

// The fallback of a kernel on which no tool fired and that got no healthy
// verdict (an expert never returns nothing for a kernel that is not at a
// ceiling): the stall reason that dominates the warps' stall cycles names
// the limiter, when one tool's cause is that reason's usual source. The
// reasons "selected" and "not_selected" are issuing, not waiting, and are left
// out; the others (MIO, math-pipe, short-scoreboard stalls) have several
// possible causes and are not guessed at.
struct DominantStallCause {
  std::string_view reason;
  std::string_view tool;
};
constexpr DominantStallCause kDominantStallCauses[] = {{"barrier", "barrier_stalls"},
                                                       {"membar", "barrier_stalls"},
                                                       {"long_scoreboard", "memory_latency_low_mlp"}};
// ncu's CPIStall rule names a stall reason from 30% of the stall cycles: the
// same bar for the reason that names the limiter.
constexpr double kDominantStallShare = 0.3;

}  // namespace

std::vector<std::string_view> FindingIdsNamedByTheOrchestrator() {
  std::vector<std::string_view> ids = {"healthy"};
  for (const DominantStallCause& cause : kDominantStallCauses) ids.push_back(cause.tool);
  return ids;
}

namespace {

std::optional<Finding> DominantStallFallback(const KernelDiagnosis& kernel, const KernelLaunch& launch) {
  const StallReason* dominant = nullptr;
  for (const StallReason& stall : kernel.stalls) {
    if (stall.name == "selected" || stall.name == "not_selected") continue;
    if (!dominant || stall.share > dominant->share) dominant = &stall;
  }
  if (!dominant || dominant->share < kDominantStallShare) return std::nullopt;
  const DominantStallCause* cause = nullptr;
  for (const DominantStallCause& candidate : kDominantStallCauses)
    if (candidate.reason == dominant->name) cause = &candidate;
  if (!cause || !FindToolProducing(std::string(cause->tool))) return std::nullopt;
  // The time identity needs the issue rate: a stall costs time only in the issue slots no warp used.
  std::optional<double> issue = launch.Metric("smsp__issue_active.avg.pct_of_peak_sustained_active");
  if (!issue) return std::nullopt;
  double idle = std::clamp(1 - *issue / 100, 0.0, 1.0);
  // The share of a unit's peak reachable in practice: the latency tools' default.
  const double reachable_peak_percent = ReachablePeakThreshold().default_value;
  double headroom = std::clamp(1 - kernel.roofline.speed_of_light_percent / reachable_peak_percent, 0.0, 1.0);
  Finding finding;
  finding.tool = std::string(cause->tool);
  finding.title =
      fmt::format("Dominant stall: {:.0f}% of warp stall cycles are {} stalls (no tool's bar was met)",
                  dominant->share * 100, dominant->name);
  finding.estimated_gain = std::min({dominant->share, idle, headroom});
  finding.gain_method = fmt::format(
      "fallback when no tool fires and the kernel has no healthy verdict: the dominant stall reason's share "
      "{:.1f}%, capped by the idle issue slots 1 − u = {:.1f}% (GPA's bound) and by the throughput headroom "
      "1 − speed of light / {:.0f}% = {:.1f}% (hiding a stall cannot push the busiest unit past what it "
      "reaches); graded at most minor, as the tools' own bars were not met",
      dominant->share * 100, idle * 100, reachable_peak_percent, headroom * 100);
  finding.evidence.push_back(
      {"stall share: " + dominant->name, dominant->share * 100, "%", ">=", kDominantStallShare * 100});
  finding.evidence.push_back({"smsp__issue_active.avg.pct_of_peak_sustained_active", *issue, "%", "", 0});
  finding.root_cause = fmt::format(
      "No tool's bar was met and the kernel is not at a ceiling; what its warps wait on most is {} ({:.0f}% "
      "of the stall cycles, {:.2f} cycles per issued instruction), the usual sign of what {} describes.",
      dominant->name, dominant->share * 100, dominant->cycles_per_issue, cause->tool);
  finding.recommendations.push_back(
      {fmt::format("Start with the {} stalls: find the instructions that carry them (ncu's source page, "
                   "kopt explain with source.csv beside the profile) and see kopt rules {} for the fixes",
                   dominant->name, cause->tool),
       "the dominant stall reason is where the warps' time goes",
       "the share of the stall cycles it removes"});
  finding.confidence = 0.4;
  return finding;
}

}  // namespace

Severity SeverityForGain(double gain) {
  if (gain >= 0.5) return Severity::kCritical;
  if (gain >= 0.25) return Severity::kMajor;
  if (gain >= 0.10) return Severity::kModerate;
  if (gain >= 0.02) return Severity::kMinor;
  return Severity::kInfo;
}

std::map<std::string, double> ResolveThresholds(const ToolDefinition& tool,
                                                const OrchestrationOptions& options) {
  std::map<std::string, double> values;
  for (const ThresholdDefinition& threshold : tool.thresholds)
    values[threshold.name] = threshold.default_value;
  if (auto overrides = options.threshold_overrides.find(tool.id);
      overrides != options.threshold_overrides.end()) {
    for (const auto& [name, value] : overrides->second) {
      if (values.count(name)) values[name] = value;
    }
  }
  return values;
}

std::vector<std::string> MissingInputs(const ToolDefinition& tool, const LaunchInputs& inputs) {
  std::vector<std::string> missing;
  for (const RequiredInput& input : tool.required) {
    if (input.optional) continue;
    switch (input.source) {
      case InputSource::kNcuMetric:
        if (!inputs.launch->Metric(input.name)) missing.push_back(input.name);
        break;
      case InputSource::kSass:
        if (!inputs.sass) missing.push_back("SASS listing");
        break;
      case InputSource::kPtxas:
        if (!inputs.ptxas) missing.push_back("ptxas report");
        break;
      case InputSource::kSourcePage:
        if (!inputs.source_page) missing.push_back("ncu source page");
        break;
      case InputSource::kLaunches:
        if (!inputs.timeline) missing.push_back("all launches");
        break;
      case InputSource::kEnergyModel:
        if (!inputs.energy_coefficients) missing.push_back("energy coefficients");
        break;
    }
  }
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  return missing;
}

bool NeedsEnergyModel(const ToolDefinition& tool) {
  return std::any_of(tool.required.begin(), tool.required.end(), [](const RequiredInput& input) {
    return input.source == InputSource::kEnergyModel && !input.optional;
  });
}

void RunTools(const LaunchInputs& inputs, const OrchestrationOptions& options, KernelDiagnosis& kernel) {
  std::vector<Finding> findings;
  // Stage 1 selects the tools: those that apply to the kernel's class (analysis/tool_selection.h).
  for (const ToolDefinition* selected : SelectTools(ToolRegistry(), kernel.roofline.bottleneck)) {
    const ToolDefinition& tool = *selected;
    if (options.disabled_tools.count(tool.id)) continue;
    if (!inputs.energy_coefficients && NeedsEnergyModel(tool)) continue;  // energy is off: not relevant
    std::vector<std::string> missing = MissingInputs(tool, inputs);
    if (!missing.empty()) {
      kernel.skipped_tools.push_back(SkippedTool{tool.id, missing, HowToCollect(missing)});
      continue;
    }
    kernel.tools_run.push_back(tool.id);
    std::map<std::string, double> thresholds = ResolveThresholds(tool, options);
    ToolContext context{
        *inputs.launch, kernel.roofline,    kernel.stalls,   inputs.gpu,  inputs.sass,
        inputs.ptxas,   inputs.source_page, inputs.timeline, &thresholds, inputs.energy_coefficients};
    if (auto finding = Analyze(tool, context)) {
      if (finding->tool.empty()) finding->tool = tool.id;
      findings.push_back(std::move(*finding));
    }
  }
  std::vector<SecondaryFinding> secondary = MergeSharedRootCauses(findings);
  for (Finding& finding : findings) CapAndGrade(kernel.roofline, finding);
  OrderSecondaries(secondary, findings);
  WithdrawHealthyVerdictIfContradicted(kernel.roofline, options, findings);
  CapSeverityOnHealthyKernel(kernel.roofline, options, findings);
  if (findings.empty()) {
    auto fallback = DominantStallFallback(kernel, *inputs.launch);
    const ToolDefinition* producer = fallback ? FindToolProducing(fallback->tool) : nullptr;
    if (fallback && !(producer && options.disabled_tools.count(producer->id))) {
      CapAndGrade(kernel.roofline, *fallback);
      fallback->severity = std::min(fallback->severity, Severity::kMinor);
      findings.push_back(std::move(*fallback));
    }
  }
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    if ((a.tool == "healthy") != (b.tool == "healthy")) return a.tool == "healthy";
    return a.estimated_gain > b.estimated_gain;
  });
  kernel.findings = std::move(findings);
  if (!options.disabled_tools.empty()) {
    kernel.notes.push_back(fmt::format("Tools turned off by the tool configuration (enabled = false): {}.",
                                       fmt::join(options.disabled_tools, ", ")));
  }
}

}  // namespace kopt
