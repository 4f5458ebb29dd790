// mufu_division_pressure: special functions and float division (MUFU on the XU
// pipe) dominating: the share of XU work and the gain of fast intrinsics.
//
// Two ways to be limited by that work:
//  - the XU pipe itself saturated (>= min_xu_pipe_percent): MUFU instructions
//    queue for the 1/8-rate pipe;
//  - the issue slots saturated by the *sequences* around the MUFU (issue
//    active >= min_issue_active_percent with the XU pipe only moderately busy,
//    at >= min_xu_share_of_issue_issue_bound of the issue rate). Accurate expf/logf and IEEE
//    division/sqrt wrap each MUFU in 8-25 instructions (Cody-Waite range
//    reduction FFMA.SAT/FFMA.RM, Newton FFMAs, an FCHK range check and a
//    branch to a slow-path subroutine, or a whole polynomial for log1pf) that
//    run on the FMA and ALU pipes, so no single pipe looks saturated while
//    the scheduler issues every cycle. The XU pipe takes one warp instruction
//    per 8 cycles per scheduler, so at x% busy MUFU take x/8 % of the cycles,
//    and sequences of L instructions around each take x·L/8 %: at the middle
//    length L = 16 of the 8-25 range, they are at least half of the issued
//    instructions when x >= issue active / 4. The bound is relative to the
//    issue rate (not a fixed XU percentage): a kernel issuing on 95% of its
//    cycles needs a busier XU pipe than one issuing on 70% for its sequences to
//    be the bulk of the work. That is work __expf/__logf/__fdividef (or
//    -use_fast_math) shorten to 1-3 instructions each. With SASS the path also needs the markers of
//    such sequences (FCHK, slow-path CALLs, FFMA.RM range reduction): a
//    kernel already on intrinsics has none and is left alone.
//  - the IEEE division/sqrt slow paths themselves (with SASS and the source
//    page's per-PC counts): FCHK sends a lane to a subroutine of ~40
//    instructions whenever an operand is out of the fast path's range (a
//    denormal or zero numerator after an underflowing exp, a huge
//    denominator). When such lanes are common, the subroutine runs with a
//    few lanes each time and takes a large share of the issued instructions
//    (>= min_slow_path_instruction_share), whatever the XU load: the lanes
//    idle meanwhile are divergence whose cause is the division, so
//    warp_divergence leaves it to this tool. Reciprocals hoisted out of the
//    loop (or __fdividef) have no slow path.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/energy_analysis.h"
#include "analysis/pipe_model.h"
#include "analysis/tool_selection.h"
#include "analysis/tool_support.h"

