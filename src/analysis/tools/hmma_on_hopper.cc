// hmma_on_hopper: mma.sync (HMMA) on Hopper, where the warpgroup path (wgmma,
// HGMMA) has about twice the throughput: the tensor time the switch saves.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/pipe_model.h"
#include "analysis/tool_selection.h"
#include "analysis/tool_support.h"

namespace kopt {
namespace {

bool IsWarpgroupCapableMma(const SassInstruction& instruction) {
  // DMMA (fp64) has no warpgroup form; HMMA and IMMA map to HGMMA and IGMMA.
  return instruction.opcode == "HMMA" || instruction.opcode == "IMMA";
}

struct TensorTime {
  double operations = 0;
  double seconds_at_attainable = 0;
  double achieved_fraction = 0;  // of the dense (wgmma) peak
};

TensorTime WarpgroupTensorTime(const ToolContext& context, double attainable) {
  TensorTime time;
  double duration_seconds = context.roofline.duration_ns * 1e-9;
  for (const ComputeWork& work : context.roofline.compute) {
    if (work.precision.rfind("tensor_", 0) != 0 || work.precision == "tensor_fp64") continue;
    if (work.peak_per_second <= 0) continue;
    time.operations += work.operations;
    time.seconds_at_attainable += work.operations / (attainable * work.peak_per_second);
    time.achieved_fraction +=
        duration_seconds > 0 ? work.operations / duration_seconds / work.peak_per_second : 0;
  }
  return time;
}

std::vector<Recommendation> WarpgroupRecommendations(double gain, double attainable) {
  return {
      {"Rewrite the main loop with wgmma (wgmma.mma_async on 64xNx16 tiles, sm_90a: build with "
       "-gencode=arch=compute_90a,code=sm_90a), or use CUTLASS 3.x / cuBLAS, which do",
       "On Hopper mma.sync (HMMA) reaches only part of the tensor peak; wgmma (HGMMA) issues per warpgroup, "
       "reads B (and A) from shared memory without register staging and runs asynchronously",
       fmt::format("up to {:.0f}% less kernel time (the tensor work at {:.0f}% of the dense wgmma peak)",
                   gain * 100, attainable * 100)},
      {"Feed the tiles with TMA (cp.async.bulk.tensor into swizzled shared memory, completing on an "
       "mbarrier) in a 2-4 stage pipeline",
       "wgmma needs its operands in shared memory ahead of time; synchronous global-to-shared copies stall "
       "it",
       "the tensor pipe is kept busy while the next tiles load"},
      {"Keep accumulators in registers across the K loop and launch warpgroups of 4 consecutive warps (128 "
       "threads per consumer)",
       "wgmma operates on a warpgroup", "required for the wgmma path"},
  };
}

// The finding, from what shows the mma.sync path: `path_evidence` (SASS counts,
// or without the listing the pipe counters) and `path_words` for the root cause.
Finding HmmaFinding(const ToolContext& context, const TensorTime& time, double attainable,
                    std::vector<Evidence> path_evidence, const std::string& path_words) {
  Finding finding;
  finding.title = "Tensor work on mma.sync (HMMA) on Hopper, where wgmma (HGMMA) applies";
  finding.evidence = std::move(path_evidence);
  for (std::string_view pipe : {"tensor_op_hmma", "tensor_op_gmma"}) {
    if (auto percent = context.Metric(PipeMetric(pipe)))
      finding.evidence.push_back(MakeEvidence(PipeMetric(pipe), *percent, "%", "", 0));
  }
  double duration_seconds = context.roofline.duration_ns * 1e-9;
  if (time.operations > 0 && duration_seconds > 0) {
    finding.evidence.push_back(
        MakeEvidence("tensor FLOP rate", time.operations / duration_seconds, "FLOP/s", "", 0));
    finding.evidence.push_back(MakeEvidence("tensor FLOP rate / dense wgmma peak",
                                            time.achieved_fraction * 100, "%", "<", attainable * 100));
    finding.estimated_gain = std::clamp(1 - time.seconds_at_attainable / duration_seconds, 0.0, 1.0);
    finding.gain_method = fmt::format(
        "time after the fix: the tensor FLOPs at {:.0f}% of the dense wgmma peak take {:.1f} µs of the "
        "{:.1f} µs",
        attainable * 100, time.seconds_at_attainable * 1e6, duration_seconds * 1e6);
  } else {
    finding.gain_method = "not estimated: tensor FLOP counters (sm__ops_path_tensor_src_*) missing";
  }
  finding.root_cause = fmt::format(
      "The kernel runs its matrix products as mma.sync ({}) on a compute capability 9.x GPU. That "
      "Ampere-style path issues per warp from registers and reaches {:.0f}% of the dense tensor peak here; "
      "Hopper's warpgroup MMA (wgmma) is the path that reaches the peak.",
      path_words, time.achieved_fraction * 100);
  finding.recommendations = WarpgroupRecommendations(finding.estimated_gain, attainable);
  return finding;
}

// Without the listing: tensor FLOPs counted (fp16/bf16/tf32/fp8/int8 sources) while the
// warpgroup pipe (gmma) issued nothing: the tensor work ran on the mma.sync pipe.
std::optional<Finding> AnalyzeHmmaFromMetrics(const ToolContext& context) {
  auto gmma = context.Metric(PipeMetric("tensor_op_gmma"));
  auto hmma = context.Metric(PipeMetric("tensor_op_hmma"));
  if (!gmma || !hmma || *gmma > 0 || *hmma <= 0) return std::nullopt;
  double attainable = context.Threshold("attainable_tensor_efficiency");
  TensorTime time = WarpgroupTensorTime(context, attainable);
  if (time.operations <= 0 || time.achieved_fraction >= attainable) return std::nullopt;
  std::vector<Evidence> evidence{
      MakeEvidence("tensor operations (sm__ops_path_tensor_src_*, fp64 excluded)", time.operations, "FLOP",
                   ">", 0),
      MakeEvidence(PipeMetric("tensor_op_gmma") + " (warpgroup MMA)", *gmma, "%", "==", 0)};
  Finding finding = HmmaFinding(context, time, attainable, std::move(evidence),
                                "tensor operations counted while the warpgroup pipe issued nothing; raw page "
                                "only: the SASS listing would show the HMMA");
  finding.confidence = 0.7;
  return finding;
}

std::optional<Finding> AnalyzeHmmaOnHopper(const ToolContext& context) {
  if (!IsHopper(context)) return std::nullopt;
  if (!context.sass) return AnalyzeHmmaFromMetrics(context);
  InstructionList all;
  for (const SassInstruction& instruction : context.sass->instructions) {
    if (!NeverExecutes(instruction)) all.push_back(&instruction);
  }
  InstructionList mma = Select(all, IsWarpgroupCapableMma);
  if (mma.size() < context.Threshold("min_mma_instructions")) return std::nullopt;
  if (context.sass->Count(InstructionClass::kTensorWarpgroup) > 0) return std::nullopt;
  double attainable = context.Threshold("attainable_tensor_efficiency");
  TensorTime time = WarpgroupTensorTime(context, attainable);
  if (time.operations > 0 && time.achieved_fraction >= attainable) return std::nullopt;
  std::vector<Evidence> evidence{
      MakeEvidence("HMMA/IMMA instructions (SASS, static)", double(mma.size()), "inst",
                   ">=", context.Threshold("min_mma_instructions")),
      MakeEvidence("HGMMA/QGMMA/IGMMA instructions (SASS, static)", 0, "inst", "==", 0)};
  Finding finding = HmmaFinding(context, time, attainable, std::move(evidence),
                                fmt::format("{} HMMA/IMMA in SASS, no HGMMA", mma.size()));
  finding.locations = LocationsOf(context, mma);
  AddStallShareEvidence(context, finding);
  finding.confidence = time.operations > 0 ? 0.85 : 0.5;
  return finding;
}

}  // namespace

ToolDefinition HmmaOnHopperTool() {
  ToolDefinition tool;
  tool.id = "hmma_on_hopper";
  tool.title = "HMMA (mma.sync) on Hopper where wgmma applies";
  tool.family = ToolFamily::kCompute;
  tool.side = ToolSide::kCompute;
  tool.relevant_classes = EveryBottleneckClass();
  tool.required = {{InputSource::kSass, "HMMA/IMMA and HGMMA/QGMMA/IGMMA counts", true},
                   {InputSource::kNcuMetric, "sm__ops_path_tensor_src_fp16.sum", true},
                   {InputSource::kNcuMetric, "sm__ops_path_tensor_src_bf16_dst_fp32.sum", true},
                   {InputSource::kNcuMetric, PipeMetric("tensor_op_hmma"), true},
                   {InputSource::kNcuMetric, PipeMetric("tensor_op_gmma"), true}};
  tool.thresholds = {
      MakeThreshold("min_mma_instructions", 1, "inst",
                    "static HMMA/IMMA instructions that show the kernel uses the mma.sync path"),
      AttainableTensorEfficiency()};
  tool.trigger =
      "compute capability 9.x; SASS has >= min_mma_instructions HMMA/IMMA and no HGMMA/QGMMA/IGMMA (without "
      "SASS: tensor FLOPs counted, the hmma pipe busy and the gmma pipe at 0); tensor FLOP rate < "
      "attainable_tensor_efficiency of the dense wgmma peak";
  tool.gain_bound = GainBound::kReducesCompute;
  tool.analyze = AnalyzeHmmaOnHopper;
  return tool;
}

}  // namespace kopt
