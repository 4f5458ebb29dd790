#include "runner/correctness.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <utility>

#include "runner_protocol/input_generator.h"
#include "runner_protocol/output_comparison.h"

namespace kopt::runner {
namespace {

// A failure for a non-OK status (nullopt when OK). `not_candidate`: the
// reference's or the environment's fault.
std::optional<RunnerFailure> AsFailure(const Status& status, bool not_candidate = false) {
  if (status.ok()) return std::nullopt;
  RunnerFailure failure = FailureForStatus(status, FailureKind::kLaunchFailure);
  failure.not_candidate = not_candidate;
  if (not_candidate) failure.message = "the reference failed: " + failure.message;
  return failure;
}

// One call of `library` and a wait for it: the launch error first (a
// configuration the device refuses), then cudaDeviceSynchronize (faults
// while running; waits for every stream, so side-stream work is included).
std::optional<RunnerFailure> CallAndWait(const KernelLibrary& library, const DeviceTensors& tensors,
                                         const ScalarArguments& scalars, cudaStream_t stream,
                                         bool is_reference) {
  library.Launch(tensors.Pointers(), scalars.Pointers(), stream);
  cudaError_t launch_error = cudaGetLastError();
  if (launch_error != cudaSuccess) {
    std::optional<RunnerFailure> failure =
        AsFailure(CheckCudaResult(launch_error, "cudaGetLastError() after kopt_launch", __FILE__, __LINE__),
                  is_reference);
    failure->kind = FailureKindForLaunchError(launch_error);
    return failure;
  }
  return AsFailure(KOPT_CUDA_STATUS(cudaDeviceSynchronize()), is_reference);
}

// Sets a tensor set up for a call: inputs and inouts from `contents`, or
// (when `verified_inputs` is given) inputs copied on the device from that set,
// whose inputs were just checked equal to `contents`; outputs poisoned on the
// device.
Status LoadTensors(const RunnerTask& task, const std::vector<std::vector<std::byte>>& contents,
                   DeviceTensors& tensors, const DeviceTensors* verified_inputs) {
  for (size_t index = 0; index < task.tensors.size(); ++index) {
    TensorRole role = task.tensors[index].role;
    KOPT_RETURN_IF_ERROR(role == TensorRole::kOutput ? tensors.Fill(index, kPoisonByte)
                         : role == TensorRole::kInput && verified_inputs != nullptr
                             ? tensors.CopyTensorFrom(index, *verified_inputs)
                             : tensors.Upload(index, contents[index]));
  }
  return Status::Ok();
}

std::optional<RunnerFailure> PrepareForCall(const RunnerTask& task,
                                            const std::vector<std::vector<std::byte>>& contents,
                                            DeviceTensors& tensors, const DeviceTensors* verified_inputs,
                                            bool is_reference) {
  return AsFailure(LoadTensors(task, contents, tensors, verified_inputs), is_reference);
}

// Adds the wall time since the last mark to the named step of a round.
class StepClock {
 public:
  explicit StepClock(std::vector<std::pair<std::string, double>>& steps) : steps_(steps) {}
  void Mark(const char* step) {
    auto now = std::chrono::steady_clock::now();
    double seconds = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    for (auto& [name, total] : steps_) {
      if (name == step) {
        total += seconds;
        return;
      }
    }
    steps_.emplace_back(step, seconds);
  }

