#include "analysis/pipe_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "analysis/tool_support.h"
#include "profile/sass_operands.h"

namespace kopt {

std::string PipeMetric(std::string_view pipe) {
  return fmt::format("sm__inst_executed_pipe_{}.avg.pct_of_peak_sustained_active", pipe);
}

PipeLoads ReadPipeLoads(const ToolContext& context) {
  PipeLoads loads;
  for (std::string_view pipe : kPipes) {
    if (auto percent = context.Metric(PipeMetric(pipe))) loads[std::string(pipe)] = *percent;
  }
  return loads;
}

double BusiestLoad(const PipeLoads& loads) {
  double busiest = 0;
  for (const auto& [pipe, percent] : loads) busiest = std::max(busiest, percent);
  return busiest;
}

std::pair<std::string, double> BusiestPipeExcept(const PipeLoads& loads, std::string_view excluded) {
  std::pair<std::string, double> busiest{"", 0};
  for (const auto& [pipe, percent] : loads) {
    if (pipe != excluded && percent > busiest.second) busiest = {pipe, percent};
  }
  return busiest;
}

// The ADU (address divergence unit: branch-target resolution and indexed
// constant-bank loads, e.g. a kernel-parameter table indexed by a per-thread
// value) can set ncu's SM throughput alone while the schedulers issue little:
// its load is set by those few instructions, not by the ALU/FMA work or the
// idle lanes the compute tools would remove. When its load (over active
// cycles) is within this fraction of the SM throughput, the compute-limited
// fraction is the issue rate and the other pipes instead (the way
// barrier_stalls sets the LSU pipe's load aside for a shared-memory exchange).
constexpr double kAduSetsSmThroughput = 0.9;

double ComputeLimitedFraction(const ToolContext& context) {
  double percent = context.roofline.sm_throughput_percent.value_or(context.roofline.compute_percent_of_peak);
  PipeLoads loads = ReadPipeLoads(context);
  auto adu = loads.find("adu");
  auto issue = context.Metric(kIssueActiveMetric);
  if (context.roofline.sm_throughput_percent && issue && adu != loads.end() &&
      adu->second >= kAduSetsSmThroughput * percent)
    percent = std::min(percent, std::max(*issue, BusiestPipeExcept(loads, "adu").second));
  return std::clamp(percent / 100, 0.0, 1.0);
}

double PipeBarScaleForIssueRate(const ToolContext& context) {
  const RooflineAnalysis& roofline = context.roofline;
  if (roofline.bottleneck != BottleneckClass::kLatencyBound) return 1;
  double memory = std::max(roofline.memory_throughput_percent.value_or(0), roofline.memory_percent_of_peak);
  if (roofline.sm_throughput_percent.value_or(0) < memory) return 1;
  return std::clamp(context.Metric(kIssueActiveMetric).value_or(100) / 100, 0.0, 1.0);
}

const ComputeWork* FindWork(const RooflineAnalysis& roofline, std::string_view precision) {
  for (const ComputeWork& work : roofline.compute) {
    if (work.precision == precision) return &work;
  }
  return nullptr;
}

bool IsHopper(const ToolContext& context) {
  if (!context.launch.compute_capability.empty())
    return context.launch.compute_capability.rfind("9.", 0) == 0;
  return context.sass && context.sass->architecture.rfind("sm_90", 0) == 0;
}

ThresholdDefinition AttainableTensorEfficiency() {
  return MakeThreshold(
      "attainable_tensor_efficiency", 0.8, "fraction",
      "share of the dense tensor peak a tuned GEMM reaches, for the time after the fix: cuBLAS bf16 GEMM "
      "measured 770-800 TFLOP/s on the H200, 78-81% of 989 (ncu_sass_gpus.md §5)");
}

namespace {

constexpr const char* kFpOpcodes[] = {"dadd", "dmul", "dfma", "fadd", "fmul", "ffma", "hadd", "hmul", "hfma"};
constexpr const char* kMemoryOps[] = {"global_ld", "global_st", "local_ld",
                                      "local_st",  "shared_ld", "shared_st"};

}  // namespace

std::optional<double> FpThreadInstructions(const ToolContext& context, std::string_view opcode) {
  std::string base = fmt::format("smsp__sass_thread_inst_executed_op_{}_pred_on.sum", opcode);
  if (auto total = context.Metric(base)) return total;
  auto per_cycle = context.Metric(base + ".per_cycle_elapsed");
  auto cycles = context.Metric("smsp__cycles_elapsed.avg");
  if (!cycles) {
    auto clock = context.Metric("smsp__cycles_elapsed.avg.per_second");
    auto duration = context.Metric("gpu__time_duration.sum");
    if (clock && duration) cycles = *clock * *duration * 1e-9;
  }
  if (!per_cycle || !cycles) return std::nullopt;
  return *per_cycle * *cycles;
}

std::vector<std::string> InstructionMixMetrics() {
  std::vector<std::string> names = {"smsp__inst_executed.sum", std::string(kThreadsPerInstructionMetric),
                                    "smsp__inst_executed_op_branch.sum"};
  for (const char* op : kMemoryOps) names.push_back(fmt::format("smsp__sass_inst_executed_op_{}.sum", op));
  for (const char* op : kFpOpcodes)
    names.push_back(fmt::format("smsp__sass_thread_inst_executed_op_{}_pred_on.sum.per_cycle_elapsed", op));
  return names;
}

InstructionMix ReadInstructionMix(const ToolContext& context) {
  InstructionMix mix;
  auto total = context.Metric("smsp__inst_executed.sum");
  auto threads = context.Metric(kThreadsPerInstructionMetric);
  if (!total || *total <= 0) return mix;
  double per_instruction = threads && *threads > 0 ? *threads : kWarpSize;
  bool any_fp = false;
  for (const char* opcode : kFpOpcodes) {
    auto count = FpThreadInstructions(context, opcode);
    if (!count) continue;
    any_fp = true;
    mix.fp += *count / per_instruction;
    if (opcode[0] == 'd') mix.fp64 += *count / per_instruction;
  }
  if (!any_fp) return mix;
  for (const char* op : kMemoryOps)
    mix.memory += context.Metric(fmt::format("smsp__sass_inst_executed_op_{}.sum", op)).value_or(0);
  mix.branch = context.Metric("smsp__inst_executed_op_branch.sum").value_or(0);
  mix.total = *total;
  mix.valid = true;
  return mix;
}

bool RunsOnXuPipe(const SassInstruction& instruction) {
  const std::string& opcode = instruction.opcode;
  return opcode == "MUFU" || opcode == "F2F" || opcode == "F2I" || opcode == "I2F" || opcode == "FRND";
}

bool IsIntegerDivisionStart(const SassInstruction& instruction) {
  return instruction.opcode == "I2F" && HasModifier(instruction, ".RP");
}

bool IsFp64Conversion(const SassInstruction& instruction) {
  return (instruction.opcode == "F2F" || instruction.opcode == "I2F" || instruction.opcode == "F2I") &&
         HasModifier(instruction, "64") && !IsIntegerDivisionStart(instruction) &&
         !HasModifier(instruction, ".U64") && !HasModifier(instruction, ".S64");
}

XuComposition ClassifyXuWork(const SassFunction& function) {
  XuComposition composition;
  std::set<int> division_registers;
  for (const SassInstruction* instruction : MainBody(function)) {
    std::vector<int> sources = SourceRegisters(*instruction);
    bool from_division =
        std::any_of(sources.begin(), sources.end(), [&](int r) { return division_registers.count(r) > 0; });
    bool division = IsIntegerDivisionStart(*instruction) || from_division;
    if (RunsOnXuPipe(*instruction)) {
      if (division)
        composition.integer_division.push_back(instruction);
      else if (IsFp64Conversion(*instruction))
        composition.fp64_conversions.push_back(instruction);
      else if (instruction->opcode == "MUFU")
        composition.special_functions.push_back(instruction);
      else
        composition.other.push_back(instruction);
    }
    for (int written : WrittenRegisters(*instruction)) {
      if (division && instruction->opcode != "F2I")
        division_registers.insert(written);
      else
        division_registers.erase(written);
    }
  }
  return composition;
}

double Share(size_t part, size_t total) {
  return total > 0 ? double(part) / total : 0;
}

PipeModel PipeGain(const ToolContext& context, const PipeLoads& before, const PipeLoads& after) {
  PipeModel model;
  model.busiest_before = BusiestLoad(before);
  model.busiest_after = BusiestLoad(after);
  if (model.busiest_before > 0) {
    double drop = std::clamp(1 - model.busiest_after / model.busiest_before, 0.0, 1.0);
    model.gain = drop * ComputeLimitedFraction(context);
  }
  return model;
}

std::string PipeGainMethod(const ToolContext& context, const PipeModel& model, std::string_view change) {
  return fmt::format(
      "pipe model: busiest pipe {:.1f}% → {:.1f}% after {}; gain (1 − after/before) × SM throughput {:.0f}%",
      model.busiest_before, model.busiest_after, change, ComputeLimitedFraction(context) * 100);
}

RoutineKind ClassifyRoutine(const InstructionList& routine) {
  if (AnyOf(routine, IsIntegerDivisionStart)) return RoutineKind::kIntegerDivision;
  bool float_math = AnyOf(routine, [](const SassInstruction& i) {
    return i.opcode == "MUFU" ||
           (i.opcode == "FFMA" && (HasModifier(i, ".RZ") || HasModifier(i, ".RM") || HasModifier(i, ".RP")));
  });
  return float_math ? RoutineKind::kFloatSlowPath : RoutineKind::kOther;
}

InstructionList CallsTo(const SassFunction& function, RoutineKind kind) {
  return Select(MainBody(function), [&](const SassInstruction& instruction) {
    auto target = CallTarget(instruction);
    return target && ClassifyRoutine(Subroutine(function, *target)) == kind;
  });
}

double SlowPathExecution::ThreadsPerInstructionOutside() const {
  double warp = total_warp_instructions - warp_instructions;
  return warp > 0 ? (total_thread_instructions - thread_instructions) / warp : kWarpSize;
}

std::optional<SlowPathExecution> FloatSlowPathExecution(const ToolContext& context) {
  if (!context.sass || !context.source_page) return std::nullopt;
  std::vector<std::pair<unsigned long long, unsigned long long>> ranges;  // [first, RET] offsets
  std::set<unsigned long long> starts;
  for (const SassInstruction* call : CallsTo(*context.sass, RoutineKind::kFloatSlowPath)) {
    auto target = CallTarget(*call);
    if (!target || !starts.insert(*target).second) continue;
    InstructionList routine = Subroutine(*context.sass, *target);
    // An FP64 routine (pow, exp, division in double) is double math, accidental_fp64's, not a float slow
    // path.
    bool double_math = AnyOf(routine, [](const SassInstruction& i) {
      return i.instruction_class == InstructionClass::kFp64 || HasModifier(i, "64H");
    });
    if (!routine.empty() && !double_math) ranges.push_back({routine.front()->offset, routine.back()->offset});
  }
  SlowPathExecution execution;
  bool counted = false;
  for (const SourcePageRow& row : context.source_page->rows) {
    if (!row.instructions_executed || !row.thread_instructions_executed) continue;
    counted = true;
    execution.total_warp_instructions += *row.instructions_executed;
    execution.total_thread_instructions += *row.thread_instructions_executed;
    for (const auto& [first, last] : ranges) {
      if (row.offset < first || row.offset > last) continue;
      execution.warp_instructions += *row.instructions_executed;
      execution.thread_instructions += *row.thread_instructions_executed;
      break;
    }
  }
  if (!counted || execution.total_warp_instructions <= 0) return std::nullopt;
  return execution;
}

}  // namespace kopt
