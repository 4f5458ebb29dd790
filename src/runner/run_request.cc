#include "runner/run_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

#include "runner/correctness.h"
#include "runner/device_setup.h"
#include "runner/energy.h"
#include "runner/kernel_library.h"
#include "runner/timer.h"

namespace kopt::runner {
namespace {

constexpr int kMaxInputSets = 64;

// Emits the failure and `done`, then returns the exit code; a sticky
// failure ends the process here.
int Finish(EventSink& events, const std::optional<RunnerFailure>& failure) {
  if (failure) events.Emit(FailureEvent{failure->kind, failure->message, ""});
  events.Emit(DoneEvent{!failure.has_value()});
  int code = !failure ? kExitPassed : failure->not_candidate ? kExitNotCandidate : kExitCandidateFailed;
  if (failure && failure->sticky) {
    std::fflush(stdout);
    std::_Exit(code);
  }
  return code;
}

// Input sets for timing: enough copies that together they exceed twice the
// L2 size when rotation is asked for (so hot samples do not run from L2).
int InputSetCount(const RunnerRequest& request, int64_t l2_bytes) {
  if (!request.timing || !request.timing->rotate_input_sets) return 1;
  int64_t set_bytes = 0;
  for (const TensorDecl& tensor : request.task.tensors) set_bytes += tensor.ByteCount();
  if (set_bytes <= 0 || set_bytes >= 2 * l2_bytes) return 1;
  int64_t needed = (2 * l2_bytes + set_bytes - 1) / set_bytes;
  return static_cast<int>(std::min<int64_t>(needed, kMaxInputSets));
}

// The phases after the libraries are loaded; returns the failure, if any.
class Phases {
 public:
  Phases(const RunnerRequest& request, const DeviceSetup& device, const KernelLibrary& candidate,
         const KernelLibrary& reference, EventSink& events)
      : request_(request),
        device_(device),
        context_{&candidate, &reference, device.stream, &events, &round_buffers_},
        scalars_(request.task.scalars) {}

  std::optional<RunnerFailure> Run() {
    Result<MainSizeTensors> main_size = AllocateMainSize(request_.task);
    if (!main_size.ok()) return FailureForStatus(main_size.status(), FailureKind::kOutOfMemory);
    main_size_ = std::move(main_size).value();
    if (request_.check) {
      if (auto failure = RunCorrectnessRounds(context_, request_, main_size_)) return failure;
    }
    if (request_.timing || request_.energy) {
      if (auto failure = PrepareInputSets()) return failure;
    }
    if (request_.timing) {
      if (auto failure = Time()) return failure;
    }
    if (request_.energy) return MeasureEnergyPhase();
    return std::nullopt;
  }

 private:
  std::optional<RunnerFailure> PrepareInputSets() {
    int count = InputSetCount(request_, device_.event.l2_bytes);
    uint64_t base_seed = request_.seeds.empty() ? 1 : request_.seeds.front();
    Status filled = FillTensors(request_.task, base_seed, *main_size_.candidate, round_buffers_);
    if (!filled.ok()) return FailureForStatus(filled, FailureKind::kLaunchFailure);
    // The extra sets are device copies of the first: rotation is about where
    // the inputs live (not in L2), not their values, and copying 10 sets on
    // the device takes microseconds where drawing and uploading took ~50 ms.
    for (int index = 1; index < count; ++index) {
      Result<std::unique_ptr<DeviceTensors>> set = DeviceTensors::Allocate(request_.task);
      if (!set.ok()) return FailureForStatus(set.status(), FailureKind::kOutOfMemory);
      filled = (*set)->CopyFrom(*main_size_.candidate);
      if (!filled.ok()) return FailureForStatus(filled, FailureKind::kLaunchFailure);
      extra_sets_.push_back(std::move(set).value());
    }
    return std::nullopt;
  }

  const DeviceTensors& InputSet(int index) const {
    return index == 0 ? *main_size_.candidate : *extra_sets_[static_cast<size_t>(index - 1)];
  }

  LaunchFunction MakeLaunch() const {
    return [this](int input_set, cudaStream_t stream) {
      return LaunchOnce(*context_.candidate, InputSet(input_set), scalars_, stream);
    };
  }

  std::optional<RunnerFailure> Time() {
    TimerContext timer{device_.stream, device_.ordinal, 1 + static_cast<int>(extra_sets_.size()),
                       device_.nvml.get()};
    Result<TimingMeasurement> measurement = TimeCandidate(MakeLaunch(), timer, *request_.timing);
    if (!measurement.ok()) return FailureForStatus(measurement.status(), FailureKind::kLaunchFailure);
    context_.events->EmitJson(measurement->ToJson());
    seconds_per_launch_ = measurement->event.median;
    SideStreamDecision side_stream = measurement->SideStream();
    if (side_stream.escaped) {
      return RunnerFailure{
          FailureKind::kSideStream,
          DescribeSideStream(side_stream, measurement->event.median, measurement->device_wide.median)};
    }
    // Outputs of timed calls are re-checked: fresh inputs in the same buffers.
    uint64_t fresh_seed = (request_.seeds.empty() ? 0 : request_.seeds.back()) ^ 0x5DEECE66Dull;
    return CheckStaleOutput(context_, request_.task, *main_size_.candidate, *main_size_.reference,
                            fresh_seed);
  }

  std::optional<RunnerFailure> MeasureEnergyPhase() {
    EnergyContext energy{device_.stream, 1 + static_cast<int>(extra_sets_.size()), device_.nvml.get(),
                         device_.nvml_unavailable_reason, seconds_per_launch_};
    Result<EnergyMeasurement> measurement =
        MeasureEnergy(MakeLaunch(), energy, EnergyOptionsFrom(*request_.energy));
    if (!measurement.ok()) return FailureForStatus(measurement.status(), FailureKind::kLaunchFailure);
    context_.events->EmitJson(measurement->ToJson());
    return std::nullopt;
  }

  const RunnerRequest& request_;
  const DeviceSetup& device_;
  RoundBuffers round_buffers_;  // before context_, which points at it
  CheckContext context_;
  ScalarArguments scalars_;
  MainSizeTensors main_size_;
  std::vector<std::unique_ptr<DeviceTensors>> extra_sets_;
  double seconds_per_launch_ = 0;
};

std::optional<RunnerFailure> LoadFailure(const Status& status, const char* which, bool not_candidate) {
  RunnerFailure failure{FailureKind::kLoadError, fmt::format("{} library: {}", which, status.message())};
  failure.not_candidate = not_candidate;
  return failure;
}

}  // namespace

int RunRequest(const RunnerRequest& request, EventSink& events) {
  Result<DeviceSetup> device =
      SetUpDevice(request.device, request.timing.has_value() || request.energy.has_value());
  if (!device.ok()) {
    RunnerFailure failure = FailureForStatus(device.status(), FailureKind::kDeviceUnavailable);
    failure.not_candidate = failure.kind == FailureKind::kDeviceUnavailable;
    return Finish(events, failure);
  }
  events.Emit(device->event);
  Result<KernelLibrary> candidate = KernelLibrary::Load(request.candidate_library);
  if (!candidate.ok()) return Finish(events, LoadFailure(candidate.status(), "candidate", false));
  Result<KernelLibrary> reference = KernelLibrary::Load(request.reference_library);
  if (!reference.ok()) return Finish(events, LoadFailure(reference.status(), "reference", true));
  Phases phases(request, *device, *candidate, *reference, events);
  return Finish(events, phases.Run());
}

}  // namespace kopt::runner