 private:
  std::vector<std::pair<std::string, double>>& steps_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

std::optional<RunnerFailure> CompareInput(const TensorDecl& tensor, const std::vector<std::byte>& before,
                                          const std::vector<std::byte>& after) {
  // memcmp: std::vector<std::byte>'s operator== compares byte by byte (0.1 s for 128 MiB).
  if (before.size() == after.size() && std::memcmp(before.data(), after.data(), before.size()) == 0) {
    return std::nullopt;
  }
  size_t differing = 0, first = before.size();
  for (size_t offset = 0; offset < before.size(); ++offset) {
    if (before[offset] != after[offset]) {
      first = std::min(first, offset);
      ++differing;
    }
  }
  return RunnerFailure{
      FailureKind::kInputMutated,
      fmt::format("input \"{}\" changed during the candidate's call: {} of {} bytes differ, first "
                  "at byte {}",
                  tensor.name, differing, before.size(), first)};
}

std::optional<RunnerFailure> CheckInputsUnchanged(const RunnerTask& task, const DeviceTensors& tensors,
                                                  const std::vector<std::vector<std::byte>>& contents,
                                                  std::vector<std::byte>& after) {
  for (size_t index = 0; index < task.tensors.size(); ++index) {
    if (task.tensors[index].role != TensorRole::kInput) continue;
    if (auto failure = AsFailure(tensors.DownloadInto(index, after))) return failure;
    if (auto failure = CompareInput(task.tensors[index], contents[index], after)) return failure;
  }
  return std::nullopt;
}

// Copies back every written tensor (inputs' entries are left as they are).
std::optional<RunnerFailure> DownloadWritten(const RunnerTask& task, const DeviceTensors& tensors,
                                             std::vector<std::vector<std::byte>>& written,
                                             bool is_reference) {
  written.resize(task.tensors.size());
  for (size_t index = 0; index < task.tensors.size(); ++index) {
    if (!task.tensors[index].IsWritten()) continue;
    if (auto failure = AsFailure(tensors.DownloadInto(index, written[index]), is_reference)) return failure;
  }
  return std::nullopt;
}

struct RoundResult {
  CheckEvent event;
  std::optional<RunnerFailure> failure;
  std::vector<uint64_t> candidate_fingerprints;  // one per written tensor
  std::vector<uint64_t> reference_fingerprints;
};

void JudgeRound(const RunnerTask& task, const std::vector<std::vector<std::byte>>& got,
                const std::vector<std::vector<std::byte>>& expected, RoundResult& result) {
  std::vector<OutputVerdict> verdicts;
  std::string first_failure_message;
  for (size_t index = 0; index < task.tensors.size(); ++index) {
    const TensorDecl& tensor = task.tensors[index];
    if (!tensor.IsWritten()) continue;
    Tolerance tolerance = task.ToleranceFor(tensor.dtype);
    OutputVerdict verdict = JudgeOutput(tensor.name, tensor.dtype, got[index], expected[index], tolerance);
    if (verdict.failure && first_failure_message.empty()) {
      first_failure_message = DescribeOutputMismatch(verdict.check, tensor.ElementCount(), tensor.dtype,
                                                     got[index], expected[index], tolerance);
    }
    result.event.outputs.push_back(verdict.check);
    result.candidate_fingerprints.push_back(FingerprintBytes(got[index]));
    result.reference_fingerprints.push_back(FingerprintBytes(expected[index]));
    verdicts.push_back(std::move(verdict));
  }
  std::optional<FailureKind> kind = RoundFailure(verdicts);
  result.event.passed = !kind.has_value();
  if (kind) result.failure = RunnerFailure{*kind, first_failure_message};
}

// Draws the round's inputs on the host into `contents` (outputs need none:
// they are poisoned on the device).
void DrawInputs(const RunnerTask& task, uint64_t seed, std::vector<std::vector<std::byte>>& contents) {
  contents.resize(task.tensors.size());
  for (size_t index = 0; index < task.tensors.size(); ++index) {
    if (task.tensors[index].IsInitialised()) {
      GenerateTensorInto(task.tensors[index], seed, contents[index]);
    } else {
      contents[index].clear();
    }
  }
}

// Steps 1-5 of a round (see the header); the event is complete only when
// the comparison was reached (failure before it: event.outputs empty).
RoundResult RunRound(const CheckContext& context, const RunnerTask& task, DeviceTensors& candidate,
                     DeviceTensors& reference, uint64_t seed) {
  RoundResult result;
  result.event.seed = seed;
  StepClock clock(result.event.phase_seconds);
  RoundBuffers& buffers = *context.buffers;
  DrawInputs(task, seed, buffers.contents);
  clock.Mark("generate");
  ScalarArguments scalars(task.scalars);
  auto step = [&](const char* name, auto&& run) {
    if (result.failure) return;
    result.failure = run();
    clock.Mark(name);
  };
  const auto& contents = buffers.contents;
  step("prepare", [&] { return PrepareForCall(task, contents, candidate, nullptr, false); });
  step("candidate",
       [&] { return CallAndWait(*context.candidate, candidate, scalars, context.stream, false); });
  step("input_check",
       [&] { return CheckInputsUnchanged(task, candidate, contents, buffers.input_after_call); });
  step("download", [&] { return DownloadWritten(task, candidate, buffers.got, false); });
  step("prepare", [&] { return PrepareForCall(task, contents, reference, &candidate, true); });
  step("reference",
       [&] { return CallAndWait(*context.reference, reference, scalars, context.stream, true); });
  step("download", [&] { return DownloadWritten(task, reference, buffers.expected, true); });
  if (!result.failure) {
    JudgeRound(task, buffers.got, buffers.expected, result);
    clock.Mark("compare");
  }
  return result;
}

uint64_t VariantSeed(const RunnerRequest& request, size_t variant_index) {
  uint64_t base = request.seeds.empty() ? 0 : request.seeds[variant_index % request.seeds.size()];
  return base ^ (0x9E3779B97F4A7C15ull * (variant_index + 1));
}

std::optional<RunnerFailure> ConstantOutputFailure(const RunnerTask& task,
                                                   const std::vector<RoundResult>& rounds) {
  if (rounds.size() < 2) return std::nullopt;
  size_t written_index = 0;
  for (const TensorDecl& tensor : task.tensors) {
    if (!tensor.IsWritten()) continue;
    std::vector<uint64_t> candidate, reference;
    for (const RoundResult& round : rounds) {
      candidate.push_back(round.candidate_fingerprints[written_index]);
      reference.push_back(round.reference_fingerprints[written_index]);
    }
    if (IsConstantOutput(candidate, reference)) {
      return RunnerFailure{
          FailureKind::kConstantOutput,
          fmt::format("output \"{}\" was identical for all {} seeds while the reference's changed",
                      tensor.name, rounds.size())};
    }
    ++written_index;
  }
  return std::nullopt;
}

std::optional<RunnerFailure> RunVariants(const CheckContext& context, const RunnerRequest& request) {
  for (size_t index = 0; index < request.check_variants.size(); ++index) {
    RunnerTask resized = ApplyVariant(request.task, request.check_variants[index]);
    Result<MainSizeTensors> tensors = AllocateMainSize(resized);
    if (!tensors.ok()) return AsFailure(tensors.status());
    RoundResult round =
        RunRound(context, resized, *tensors->candidate, *tensors->reference, VariantSeed(request, index));
    round.event.variant = static_cast<int>(index);
    if (!round.event.outputs.empty()) context.events->Emit(round.event);
    if (round.failure) {
      round.failure->message = fmt::format("size variant {}: {}", index, round.failure->message);
      return round.failure;
    }
  }
  return std::nullopt;
}

}  // namespace

Result<MainSizeTensors> AllocateMainSize(const RunnerTask& task) {
  MainSizeTensors tensors;
  KOPT_ASSIGN_OR_RETURN(tensors.candidate, DeviceTensors::Allocate(task));
  KOPT_ASSIGN_OR_RETURN(tensors.reference, DeviceTensors::Allocate(task));
  return tensors;
}

std::optional<RunnerFailure> RunCorrectnessRounds(const CheckContext& context, const RunnerRequest& request,
                                                  MainSizeTensors& main_size) {
  std::vector<RoundResult> rounds;
  for (uint64_t seed : request.seeds) {
    RoundResult round = RunRound(context, request.task, *main_size.candidate, *main_size.reference, seed);
    if (!round.event.outputs.empty()) context.events->Emit(round.event);
    if (round.failure) return round.failure;
    rounds.push_back(std::move(round));
  }
  if (auto failure = ConstantOutputFailure(request.task, rounds)) return failure;
  return RunVariants(context, request);
}

std::optional<RunnerFailure> CheckStaleOutput(const CheckContext& context, const RunnerTask& task,
                                              DeviceTensors& timed, DeviceTensors& reference, uint64_t seed) {
  RoundResult round = RunRound(context, task, timed, reference, seed);
  if (!round.failure) return std::nullopt;
  FailureKind kind = round.failure->kind;
  if (kind == FailureKind::kUnwrittenOutput || kind == FailureKind::kWrongOutput ||
      kind == FailureKind::kPrecisionLoss) {
    round.failure->kind = FailureKind::kStaleOutput;
    round.failure->message =
        "after timing, fresh inputs in the timed buffers gave old or unwritten outputs: " +
        round.failure->message;
  }
  return round.failure;
}

Status FillTensors(const RunnerTask& task, uint64_t seed, DeviceTensors& tensors, RoundBuffers& buffers) {
  DrawInputs(task, seed, buffers.contents);
  return LoadTensors(task, buffers.contents, tensors, nullptr);
}

Status LaunchOnce(const KernelLibrary& library, const DeviceTensors& tensors, const ScalarArguments& scalars,
                  cudaStream_t stream) {
  library.Launch(tensors.Pointers(), scalars.Pointers(), stream);
  return CheckCudaResult(cudaGetLastError(), "cudaGetLastError() after kopt_launch", __FILE__, __LINE__);
}

}  // namespace kopt::runner
