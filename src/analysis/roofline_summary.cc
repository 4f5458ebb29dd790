// The derived half of stage 1: from the work and traffic collected in
// roofline.cc to the speed of light, the floor and the bottleneck class.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/roofline.h"
#include "core/quantity_format.h"

namespace kopt {
namespace {

// ncu's own unit throughputs: used for a level only when its byte peak is
// unknown. They also count work that moves no bytes (L2 tag lookups, fills),
// so they overstate a level next to the byte rates; ncu's SpeedOfLight
// breakdown (gpu__compute_memory_throughput) follows the byte rates too.
const char* UnitThroughputMetric(const std::string& level) {
  return level == "dram" ? "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"
         : level == "l2" ? "lts__throughput.avg.pct_of_peak_sustained_elapsed"
                         : "l1tex__throughput.avg.pct_of_peak_sustained_elapsed";
}

double UnitThroughputPercent(const KernelLaunch& launch, const std::string& level) {
  return launch.Metric(UnitThroughputMetric(level)).value_or(0);
}

const MemoryTraffic* FindLevel(const RooflineAnalysis& analysis, const std::string& level) {
  for (const MemoryTraffic& traffic : analysis.memory) {
    if (traffic.level == level) return &traffic;
  }
  return nullptr;
}

std::string LevelLabel(const std::string& level) {
  return level == "dram" ? "DRAM" : level == "l2" ? "L2" : "L1";
}

std::string PrecisionLabel(const std::string& precision) {
  std::string label = precision;
  if (label.rfind("tensor_", 0) == 0) label = "tensor " + label.substr(7);
  for (char& c : label) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return label;
}

void PickDominantPrecision(RooflineAnalysis& analysis) {
  const ComputeWork* dominant = nullptr;
  for (const ComputeWork& work : analysis.compute) {
    if (!dominant || work.percent_of_peak > dominant->percent_of_peak) dominant = &work;
  }
  if (!dominant) return;
  analysis.dominant_precision = dominant->precision;
  analysis.compute_percent_of_peak = dominant->percent_of_peak;
  const MemoryTraffic* dram = FindLevel(analysis, "dram");
  if (dram && dram->bytes > 0) analysis.arithmetic_intensity = analysis.total_flops / dram->bytes;
  if (dram && dram->peak_bytes_per_second > 0) {
    analysis.ridge_point = dominant->peak_per_second / dram->peak_bytes_per_second;
  }
}

// The busiest level by bytes moved against its byte peak. When ncu's memory
// throughput (which also counts shared-memory and L1 pipe work that moves few
// bytes) is well above that, the level whose unit throughput explains ncu's
// figure is the busy one instead.
void PickBusiestMemoryLevel(const KernelLaunch& launch, const RooflineOptions& options,
                            RooflineAnalysis& analysis) {
  for (const MemoryTraffic& traffic : analysis.memory) {
    double percent = traffic.peak_bytes_per_second > 0 ? traffic.percent_of_peak
                                                       : UnitThroughputPercent(launch, traffic.level);
    if (analysis.busiest_memory_level.empty() || percent > analysis.memory_percent_of_peak) {
      analysis.memory_percent_of_peak = percent;
      analysis.busiest_memory_level = traffic.level;
    }
  }
  double ncu_memory = analysis.memory_throughput_percent.value_or(0);
  if (ncu_memory - analysis.memory_percent_of_peak < options.balance_points) return;
  double closest_gap = 1e9;
  for (const char* level : {"dram", "l2", "l1"}) {
    auto unit_percent = launch.Metric(UnitThroughputMetric(level));
    if (!unit_percent || std::fabs(*unit_percent - ncu_memory) >= closest_gap) continue;
    closest_gap = std::fabs(*unit_percent - ncu_memory);
    analysis.busiest_memory_level = level;
    analysis.memory_percent_of_peak = *unit_percent;
    analysis.busiest_memory_from_unit_throughput = true;
  }
}

// Whether any percent behind the speed of light was measured: ncu's own throughput
// percentages, or achieved rates (a duration) against a known peak or unit throughput.
bool SpeedOfLightMeasured(const KernelLaunch& launch, const RooflineAnalysis& analysis) {
  if (analysis.sm_throughput_percent || analysis.memory_throughput_percent) return true;
  if (analysis.duration_ns <= 0) return false;
  for (const ComputeWork& work : analysis.compute) {
    if (work.peak_per_second > 0) return true;
  }
  for (const MemoryTraffic& traffic : analysis.memory) {
    if (traffic.peak_bytes_per_second > 0 || launch.Metric(UnitThroughputMetric(traffic.level))) return true;
  }
  return false;
}

// The least time the work could take: every precision's work at its peak,
// serialized, or the DRAM bytes at DRAM peak, whichever is longer. With
// measured ceilings, the FP32 work takes at least what FFMA chains of that
// size took and the DRAM bytes at least what a copy of that size took.
void ComputeFloor(RooflineAnalysis& analysis) {
  double compute_seconds = 0;
  for (const ComputeWork& work : analysis.compute) {
    double seconds = work.peak_per_second > 0 ? work.operations / work.peak_per_second : 0;
    if (work.precision == "fp32" && analysis.achievable_fp32)
      seconds = std::max(seconds, analysis.achievable_fp32->duration_ns * 1e-9);
    compute_seconds += seconds;
  }
  const MemoryTraffic* dram = FindLevel(analysis, "dram");
  double memory_seconds =
      dram && dram->peak_bytes_per_second > 0 ? dram->bytes / dram->peak_bytes_per_second : 0;
  if (analysis.achievable_dram)
    memory_seconds = std::max(memory_seconds, analysis.achievable_dram->duration_ns * 1e-9);
  analysis.compute_floor_ns = compute_seconds * 1e9;
  analysis.memory_floor_ns = memory_seconds * 1e9;
  analysis.floor_ns = std::max(compute_seconds, memory_seconds) * 1e9;
  analysis.achievable_percent = !analysis.ceilings_table.empty() && analysis.duration_ns > 0
                                    ? 100 * analysis.floor_ns / analysis.duration_ns
                                    : 0;
}

// A percent in whole numbers, except where rounding would carry it onto the classifier's bound:
// 59.6 under a bound of 60 reads "59.6", so "60% ... both under 60%" is never printed.
std::string WholePercent(double percent, double bound) {
  if (percent < bound && std::round(percent) >= bound) return fmt::format("{:.1f}", percent);
  return fmt::format("{:.0f}", percent);
}

std::string MemorySentence(const RooflineAnalysis& analysis, double memory_percent, double bound) {
  if (analysis.busiest_memory_level.empty()) {
    return fmt::format("memory is at {}% of its peak (gpu__compute_memory_throughput)",
                       WholePercent(memory_percent, bound));
  }
  if (analysis.busiest_memory_from_unit_throughput) {
    // The unit's throughput, not its bytes: the memory table's percent is the bytes', so say both.
    // One clause (the caller joins the other side with "while"): the bytes' share in parentheses.
    const MemoryTraffic* level = FindLevel(analysis, analysis.busiest_memory_level);
    std::string bytes =
        level && level->peak_bytes_per_second > 0
            ? fmt::format("; the bytes it moves use {:.1f}% of its bandwidth", level->percent_of_peak)
            : "";
    return fmt::format("{} is at {}% of its peak unit throughput ({}{})",
                       LevelLabel(analysis.busiest_memory_level),
                       WholePercent(analysis.memory_percent_of_peak, bound),
                       UnitThroughputMetric(analysis.busiest_memory_level), bytes);
  }
  const MemoryTraffic* busiest = FindLevel(analysis, analysis.busiest_memory_level);
  std::string sentence = fmt::format("{} is at {}% of its peak", LevelLabel(analysis.busiest_memory_level),
                                     WholePercent(analysis.memory_percent_of_peak, bound));
  if (busiest && busiest->peak_bytes_per_second > 0) {
    sentence +=
        fmt::format(" ({} of {})", FormatBandwidth(busiest->achieved_bytes_per_second, QuantityStyle::kFixed),
                    FormatBandwidth(busiest->peak_bytes_per_second, QuantityStyle::kFixed));
  }
  return sentence;
}

std::string ComputeSentence(const RooflineAnalysis& analysis, double compute_percent, double bound) {
  std::string sentence = fmt::format("the SM is at {}% of its peak", WholePercent(compute_percent, bound));
  if (!analysis.dominant_precision.empty()) {
    sentence += fmt::format(" ({} arithmetic at {:.0f}% of its ceiling)",
                            PrecisionLabel(analysis.dominant_precision), analysis.compute_percent_of_peak);
  }
  return sentence;
}

// Where the DRAM arithmetic intensity sits against the DRAM ridge point, in
// words that agree with both numbers: left of the ridge DRAM bandwidth binds;
// at or right of it DRAM does not, and the sentence names the level that does.
std::string IntensitySentence(const RooflineAnalysis& analysis) {
  if (analysis.ridge_point <= 0 || analysis.arithmetic_intensity <= 0) return "";
  if (analysis.arithmetic_intensity < analysis.ridge_point) {
    return fmt::format("; {:.3g} FLOP/byte is below the ridge point of {:.3g}", analysis.arithmetic_intensity,
                       analysis.ridge_point);
  }
  std::string binding = analysis.busiest_memory_level.empty() || analysis.busiest_memory_level == "dram"
                            ? "memory throughput other than DRAM bandwidth"
                            : LevelLabel(analysis.busiest_memory_level) + " throughput";
  return fmt::format(
      "; {:.3g} FLOP per DRAM byte is at or right of the DRAM ridge point of {:.3g}, so DRAM bandwidth does "
      "not bind: {} does",
      analysis.arithmetic_intensity, analysis.ridge_point, binding);
}

void Classify(const KernelLaunch& launch, const RooflineOptions& options, double compute_percent,
              double memory_percent, RooflineAnalysis& analysis) {
  std::string memory = MemorySentence(analysis, memory_percent, options.bound_percent);
  std::string compute = ComputeSentence(analysis, compute_percent, options.bound_percent);
  if (std::max(compute_percent, memory_percent) < options.bound_percent) {
    analysis.bottleneck = BottleneckClass::kLatencyBound;
    analysis.reason = fmt::format(
        "Neither unit is near its ceiling ({}; {}, both under {:.0f}%): warps wait on "
        "latency rather than throughput",
        compute, memory, options.bound_percent);
    auto waves = launch.Metric("launch__waves_per_multiprocessor");
    if (waves && *waves < 1) {
      analysis.reason +=
          fmt::format(", and the grid fills only {:.0f}% of one wave of the GPU", *waves * 100);
    }
    analysis.reason += ".";
    return;
  }
  if (memory_percent - compute_percent >= options.balance_points) {
    analysis.bottleneck = BottleneckClass::kMemoryBound;
    analysis.reason = fmt::format("Memory-bound: {}, while {}", memory, compute);
    analysis.reason += IntensitySentence(analysis) + ".";
  } else if (compute_percent - memory_percent >= options.balance_points) {
    analysis.bottleneck = BottleneckClass::kComputeBound;
    analysis.reason = fmt::format("Compute-bound: {}, while {}.", compute, memory);
  } else {
    analysis.bottleneck = BottleneckClass::kMixed;
    analysis.reason = fmt::format("Mixed: {} and {}: both near their ceilings.", compute, memory);
  }
}

}  // namespace

void SummarizeRoofline(const KernelLaunch& launch, const RooflineOptions& options,
                       RooflineAnalysis& analysis) {
  PickDominantPrecision(analysis);
  PickBusiestMemoryLevel(launch, options, analysis);
  ComputeFloor(analysis);
  double compute_percent =
      std::max(analysis.sm_throughput_percent.value_or(0), analysis.compute_percent_of_peak);
  double memory_percent =
      std::max(analysis.memory_throughput_percent.value_or(0), analysis.memory_percent_of_peak);
  analysis.speed_of_light_percent = std::max(compute_percent, memory_percent);
  analysis.speed_of_light_known = SpeedOfLightMeasured(launch, analysis);
  if (analysis.duration_ns <= 0 || (analysis.compute.empty() && analysis.memory.empty() &&
                                    !analysis.sm_throughput_percent && !analysis.memory_throughput_percent)) {
    analysis.bottleneck = BottleneckClass::kUnknown;
    analysis.reason =
        analysis.duration_ns <= 0
            ? "Unknown: the profile lacks the duration (gpu__time_duration.sum) that stage 1 needs (collect "
              "with "
              "ncu --set full, or at least --section SpeedOfLight)."
            : "Unknown: the profile has the duration but none of the throughput metrics stage 1 needs (FLOP "
              "counts, memory traffic, SM and memory percent of peak; collect with ncu --set full, or at "
              "least "
              "--section SpeedOfLight).";
    return;
  }
  Classify(launch, options, compute_percent, memory_percent, analysis);
}

}  // namespace kopt
