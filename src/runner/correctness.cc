#include "runner/correctness.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <utility>

#include "runner/device_inputs.h"
#include "runner_protocol/input_generator.h"

namespace kopt::runner {
namespace {

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

// The input check (step 3): every input compared on the device with what
// was drawn into it; input_mutated names the first that changed.
std::optional<RunnerFailure> CheckInputsUnchanged(const CheckContext& context, const RunnerTask& task,
                                                  const DeviceTensors& tensors, uint64_t seed) {
  for (size_t index = 0; index < task.tensors.size(); ++index) {
    if (task.tensors[index].role != TensorRole::kInput) continue;
    Result<InputDifference> difference = CompareWithDraw(task, index, seed, tensors, context.stream);
    if (!difference.ok()) return AsFailure(difference.status(), context.is_reference);
    if (difference->differing_bytes == 0) continue;
    RunnerFailure failure{
        FailureKind::kInputMutated,
        fmt::format("input \"{}\" changed during the candidate's call: {} of {} bytes differ, "
                    "first at byte {}",
                    task.tensors[index].name, difference->differing_bytes, tensors.ByteCount(index),
                    difference->first_byte)};
    if (context.is_reference) {
      failure.not_candidate = true;
      failure.message = "the reference failed: " + failure.message;
    }
    return failure;
  }
  return std::nullopt;
}

// Steps 1-4 of a round (see the header).
std::optional<RunnerFailure> RunRound(const CheckContext& context, const RunnerTask& task,
                                      DeviceTensors& tensors, uint64_t seed, const std::string& round,
                                      int64_t index) {
  OutputsEvent event;
  event.round = round;
  event.index = index;
  event.seed = seed;
  StepClock clock(event.phase_seconds);
  Status drawn = DrawSetOnDevice(task, seed, tensors, context.stream);
  if (drawn.ok()) drawn = KOPT_CUDA_STATUS(cudaStreamSynchronize(context.stream));
  if (auto failure = AsFailure(drawn, context.is_reference)) return failure;
  clock.Mark("draw");
  ScalarArguments scalars(task.scalars);
  if (auto failure = CallAndWait(*context.library, tensors, scalars, context.stream, context.is_reference)) {
    return failure;
  }
  clock.Mark("call");
  if (auto failure = CheckInputsUnchanged(context, task, tensors, seed)) return failure;
  clock.Mark("input_check");
  for (size_t tensor = 0; tensor < task.tensors.size(); ++tensor) {
    if (!task.tensors[tensor].IsWritten()) continue;
    Status sent = SendTensor(*context.sender, task, tensors, tensor, round, index, context.stream);
    if (auto failure = AsFailure(sent, context.is_reference)) return failure;
    event.tensors.push_back(task.tensors[tensor].name);
  }
  clock.Mark("send");
  context.events->Emit(event);
  return std::nullopt;
}

}  // namespace

std::optional<RunnerFailure> AsFailure(const Status& status, bool not_candidate) {
  if (status.ok()) return std::nullopt;
  RunnerFailure failure = FailureForStatus(status, FailureKind::kLaunchFailure);
  failure.not_candidate = not_candidate;
  if (not_candidate) failure.message = "the reference failed: " + failure.message;
  return failure;
}

uint64_t VariantSeed(const RunnerRequest& request, size_t variant_index) {
  uint64_t base = request.seeds.empty() ? 0 : request.seeds[variant_index % request.seeds.size()];
  return base ^ (0x9E3779B97F4A7C15ull * (variant_index + 1));
}

std::optional<RunnerFailure> RunCorrectnessRounds(const CheckContext& context, const RunnerRequest& request,
                                                  DeviceTensors& main_size) {
  for (size_t index = 0; index < request.seeds.size(); ++index) {
    if (auto failure = RunRound(context, request.task, main_size, request.seeds[index], "check",
                                static_cast<int64_t>(index))) {
      return failure;
    }
  }
  for (size_t index = 0; index < request.check_variants.size(); ++index) {
    RunnerTask resized = ApplyVariant(request.task, request.check_variants[index]);
    Result<std::unique_ptr<DeviceTensors>> tensors = DeviceTensors::Allocate(resized);
    if (!tensors.ok()) return AsFailure(tensors.status(), context.is_reference);
    if (auto failure = RunRound(context, resized, **tensors, VariantSeed(request, index), "variant",
                                static_cast<int64_t>(index))) {
      failure->message = fmt::format("size variant {}: {}", index, failure->message);
      return failure;
    }
  }
  return std::nullopt;
}

std::optional<RunnerFailure> RunFreshRound(const CheckContext& context, const RunnerTask& task,
                                           DeviceTensors& timed, uint64_t seed) {
  return RunRound(context, task, timed, seed, "fresh", 0);
}

Status SendTensor(FrameSender& sender, const RunnerTask& task, const DeviceTensors& tensors, size_t index,
                  const std::string& round, int64_t frame_index, cudaStream_t stream) {
  return sender.Send(FrameKey{round, frame_index, task.tensors[index].name}, tensors.Pointers()[index],
                     tensors.ByteCount(index), stream);
}

Status LaunchOnce(const KernelLibrary& library, const DeviceTensors& tensors, const ScalarArguments& scalars,
                  cudaStream_t stream) {
  library.Launch(tensors.Pointers(), scalars.Pointers(), stream);
  return CheckCudaResult(cudaGetLastError(), "cudaGetLastError() after kopt_launch", __FILE__, __LINE__);
}

}  // namespace kopt::runner
