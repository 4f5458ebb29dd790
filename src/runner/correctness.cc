#include "runner/correctness.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <utility>

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

// Inputs and inouts from `contents`, outputs poisoned on the device.
Status LoadTensors(const RunnerTask& task, const std::vector<std::vector<std::byte>>& contents,
                   DeviceTensors& tensors) {
  for (size_t index = 0; index < task.tensors.size(); ++index) {
    KOPT_RETURN_IF_ERROR(task.tensors[index].role == TensorRole::kOutput
                             ? tensors.Fill(index, kPoisonByte)
                             : tensors.Upload(index, contents[index]));
  }
  return Status::Ok();
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
                                                  std::vector<std::byte>& after, bool is_reference) {
  for (size_t index = 0; index < task.tensors.size(); ++index) {
    if (task.tensors[index].role != TensorRole::kInput) continue;
    if (auto failure = AsFailure(tensors.DownloadInto(index, after), is_reference)) return failure;
    if (auto failure = CompareInput(task.tensors[index], contents[index], after)) {
      if (is_reference) {
        failure->not_candidate = true;
        failure->message = "the reference failed: " + failure->message;
      }
      return failure;
    }
  }
  return std::nullopt;
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

// Steps 1-4 of a round (see the header).
std::optional<RunnerFailure> RunRound(const CheckContext& context, const RunnerTask& task,
                                      DeviceTensors& tensors, uint64_t seed, const std::string& round,
                                      int64_t index) {
  OutputsEvent event;
  event.round = round;
  event.index = index;
  event.seed = seed;
  StepClock clock(event.phase_seconds);
  RoundBuffers& buffers = *context.buffers;
  DrawInputs(task, seed, buffers.contents);
  clock.Mark("generate");
  ScalarArguments scalars(task.scalars);
  if (auto failure = AsFailure(LoadTensors(task, buffers.contents, tensors), context.is_reference))
    return failure;
  clock.Mark("prepare");
  if (auto failure = CallAndWait(*context.library, tensors, scalars, context.stream, context.is_reference)) {
    return failure;
  }
  clock.Mark("call");
  if (auto failure = CheckInputsUnchanged(task, tensors, buffers.contents, buffers.input_after_call,
                                          context.is_reference)) {
    return failure;
  }
  clock.Mark("input_check");
  for (size_t tensor = 0; tensor < task.tensors.size(); ++tensor) {
    if (!task.tensors[tensor].IsWritten()) continue;
    Status sent = SendTensor(*context.channel, task, tensors, tensor, round, index, buffers.written);
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

Status SendTensor(OutputChannel& channel, const RunnerTask& task, const DeviceTensors& tensors, size_t index,
                  const std::string& round, int64_t frame_index, std::vector<std::byte>& buffer) {
  KOPT_RETURN_IF_ERROR(tensors.DownloadInto(index, buffer));
  return channel.Send(FrameKey{round, frame_index, task.tensors[index].name}, buffer);
}

Status LaunchOnce(const KernelLibrary& library, const DeviceTensors& tensors, const ScalarArguments& scalars,
                  cudaStream_t stream) {
  library.Launch(tensors.Pointers(), scalars.Pointers(), stream);
  return CheckCudaResult(cudaGetLastError(), "cudaGetLastError() after kopt_launch", __FILE__, __LINE__);
}

}  // namespace kopt::runner
