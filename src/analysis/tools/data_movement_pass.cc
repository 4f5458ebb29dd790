// data_movement_pass: a kernel that exists only to move data (an element-wise
// pass over a tensor larger than L2: scale, bias, cast, add) in a profile of
// several kernels of one program. Near the DRAM ceiling it looks healthy
// alone; in the program its whole round trip through DRAM is avoidable by
// fusing it into the kernel that produces or consumes the tensor.
//
// A pass that also has a flaw of its own (uncoalesced stores, say) gets both
// findings, ranked by gain as any others: fusion removes the pass's whole
// traffic, the flaw's fix only its excess sectors, so the fusion's gain is the
// larger wherever both fire and no special ranking is needed. A cast counts as
// a pass: it writes 1/4 to 4x the bytes it reads (the write/read thresholds).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "analysis/energy_analysis.h"
#include "analysis/tool_selection.h"
#include "analysis/tool_support.h"
#include "core/quantity_format.h"

namespace kopt {
namespace {

struct Neighbour {
  std::string name;
  double dram_bytes = 0;
};

// The other kernels of the profile (by function name) and the most DRAM
// traffic any launch of each moved.
std::vector<Neighbour> OtherKernels(const ToolContext& context) {
  std::vector<Neighbour> others;
  std::string self = context.launch.FunctionName();
  for (const FunctionTraffic& traffic : context.timeline->DramTrafficByFunction()) {
    if (traffic.function_name != self) others.push_back({traffic.function_name, traffic.max_dram_bytes});
  }
  return others;
}

std::optional<Finding> AnalyzeDataMovementPass(const ToolContext& context) {
  if (!context.timeline) return std::nullopt;
  double read = *context.Metric("dram__bytes_read.sum");
  double write = *context.Metric("dram__bytes_write.sum");
  double bytes = read + write;
  if (bytes < context.Threshold("min_dram_megabytes") * 1e6 || read <= 0) return std::nullopt;
  double intensity = SafeRatio(context.roofline.total_flops, bytes);
  if (intensity > context.Threshold("max_flop_per_byte")) return std::nullopt;
  double write_ratio = write / read;
  if (write_ratio < context.Threshold("min_write_to_read_ratio") ||
      write_ratio > context.Threshold("max_write_to_read_ratio"))
    return std::nullopt;
  double dram_percent = 0;
  for (const MemoryTraffic& level : context.roofline.memory)
    if (level.level == "dram") dram_percent = level.percent_of_peak;
  if (dram_percent < context.Threshold("min_dram_percent")) return std::nullopt;
  // A neighbour that moves a tensor of comparable size: the producer or consumer to fuse with.
  std::vector<Neighbour> others = OtherKernels(context);
  double minimum_neighbour = context.Threshold("min_neighbour_share") * write;
  std::vector<Neighbour> neighbours;
  for (const Neighbour& other : others)
    if (other.dram_bytes >= minimum_neighbour) neighbours.push_back(other);
  if (neighbours.empty()) return std::nullopt;
  const RooflineAnalysis& roofline = context.roofline;
  double gain = roofline.duration_ns > 0 ? Clamp01(1 - roofline.compute_floor_ns / roofline.duration_ns) : 0;
  std::string names;
  for (size_t i = 0; i < neighbours.size() && i < 3; ++i) names += (i ? ", " : "") + neighbours[i].name;
  Finding finding;
  finding.title = fmt::format("A pass that only moves data: {} through DRAM at {:.2f} FLOP/byte; fuse it",
                              FormatBytes(bytes, QuantityStyle::kFixed), intensity);
  finding.estimated_gain = gain;
  finding.gain_method = fmt::format(
      "fused into its producer or consumer ({}), the pass costs its arithmetic only: gain = 1 − compute "
      "floor {} "
      "/ duration {}",
      names, FormatDuration(roofline.compute_floor_ns, QuantityStyle::kFixed),
      FormatDuration(roofline.duration_ns, QuantityStyle::kFixed));
  finding.evidence.push_back(MakeEvidence("dram__bytes_read.sum + dram__bytes_write.sum", bytes / 1e6, "MB",
                                          ">=", context.Threshold("min_dram_megabytes")));
  finding.evidence.push_back(MakeEvidence("arithmetic intensity (FLOP per DRAM byte)", intensity, "FLOP/byte",
                                          "<=", context.Threshold("max_flop_per_byte")));
  finding.evidence.push_back(MakeEvidence("DRAM bytes written / read", write_ratio, "ratio",
                                          ">=", context.Threshold("min_write_to_read_ratio")));
  finding.evidence.push_back(MakeEvidence("DRAM bytes written / read", write_ratio, "ratio",
                                          "<=", context.Threshold("max_write_to_read_ratio")));
  finding.evidence.push_back(
      MakeEvidence("DRAM throughput", dram_percent, "%", ">=", context.Threshold("min_dram_percent")));
  finding.evidence.push_back(MakeEvidence(
      "other kernels in the profile moving >= " + FormatBytes(minimum_neighbour, QuantityStyle::kFixed) +
          " of DRAM",
      double(neighbours.size()), "kernel", ">=", 1));
  finding.root_cause = fmt::format(
      "This kernel reads {} and writes {} at {:.2f} FLOP per byte: an element-wise pass whose only work is "
      "to "
      "carry the tensor through DRAM and back. The profile holds the kernels around it ({}), which move "
      "tensors "
      "of the same size; the pass's arithmetic fits into one of them at no extra traffic.",
      FormatBytes(read, QuantityStyle::kFixed), FormatBytes(write, QuantityStyle::kFixed), intensity, names);
  finding.recommendations = {
      {"Fuse the pass into the kernel that produces the tensor (apply the scale/bias/cast in its epilogue, "
       "before "
       "the store) or into the one that consumes it (in its prologue, after the load)",
       "the pass reads and writes the whole tensor for a few operations per element; fused, those operations "
       "run on values already in registers",
       fmt::format("its {} of DRAM traffic and its launch disappear",
                   FormatBytes(bytes, QuantityStyle::kFixed))},
      {"With a framework, let the compiler fuse it (torch.compile, a CUTLASS/cuBLASLt epilogue: bias, "
       "activation, scaling), or express the chain as one kernel",
       "library GEMMs and convolutions take element-wise epilogues for exactly this",
       "the same saving without a hand-written kernel"}};
  finding.confidence = 0.7;
  return finding;
}

}  // namespace

ToolDefinition DataMovementPassTool() {
  ToolDefinition tool;
  tool.id = "data_movement_pass";
  tool.title = "A pass that exists only to move data (fuse it)";
  tool.family = ToolFamily::kMemory;
  tool.side = ToolSide::kMemory;
  tool.relevant_classes = UnlessComputeBound();
  tool.required = {NcuMetric("dram__bytes_read.sum"),
                   NcuMetric("dram__bytes_write.sum"),
                   NcuMetric("gpu__time_duration.sum"),
                   {InputSource::kLaunches, "all launches", false}};
  tool.thresholds = {
      MakeThreshold(
          "min_dram_megabytes", 64, "MB",
          "DRAM traffic from which the tensor cannot stay in L2 between kernels (above the 50-60 MB L2 "
          "of H100/H200), so the separate pass costs a full DRAM round trip"),
      MakeThreshold(
          "max_flop_per_byte", 1, "FLOP/byte",
          "arithmetic intensity up to which the kernel only moves data: two orders of magnitude below "
          "the ridge point of current GPUs (an FMA-based element-wise op is 0.1-0.5)"),
      MakeThreshold("min_write_to_read_ratio", 0.2, "ratio",
                    "DRAM bytes written per byte read from which the kernel writes a tensor element for "
                    "element of the one it reads, rather than reducing it: a narrowing cast writes 1/2 "
                    "(f32 → f16/bf16) or 1/4 (f32 → fp8/int8) of what it reads, and the last writes can "
                    "still sit dirty in L2 when the kernel ends (up to its 50-60 MB, uncounted in "
                    "dram__bytes_write), so 0.2 is a 4:1 cast less that share; a reduction writes far less"),
      MakeThreshold("max_write_to_read_ratio", 4, "ratio",
                    "DRAM bytes written per byte read up to which the kernel passes over an existing tensor "
                    "(a widening cast, fp8/int8 → f32, writes 4x what it reads); writing more creates data "
                    "(a fill, a producer), which is not a pass"),
      MakeThreshold("min_dram_percent", 25, "%",
                    "DRAM throughput from which the traffic it exists for is the kernel's time: a pass at "
                    "<= max_flop_per_byte does nothing else, so at a quarter of the peak or more (a padding "
                    "or gather copy whose index arithmetic keeps it near half the peak included) fusing "
                    "removes its whole time, however well it moves the bytes; below, a latency or launch "
                    "cause dominates and its own tool names it"),
      MakeThreshold("min_neighbour_share", 0.5, "fraction",
                    "another kernel of the profile moving at least this share of the pass's written bytes "
                    "produces or consumes the tensor: the kernel to fuse with")};
  tool.trigger =
      "profile has other kernels; DRAM traffic >= min_dram_megabytes at <= max_flop_per_byte, writes >= "
      "min_write_to_read_ratio × reads and <= max_write_to_read_ratio × reads, DRAM >= min_dram_percent, "
      "another kernel moves >= min_neighbour_share of "
      "the written bytes";
  tool.gain_bound = GainBound::kReducesTraffic;
  tool.analyze = AnalyzeDataMovementPass;
  tool.energy_change = [](const ToolContext& context, const EnergyCounts& before, std::string&) {
    return FusedDataPass(before, context.roofline);  // the pass's traffic and most of its time removed
  };
  return tool;
}

}  // namespace kopt