namespace kopt {
namespace {

std::vector<Recommendation> SpecialFunctionRecommendations(double gain, size_t divisions, size_t slow_calls,
                                                           const std::pair<std::string, double>& next_pipe) {
  std::vector<Recommendation> recommendations;
  recommendations.push_back(
      {"Issue fewer MUFU per result: hoist reciprocals out of loops and multiply (r = 1.0f / d once), fold "
       "divisions (a / b / c → a / (b * c)), use rsqrtf(x) instead of 1.0f / sqrtf(x), exp(a) * exp(b) → "
       "exp(a + b)",
       "The XU pipe that runs MUFU has 1/8 of the FMA pipe's throughput and is the busiest pipe",
       fmt::format("up to {:.0f}% less kernel time, until the next pipe ({} at {:.0f}%) limits", gain * 100,
                   next_pipe.first, next_pipe.second)});
  recommendations.push_back(
      {"Where accuracy allows, use __fdividef / __expf / __sinf, or compile with -use_fast_math (-ftz=true "
       "-prec-div=false -prec-sqrt=false)",
       fmt::format(
           "IEEE division and sqrt add Newton fix-up FFMAs and a range check (FCHK) around each MUFU and "
           "branch to a slow-path subroutine: {} IEEE divisions and {} slow-path call sites here",
           divisions, slow_calls),
       "fewer FMA-pipe instructions and no slow-path branches per division"});
  recommendations.push_back(
      {"Move part of the transcendental work to the FMA pipe: a short polynomial (e.g. exp2 by Cody-Waite "
       "range reduction and a degree-3..5 polynomial, as FlashAttention-3/4 do) for a share of the elements",
       "The FMA pipe has headroom while the XU pipe is saturated", "balances the two pipes"});
  return recommendations;
}

// Issue-bound: the sequences around the MUFU are the cost, so the intrinsics come first.
std::vector<Recommendation> IssueBoundRecommendations(double gain, size_t divisions, size_t slow_calls) {
  std::vector<Recommendation> recommendations;
  recommendations.push_back(
      {"Where accuracy allows, use the intrinsics __expf / __logf / __fdividef (or compile with "
       "-use_fast_math: -ftz=true -prec-div=false -prec-sqrt=false), checked against the "
       "tolerance",
       fmt::format(
           "Accurate expf/logf and IEEE division spend 8-25 issue slots per call on range reduction, "
           "Newton steps, range checks and slow-path branches ({} IEEE divisions and {} slow-path call "
           "sites here); an intrinsic is the MUFU plus 1-2 instructions",
           divisions, slow_calls),
       fmt::format("up to {:.0f}% less kernel time, until the XU pipe limits", gain * 100)});
  recommendations.push_back(
      {"Issue fewer special functions per result: hoist reciprocals out of loops and multiply, fold "
       "divisions "
       "(a / b / c → a / (b * c)), rewrite log(1 + exp(-z)) and 1 / (1 + exp(z)) to share one exp",
       "Every accurate call removed takes its whole sequence with it",
       "fewer issued instructions per result"});
  return recommendations;
}

// The float-math share of the main body's XU instructions: MUFU, and the
// float-to-float roundings (FRND: floorf/truncf/rintf) that the accurate
// sequences issue beside them (powf's integer-exponent test, the range
// reductions of expf/sinf). Integer-division reciprocals (int64_index_arithmetic),
// FP64 conversions (accidental_fp64) and the other conversions (F2I/I2F of
// indices, F2F casts) are not float special-function work.
double FloatMathShareOfXu(const XuComposition& xu) {
  size_t roundings = std::count_if(xu.other.begin(), xu.other.end(), [](const SassInstruction* i) {
    return i->opcode == "FRND" && !HasModifier(*i, "64");
  });
  return Share(xu.special_functions.size() + roundings, xu.Total());
}

void AddSpecialFunctionEvidence(const ToolContext& context, const XuComposition& xu, size_t divisions,
                                size_t slow_calls, Finding& finding) {
  finding.evidence.push_back(MakeEvidence(
      "MUFU + FRND share of the main body's XU instructions (SASS, static)", FloatMathShareOfXu(xu),
      "fraction", ">=", context.Threshold("min_special_function_share")));
  finding.evidence.push_back(MakeEvidence("MUFU instructions in the main body (SASS, static)",
                                          double(xu.special_functions.size()), "inst", "", 0));
  finding.evidence.push_back(
      MakeEvidence("IEEE float divisions (FCHK, SASS, static)", double(divisions), "inst", "", 0));
  finding.evidence.push_back(MakeEvidence("calls to division/sqrt slow-path subroutines (SASS, static)",
                                          double(slow_calls), "inst", "", 0));
  if (auto fma = context.Metric(PipeMetric("fma")))
    finding.evidence.push_back(MakeEvidence(PipeMetric("fma"), *fma, "%", "", 0));
  if (double share = context.StallShare("mio_throttle"); share > 0) {
    finding.evidence.push_back(MakeEvidence("mio_throttle share of stalls (MUFU results return through MIO)",
                                            share * 100, "%", "", 0));
  }
}

// Without a SASS listing: the XU pipe is busy, not with FP64 conversions (the
// FP64 pipe is quiet) and not with integer-division reciprocals (the kernel
// does floating-point work): float special functions and divisions.
// Which of the two limits (see the top of the file) the kernel is at.
struct MufuLimit {
  bool issue_bound = false;  // the issue slots, not the XU pipe
  double issue_percent = 0;  // smsp__issue_active (0 when absent)
};

// min_xu_pipe_percent, scaled to the issue rate in a latency-bound kernel
// (PipeBarScaleForIssueRate: with two warps per scheduler issuing on 44% of the
// cycles, an XU pipe at 43% is as saturated, for the work issued, as at 97%).
double XuPipeBar(const ToolContext& context) {
  return context.Threshold("min_xu_pipe_percent") * PipeBarScaleForIssueRate(context);
}

// The same scaling for the FP64 pipe's "quiet" bound of the path without SASS.
double QuietFp64Bar(const ToolContext& context) {
  return context.Threshold("max_fp64_pipe_percent_without_sass") * PipeBarScaleForIssueRate(context);
}

std::optional<MufuLimit> FindMufuLimit(const ToolContext& context, double xu_percent) {
  MufuLimit limit;
  limit.issue_percent = context.Metric(kIssueActiveMetric).value_or(0);
  if (xu_percent >= XuPipeBar(context)) return limit;
  if (limit.issue_percent >= context.Threshold("min_issue_active_percent") &&
      xu_percent >= context.Threshold("min_xu_share_of_issue_issue_bound") * limit.issue_percent) {
    limit.issue_bound = true;
    return limit;
  }
  return std::nullopt;
}

// The gain: with the XU pipe saturated, cutting MUFU work until the next
// busiest pipe limits; issue-bound, shortening the sequences until the XU
// pipe (whose MUFU stay) limits: the issue load falls to the XU load at most.
PipeModel MufuGain(const ToolContext& context, const MufuLimit& limit, const PipeLoads& before,
                   const std::pair<std::string, double>& next_pipe, std::string& method) {
  if (!limit.issue_bound) {
    PipeLoads after = before;
    after["xu"] = next_pipe.second;
    PipeModel model = PipeGain(context, before, after);
    method = PipeGainMethod(context, model, "cutting MUFU work until the next busiest pipe limits");
    return model;
  }
  PipeModel model;
  model.busiest_before = limit.issue_percent;
  model.busiest_after = before.count("xu") ? before.at("xu") : 0;
  if (model.busiest_before > 0)
    model.gain = std::clamp(1 - model.busiest_after / model.busiest_before, 0.0, 1.0) *
                 ComputeLimitedFraction(context);
  method = fmt::format(
      "issue model: issue slots {:.1f}% busy → at most the XU pipe's {:.1f}% once the sequences around each "
      "MUFU are cut to intrinsics (the MUFU stay); gain (1 − after/before) × SM throughput {:.0f}% (an upper "
      "bound)",
      model.busiest_before, model.busiest_after, ComputeLimitedFraction(context) * 100);
  return model;
}

void AddLimitEvidence(const ToolContext& context, const MufuLimit& limit, double xu_percent,
                      Finding& finding) {
  if (!limit.issue_bound) {
    finding.evidence.push_back(MakeEvidence(PipeMetric("xu"), xu_percent, "%", ">=", XuPipeBar(context)));
    return;
  }
  finding.evidence.push_back(MakeEvidence(std::string(kIssueActiveMetric), limit.issue_percent, "%",
                                          ">=", context.Threshold("min_issue_active_percent")));
  finding.evidence.push_back(
      MakeEvidence(PipeMetric("xu"), xu_percent, "%",
                   ">=", context.Threshold("min_xu_share_of_issue_issue_bound") * limit.issue_percent));
}

std::string MufuTitle(const MufuLimit& limit, double xu_percent) {
  if (!limit.issue_bound)
    return fmt::format("Special-function (MUFU) pressure: XU pipe {:.0f}% busy", xu_percent);
  return fmt::format(
      "Accurate special functions and IEEE divisions fill the issue slots: {:.0f}% issue-active, XU pipe "
      "{:.0f}% busy",
      limit.issue_percent, xu_percent);
}

std::string IssueBoundCause(const MufuLimit& limit, double xu_percent) {
  return fmt::format(
      "The schedulers issue on {:.0f}% of the active cycles: the kernel is bound by how many instructions it "
      "issues, not by one pipe. The XU pipe (MUFU: exp2, log2, reciprocal at 1/8 the issue rate) is {:.0f}% "
      "busy, so MUFU are about {:.0f}% of the issued instructions, and each accurate expf/logf or IEEE "
      "division wraps its MUFU in a sequence of range reduction, Newton steps, range checks and slow-path "
      "branches on the FMA and ALU pipes: those sequences take most of the issue slots.",
      limit.issue_percent, xu_percent, xu_percent / 8);
}

std::optional<Finding> AnalyzeMufuFromMetrics(const ToolContext& context, double xu_percent,
                                              const MufuLimit& limit) {
  double fp64 = context.Metric(PipeMetric("fp64")).value_or(0);
  if (fp64 >= QuietFp64Bar(context)) return std::nullopt;
  InstructionMix mix = ReadInstructionMix(context);
  if (!mix.valid || mix.fp / mix.total < context.Threshold("min_fp_share_without_sass")) return std::nullopt;
  PipeLoads before = ReadPipeLoads(context);
  std::pair<std::string, double> next_pipe = BusiestPipeExcept(before, "xu");
  Finding finding;
  finding.title = MufuTitle(limit, xu_percent);
  PipeModel model = MufuGain(context, limit, before, next_pipe, finding.gain_method);
  finding.estimated_gain = model.gain;
  finding.gain_method += " (raw page only: no SASS given)";
  AddLimitEvidence(context, limit, xu_percent, finding);
  finding.evidence.push_back(MakeEvidence(PipeMetric("fp64"), fp64, "%", "<", QuietFp64Bar(context)));
  finding.evidence.push_back(MakeEvidence("floating-point share of executed instructions",
                                          100 * mix.fp / mix.total, "%",
                                          ">=", context.Threshold("min_fp_share_without_sass") * 100));
  if (auto fma = context.Metric(PipeMetric("fma")))
    finding.evidence.push_back(MakeEvidence(PipeMetric("fma"), *fma, "%", "", 0));
  finding.root_cause =
      limit.issue_bound
          ? IssueBoundCause(limit, xu_percent) +
                " The FP64 pipe is quiet and the kernel does floating-point work, so the XU work is float "
                "math; the SASS listing would name the sequences (MUFU.EX2/LG2/RCP, FCHK and slow-path "
                "CALLs)."
          : fmt::format(
                "The XU pipe, which executes MUFU (reciprocal, sqrt, exp2, log2, sin) at 1/8 the FMA pipe's "
                "rate, is {:.0f}% busy and the busiest pipe's rival; the FP64 pipe is quiet (so these are "
                "not "
                "double conversions) and the kernel does floating-point work (so not integer-division "
                "reciprocals): float transcendentals and IEEE divisions. The next busiest pipe ({}) is at "
                "{:.0f}%. The SASS listing would name the instructions (MUFU.EX2/LG2/RCP, FCHK and slow-path "
                "CALLs).",
                xu_percent, next_pipe.first, next_pipe.second);
  finding.recommendations = limit.issue_bound
                                ? IssueBoundRecommendations(finding.estimated_gain, 0, 0)
                                : SpecialFunctionRecommendations(finding.estimated_gain, 0, 0, next_pipe);
  finding.confidence = 0.6;
  return finding;
}

// The slow paths' share of the executed instructions (see the top of the file).
std::optional<Finding> AnalyzeSlowPaths(const ToolContext& context, const SlowPathExecution& execution,
                                        double xu_percent) {
  InstructionList calls = CallsTo(*context.sass, RoutineKind::kFloatSlowPath);
  size_t divisions =
      Select(MainBody(*context.sass), [](const SassInstruction& i) { return i.opcode == "FCHK"; }).size();
  double share = execution.Share();
  Finding finding;
  finding.title = fmt::format(
      "IEEE division/sqrt slow paths take {:.0f}% of the executed instructions ({:.1f} of 32 lanes active "
      "there)",
      share * 100, execution.thread_instructions / std::max(execution.warp_instructions, 1.0));
  finding.estimated_gain = share * ComputeLimitedFraction(context);
  finding.gain_method = fmt::format(
      "the slow paths' share of executed warp instructions {:.1f}% × SM throughput {:.0f}% (how "
      "compute-limited "
      "the kernel is): the instructions a division without a slow path (hoisted reciprocal, __fdividef) does "
      "not issue",
      share * 100, ComputeLimitedFraction(context) * 100);
  finding.evidence.push_back(
      MakeEvidence("warp instructions executed in float slow-path subroutines (source page)", share * 100,
                   "%", ">=", context.Threshold("min_slow_path_instruction_share") * 100));
  finding.evidence.push_back(MakeEvidence(
      "active threads per warp instruction in the slow paths",
      execution.thread_instructions / std::max(execution.warp_instructions, 1.0), "thread/inst", "", 0));
  finding.evidence.push_back(MakeEvidence("active threads per warp instruction elsewhere",
                                          execution.ThreadsPerInstructionOutside(), "thread/inst", "", 0));
  finding.evidence.push_back(
      MakeEvidence("IEEE float divisions (FCHK, SASS, static)", double(divisions), "inst", "", 0));
  finding.evidence.push_back(MakeEvidence("calls to division/sqrt slow-path subroutines (SASS, static)",
                                          double(calls.size()), "inst", "", 0));
  finding.evidence.push_back(MakeEvidence(PipeMetric("xu"), xu_percent, "%", "", 0));
  finding.root_cause = fmt::format(
      "Each IEEE division checks its operands (FCHK) and sends the lanes outside the fast path's range (a "
      "denormal or zero numerator, e.g. after an exp that underflows, or an extreme denominator) to a "
      "slow-path "
      "subroutine. Here the lanes take it so often that {:.0f}% of the executed warp instructions are in "
      "those "
      "subroutines, run with {:.1f} of 32 lanes active while the others wait: the divisions, not the "
      "kernel's "
      "own branches, make the warps diverge.",
      share * 100, execution.thread_instructions / std::max(execution.warp_instructions, 1.0));
  finding.recommendations = IssueBoundRecommendations(finding.estimated_gain, divisions, calls.size());
  finding.locations = LocationsOf(context, calls);
  AddStallShareEvidence(context, finding);
  finding.confidence = 0.8;
  return finding;
}

std::optional<Finding> AnalyzeMufuPressure(const ToolContext& context) {
  double xu_percent = *context.Metric(PipeMetric("xu"));
  if (auto execution = FloatSlowPathExecution(context);
      execution && execution->Share() >= context.Threshold("min_slow_path_instruction_share"))
    return AnalyzeSlowPaths(context, *execution, xu_percent);
  std::optional<MufuLimit> limit = FindMufuLimit(context, xu_percent);
  if (!limit) return std::nullopt;
  if (!context.sass) return AnalyzeMufuFromMetrics(context, xu_percent, *limit);
  XuComposition xu = ClassifyXuWork(*context.sass);
  if (xu.special_functions.empty() ||
      FloatMathShareOfXu(xu) < context.Threshold("min_special_function_share"))
    return std::nullopt;
  InstructionList body = MainBody(*context.sass);
  size_t divisions = Select(body, [](const SassInstruction& i) { return i.opcode == "FCHK"; }).size();
  InstructionList slow_calls = CallsTo(*context.sass, RoutineKind::kFloatSlowPath);
  // Cody-Waite range reduction of accurate expf/exp2f/powf (FFMA.RM rounds x·log2(e) to an integer);
  // __expf is FMUL + MUFU.EX2 without it.
  size_t range_reductions = Select(body, [](const SassInstruction& i) {
                              return i.opcode == "FFMA" && HasModifier(i, ".RM");
                            }).size();
  if (limit->issue_bound && divisions + slow_calls.size() + range_reductions == 0) return std::nullopt;
  PipeLoads before = ReadPipeLoads(context);
  std::pair<std::string, double> next_pipe = BusiestPipeExcept(before, "xu");
  Finding finding;
  finding.title = MufuTitle(*limit, xu_percent);
  PipeModel model = MufuGain(context, *limit, before, next_pipe, finding.gain_method);
  finding.estimated_gain = model.gain;
  AddLimitEvidence(context, *limit, xu_percent, finding);
  AddSpecialFunctionEvidence(context, xu, divisions, slow_calls.size(), finding);
  if (limit->issue_bound)
    finding.evidence.push_back(MakeEvidence("accurate exp range reductions (FFMA.RM, SASS, static)",
                                            double(range_reductions), "inst", "", 0));
  finding.root_cause =
      limit->issue_bound
          ? IssueBoundCause(*limit, xu_percent) +
                fmt::format(
                    " In SASS: {} MUFU in the kernel body, {} IEEE divisions (FCHK), {} slow-path "
                    "call sites and {} accurate-exp range reductions.",
                    xu.special_functions.size(), divisions, slow_calls.size(), range_reductions)
          : fmt::format(
                "The XU pipe, which executes MUFU (reciprocal, sqrt, exp2, sin) at 1/8 the FMA pipe's rate, "
                "is {:.0f}% busy and the busiest pipe: {} MUFU in the kernel body. {} IEEE divisions add "
                "Newton fix-up FFMAs and a range check each, and {} call sites branch to division/sqrt slow "
                "paths. The next busiest pipe ({}) is at {:.0f}%.",
                xu_percent, xu.special_functions.size(), divisions, slow_calls.size(), next_pipe.first,
                next_pipe.second);
  finding.recommendations =
      limit->issue_bound
          ? IssueBoundRecommendations(finding.estimated_gain, divisions, slow_calls.size())
          : SpecialFunctionRecommendations(finding.estimated_gain, divisions, slow_calls.size(), next_pipe);
  InstructionList offending = xu.special_functions;
  offending.insert(offending.end(), slow_calls.begin(), slow_calls.end());
  finding.locations = LocationsOf(context, offending);
  AddStallShareEvidence(context, finding);
  finding.confidence = 0.75;
  return finding;
}

}  // namespace

ToolDefinition MufuDivisionPressureTool() {
  ToolDefinition tool;
  tool.id = "mufu_division_pressure";
  tool.title = "Special-function (MUFU) and IEEE-division pressure";
  tool.family = ToolFamily::kCompute;
  tool.side = ToolSide::kCompute;
  tool.relevant_classes = UnlessMemoryBound();
  tool.ncu_rules = {NcuRule::kCpiStallMio, NcuRule::kCpiStallMathPipe};
  tool.required = {{InputSource::kSass, "MUFU, FCHK and slow-path CALL counts", true},
                   {InputSource::kSourcePage, "per-PC instructions executed (slow-path share)", true},
                   {InputSource::kNcuMetric, PipeMetric("xu"), false},
                   {InputSource::kNcuMetric, PipeMetric("fma"), true},
                   {InputSource::kNcuMetric, PipeMetric("alu"), true},
                   {InputSource::kNcuMetric, std::string(kIssueActiveMetric), true}};
  tool.thresholds = {
      MakeThreshold(
          "min_xu_pipe_percent", 60, "%",
          "XU pipe utilisation from which the pipe limits issue (ncu HighPipeUtilization: 60-80% 'High', >= "
          "80% 'Very High'); in a latency-bound kernel, scaled by the issue-active fraction (every pipe of a "
          "kernel issuing on u of its cycles stays below about u busy)"),
      MakeThreshold(
          "min_issue_active_percent", 70, "%",
          "issue-bound path: share of active cycles the schedulers issue from which instruction issue, not a "
          "pipe, limits the kernel (the middle of ncu HighPipeUtilization's 60-80% 'High' band applied to "
          "the "
          "issue slot: a kernel whose MUFU sequences leave it waiting on their fixed latencies issues on "
          "70-80% of the cycles, not more)"),
      MakeThreshold(
          "min_xu_share_of_issue_issue_bound", 0.25, "fraction",
          "issue-bound path: XU utilisation, as a fraction of the issue-active percentage, from which the "
          "MUFU sequences are the bulk of the issued work: at 1/8 the issue rate, x% XU is x/8 % of the "
          "cycles in MUFU, and the 8-25 instructions an accurate expf/logf or IEEE division wraps around "
          "each MUFU (16 in the middle) make the sequences x·16/8 = 2x % of the cycles: half of the issued "
          "instructions or more when x >= issue active / 4 (at 95% issue active: XU >= 24%; at 70%: "
          ">= 17.5%)"),
      MakeThreshold(
          "min_slow_path_instruction_share", 0.2, "fraction",
          "slow-path path (SASS and source page): share of the executed warp instructions inside float "
          "division/sqrt slow-path subroutines from which they, not the fast path, are the cost (a slow path "
          "is ~40 instructions run with few lanes; one lane in a few warps taking it is already 20%)"),
      MakeThreshold("min_special_function_share", 0.5, "fraction",
                    "share of the main body's XU instructions that are float math: MUFU, and the FRND "
                    "roundings of the accurate sequences around them (blind set 7's powf/logf focal loss: "
                    "3 MUFU, 3 FRND, 1 F2I); conversions belong to accidental_fp64 and integer-division "
                    "reciprocals to int64_index_arithmetic"),
      MakeThreshold("max_fp64_pipe_percent_without_sass", 15, "%",
                    "without SASS: FP64 pipe utilisation below which the XU work is not the conversions of "
                    "promoted doubles (accidental_fp64's 15%, scaled alike in a latency-bound kernel)"),
      MakeThreshold(
          "min_fp_share_without_sass", 0.1, "fraction",
          "without SASS: floating-point share of the executed instructions from which the XU work serves "
          "float math (integer-division reciprocals come with almost no FP instructions)")};
  for (std::string& name : InstructionMixMetrics()) tool.required.push_back(NcuMetric(name, true));
  tool.trigger =
      "SASS + source page: >= min_slow_path_instruction_share of the executed warp instructions in float "
      "division/sqrt slow-path subroutines; or XU pipe >= min_xu_pipe_percent, or issue active >= "
      "min_issue_active_percent and XU pipe >= "
      "min_xu_share_of_issue_issue_bound × issue active (then SASS must show accurate sequences: FCHK, "
      "slow-path CALLs or "
      "FFMA.RM range reductions); float MUFU >= min_special_function_share of the XU instructions in SASS; "
      "without SASS: FP64 pipe < max_fp64_pipe_percent_without_sass and FP share >= "
      "min_fp_share_without_sass";
  tool.subsumes = {"hidden_compute_energy"};  // its energy-only finding on the same work
  tool.gain_bound = GainBound::kReducesCompute;
  tool.tuning_moves = {
      {"mufu_division_pressure",
       {{ParameterRole::kFastMath, MoveDirection::kIncrease}},
       "IEEE division and accurate transcendentals are long MUFU sequences: approximate math where the "
       "tolerance allows (verified by the check)"},
  };
  tool.analyze = AnalyzeMufuPressure;
  tool.energy_change = PriceFastIntrinsics;  // the division and expf fix-up FMAs removed
  return tool;
}

}  // namespace kopt
