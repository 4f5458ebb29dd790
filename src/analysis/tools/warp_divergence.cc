// warp_divergence: warps whose lanes are idle (divergent branches,
// predication): threads per warp instruction against 32, the divergent
// branches, and the issue time the idle lanes waste.
//
// Divergence inside the IEEE division/sqrt slow paths (lanes sent by FCHK to
// a subroutine while the rest of the warp waits) is the division's cost:
// with SASS and the source page's per-PC counts, when the instructions
// outside those subroutines run with >= max_active_threads_per_instruction
// lanes, the kernel's own code does not diverge and the finding is left to
// mufu_division_pressure (whose fix, a division without a slow path, removes it).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/pipe_model.h"
#include "analysis/tool_selection.h"
#include "analysis/tool_support.h"

namespace kopt {
namespace {

struct DivergentRow {
  const SourcePageRow* row;
  double active_threads;
  double weight;
};

// The instructions where warps split: the active-thread count drops from the
// previous instruction's (ncu's "derivative" of the per-PC thread count),
// weighted by the lanes lost times the executions. Rows without a drop but
// under the threshold rank after them, by idle lanes times executions.
std::vector<DivergentRow> DivergentRows(const SourcePage& page, double threshold) {
  std::vector<DivergentRow> splits, idle;
  double previous_active = kWarpSize;
  for (const SourcePageRow& row : page.rows) {
    double executed = row.instructions_executed.value_or(0);
    if (executed <= 0 || !row.thread_instructions_executed) continue;
    double active = *row.thread_instructions_executed / executed;
    if (active < threshold && active < previous_active - 0.5)
      splits.push_back({&row, active, (previous_active - active) * executed});
    else if (active < threshold)
      idle.push_back({&row, active, (kWarpSize - active) * executed});
    previous_active = active;
  }
  auto heavier = [](const DivergentRow& a, const DivergentRow& b) { return a.weight > b.weight; };
  std::stable_sort(splits.begin(), splits.end(), heavier);
  std::stable_sort(idle.begin(), idle.end(), heavier);
  splits.insert(splits.end(), idle.begin(), idle.end());
  return splits;
}

std::vector<Location> DivergenceLocationsFromSourcePage(const ToolContext& context, double threshold) {
  std::vector<DivergentRow> rows = DivergentRows(*context.source_page, threshold);
  std::vector<Location> locations;
  double total = context.source_page->TotalStallSamples();
  for (size_t i = 0; i < rows.size() && i < kMaxInstructionLocations; ++i) {
    Location location;
    location.sass_offset = rows[i].row->offset;
    location.sass_text =
        fmt::format("{} ({:.1f} of 32 threads active)", rows[i].row->source, rows[i].active_threads);
    location.stall_share = total > 0 ? rows[i].row->stall_samples.value_or(0) / total : 0;
    locations.push_back(std::move(location));
  }
  return locations;
}

// Without per-PC thread counts: the conditional branches on per-thread
// predicates, where a warp can split (uniform predicates @UP cannot).
InstructionList DivergentBranchCandidates(const SassFunction& function) {
  return Select(MainBody(function), [](const SassInstruction& instruction) {
    return instruction.opcode == "BRA" && IsPerThreadPredicate(instruction.predicate);
  });
}

std::vector<Recommendation> DivergenceRecommendations(double gain) {
  std::string effect =
      fmt::format("up to {:.0f}% less kernel time when every lane of a warp takes the same path", gain * 100);
  return {
      {"Make the branch condition uniform per warp: assign work so that the 32 threads of a warp take the "
       "same path (choose the case from the warp index, threadIdx.x / 32, or sort/bin the items by path "
       "before the kernel)",
       "A warp executes every path any of its lanes takes, one after the other, with the other lanes masked "
       "off",
       effect},
      {"Where the paths are short, compute them branch-free (select with a ternary or fminf/fmaxf instead of "
       "if/switch) and hoist the work common to all paths out of the branches",
       "Predicated straight-line code keeps all lanes busy and avoids the reconvergence (BSSY/BSYNC) "
       "overhead",
       "fewer issued instructions per result"},
      {"Make loop trip counts uniform within a warp (pad or partition the work so that neighbouring threads "
       "loop the same number of times)",
       "A warp stays in a loop until its slowest lane leaves it", "idle lanes no longer hold the warp"},
  };
}

std::optional<Finding> AnalyzeWarpDivergence(const ToolContext& context) {
  double threshold = context.Threshold("max_active_threads_per_instruction");
  double active = *context.Metric(kThreadsPerInstructionMetric);
  auto predicated = context.Metric(kPredicatedThreadsPerInstructionMetric);
  double useful = std::min(active, predicated.value_or(active));
  if (useful >= threshold) return std::nullopt;
  if (auto slow_paths = FloatSlowPathExecution(context);
      slow_paths && slow_paths->warp_instructions > 0 &&
      slow_paths->ThreadsPerInstructionOutside() >= threshold)
    return std::nullopt;  // the division slow paths diverge, not the kernel's code (see the top)
  double compute_fraction = ComputeLimitedFraction(context);
  Finding finding;
  finding.title = fmt::format("Warp divergence: {:.1f} of 32 threads active per instruction", useful);
  finding.estimated_gain = (1 - useful / kWarpSize) * compute_fraction;
  finding.gain_method = fmt::format(
      "ncu ThreadDivergence model: idle-lane share (1 − {:.2f}/32) × SM throughput {:.0f}% (how "
      "compute-limited the kernel is)",
      useful, compute_fraction * 100);
  finding.evidence.push_back(
      MakeEvidence(std::string(kThreadsPerInstructionMetric), active, "thread/inst", "<", threshold));
  if (predicated) {
    finding.evidence.push_back(MakeEvidence(std::string(kPredicatedThreadsPerInstructionMetric), *predicated,
                                            "thread/inst", "<", threshold));
  }
  finding.evidence.push_back(
      MakeEvidence(std::string(kSmThroughputMetric), compute_fraction * 100, "%", "", 0));
  finding.root_cause = fmt::format(
      "Threads of the same warp take different paths, so the warp runs each path in turn with the other "
      "lanes masked off: on average only {:.1f} of 32 lanes do useful work per issued instruction. The "
      "kernel is {:.0f}% compute-limited, so the idle lanes cost time in proportion.",
      useful, compute_fraction * 100);
  finding.recommendations = DivergenceRecommendations(finding.estimated_gain);
  if (context.source_page) finding.locations = DivergenceLocationsFromSourcePage(context, threshold);
  if (finding.locations.empty() && context.sass)
    finding.locations = LocationsOf(context, DivergentBranchCandidates(*context.sass));
  AddStallShareEvidence(context, finding);
  finding.confidence = 0.6 + 0.3 * compute_fraction;
  return finding;
}

}  // namespace

ToolDefinition WarpDivergenceTool() {
  ToolDefinition tool;
  tool.id = "warp_divergence";
  tool.title = "Warp divergence (few active threads per instruction)";
  tool.family = ToolFamily::kCompute;
  tool.side = ToolSide::kCompute;
  tool.relevant_classes = UnlessMemoryBound();
  tool.ncu_rules = {NcuRule::kThreadDivergence};
  tool.required = {{InputSource::kNcuMetric, std::string(kThreadsPerInstructionMetric), false},
                   {InputSource::kNcuMetric, std::string(kPredicatedThreadsPerInstructionMetric), true},
                   {InputSource::kNcuMetric, std::string(kSmThroughputMetric), true},
                   {InputSource::kSass, "conditional branches (locations)", true},
                   {InputSource::kSourcePage, "per-PC thread instructions (locations)", true}};
  tool.thresholds = {
      MakeThreshold("max_active_threads_per_instruction", 24, "thread/inst",
                    "fires below this many active (predicated-on) threads per warp instruction; ncu's "
                    "ThreadDivergence rule uses 24 of 32 (75% of the warp)")};
  tool.trigger =
      "min(threads per instruction, predicated-on threads per instruction) < "
      "max_active_threads_per_instruction, unless (SASS + source page) the instructions outside the float "
      "division/sqrt slow-path subroutines run with >= max_active_threads_per_instruction lanes (the "
      "divisions' divergence: mufu_division_pressure)";
  tool.gain_bound = GainBound::kReducesCompute;
  tool.tuning_moves = {
      {"warp_divergence",
       {{ParameterRole::kRowsPerBlock, MoveDirection::kIncrease},
        {ParameterRole::kVectorWidth, MoveDirection::kDecrease}},
       "lanes idle in divergent tails: whole rows per warp leave fewer partial warps"},
  };
  tool.analyze = AnalyzeWarpDivergence;
  return tool;
}

}  // namespace kopt
