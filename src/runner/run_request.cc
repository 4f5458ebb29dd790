#include "runner/run_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "runner/correctness.h"
#include "runner/device_inputs.h"
#include "runner/device_setup.h"
#include "runner/energy.h"
#include "runner/kernel_library.h"
#include "runner/output_channel.h"
#include "runner/sample_staging.h"
#include "runner/timer.h"

namespace kopt::runner {
namespace {

constexpr int kMaxInputSets = 64;

// Emits the failure (a sandbox violation first) and `done`, then returns the
// exit code; a sticky failure ends the process here.
int Finish(EventSink& events, std::optional<RunnerFailure> failure) {
  // A call the sandbox denied is the candidate's doing, whatever followed it.
  if (std::optional<RunnerFailure> denied = SandboxFailure()) failure = std::move(denied);
  if (failure) events.Emit(FailureEvent{failure->kind, failure->message, ""});
  events.Emit(DoneEvent{!failure.has_value()});
  int code = !failure ? kExitPassed : failure->not_candidate ? kExitNotCandidate : kExitCandidateFailed;
  if (failure && failure->sticky) {
    std::fflush(stdout);
    std::_Exit(code);
  }
  return code;
}

// Input sets for timing: enough that together they exceed twice the L2 size
// when rotation is asked for (so hot samples do not run from L2). Every child
// of a run computes the same count (same request, same device).
int InputSetCount(const RunnerRequest& request, int64_t l2_bytes) {
  if (!request.timing || !request.timing->rotate_input_sets) return 1;
  int64_t set_bytes = 0;
  for (const TensorDecl& tensor : request.task.tensors) set_bytes += tensor.ByteCount();
  if (set_bytes <= 0 || set_bytes >= 2 * l2_bytes) return 1;
  int64_t needed = (2 * l2_bytes + set_bytes - 1) / set_bytes;
  return static_cast<int>(std::min<int64_t>(needed, kMaxInputSets));
}

// Device copies of a set's written tensors, allocated once, filled by an
// asynchronous copy on the harness stream.
class OutputSlot {
 public:
  OutputSlot() = default;
  OutputSlot(const OutputSlot&) = delete;
  OutputSlot& operator=(const OutputSlot&) = delete;
  ~OutputSlot() {
    for (void* pointer : pointers_) {
      if (pointer != nullptr) (void)cudaFree(pointer);  // teardown: nothing to report to
    }
  }
  Status Allocate(const RunnerTask& task, const DeviceTensors& set) {
    for (size_t index = 0; index < task.tensors.size(); ++index) {
      void* pointer = nullptr;
      if (task.tensors[index].IsWritten()) KOPT_CUDA_CHECK(cudaMalloc(&pointer, set.ByteCount(index)));
      pointers_.push_back(pointer);
      bytes_.push_back(set.ByteCount(index));
    }
    return Status::Ok();
  }
  // Copies that happen only when the sample's draw staged it (sample_staging.h).
  Status CopyIfStaged(const DeviceTensors& set, const uint32_t* device_flag, cudaStream_t stream) {
    for (size_t index = 0; index < pointers_.size(); ++index) {
      if (pointers_[index] == nullptr) continue;
      KOPT_CUDA_CHECK(
          LaunchCopyIfStaged(pointers_[index], set.Pointers()[index], bytes_[index], device_flag, stream));
    }
    return Status::Ok();
  }
  Status CopyFrom(const DeviceTensors& set, cudaStream_t stream) {
    for (size_t index = 0; index < pointers_.size(); ++index) {
      if (pointers_[index] == nullptr) continue;
      KOPT_CUDA_CHECK(cudaMemcpyAsync(pointers_[index], set.Pointers()[index], bytes_[index],
                                      cudaMemcpyDeviceToDevice, stream));
    }
    return Status::Ok();
  }
  Status Send(FrameSender& sender, const RunnerTask& task, int64_t frame_index, cudaStream_t stream) {
    for (size_t index = 0; index < pointers_.size(); ++index) {
      if (pointers_[index] == nullptr) continue;
      KOPT_RETURN_IF_ERROR(sender.Send(FrameKey{"timed", frame_index, task.tensors[index].name},
                                       pointers_[index], bytes_[index], stream));
    }
    return Status::Ok();
  }

 private:
  std::vector<void*> pointers_;
  std::vector<size_t> bytes_;
};

// Picks the verified timed samples so that no launch can know, or change,
// whether it is checked: a reservoir of verified_samples over all samples.
// Sample k (0-based) enters it with probability verified_samples / (k + 1),
// drawn on the GPU right after the sample's stop event, and its outputs are
// then copied aside in stream order, before the stream gate opens
// (TimerContext::stage_outputs, sample_staging.h): nothing the candidate
// launches once it sees the sample end comes first. After the sample, a
// host draw (std::random_device) picks which kept copy an entering one
// replaces. Every sample, the last ones included, ends up verified with the
// same probability verified_samples / samples, and about verified_samples *
// (1 + ln(samples / verified_samples)) copies are made in all.
class SampleVerifier {
 public:
  SampleVerifier(const RunnerTask& task, const TimingRequest& timing)
      : task_(task), wanted_(std::max(0, timing.verified_samples)) {}
  SampleVerifier(const SampleVerifier&) = delete;
  SampleVerifier& operator=(const SampleVerifier&) = delete;
  ~SampleVerifier() {
    if (flag_.device_flag != nullptr) (void)cudaFree(flag_.device_flag);  // teardown: nothing to report to
    if (host_flag_ != nullptr) (void)cudaFreeHost(host_flag_);
  }

  // Allocates the staging copy, the kept slots (sets are all alike) and the draw's flag.
  Status Prepare(const DeviceTensors& any_set) {
    if (wanted_ == 0) return Status::Ok();
    KOPT_CUDA_CHECK(LoadStagingKernels());  // not first inside a gated sample: sample_staging.h
    for (int slot = 0; slot <= wanted_; ++slot) {
      auto copy = std::make_unique<OutputSlot>();
      KOPT_RETURN_IF_ERROR(copy->Allocate(task_, any_set));
      (slot == 0 ? staging_ : slots_.emplace_back()) = std::move(copy);
    }
    KOPT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&flag_.device_flag), sizeof(uint32_t)));
    KOPT_CUDA_CHECK(
        cudaHostAlloc(reinterpret_cast<void**>(&host_flag_), sizeof(uint32_t), cudaHostAllocMapped));
    *host_flag_ = 0;
    KOPT_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&flag_.host_flag), host_flag_, 0));
    return Status::Ok();
  }

  // Enqueued right after the sample's stop event.
  Status Stage(const DeviceTensors& set, cudaStream_t stream) {
    if (!staging_) return Status::Ok();
    double probability = static_cast<double>(wanted_) / static_cast<double>(++staged_calls_);
    uint64_t salt = (static_cast<uint64_t>(random_()) << 32) ^ random_();
    KOPT_CUDA_CHECK(LaunchStagingDraw(probability, salt, flag_, stream));
    return staging_->CopyIfStaged(set, flag_.device_flag, stream);
  }

  // With the device idle (the draw and the copy are done).
  void AfterSample(int64_t sample, int set, double seconds, bool kept, const DeviceTensors& tensors) {
    if (!kept || wanted_ == 0) return;
    last_ = VerifiedSample{sample, set, seconds};
    last_tensors_ = &tensors;
    if (*static_cast<volatile uint32_t*>(host_flag_) == 0) return;
    size_t slot = verified_.size();
    if (slot < static_cast<size_t>(wanted_)) {
      verified_.emplace_back();
    } else {
      slot = static_cast<size_t>(std::uniform_int_distribution<int>(0, wanted_ - 1)(random_));
    }
    std::swap(staging_, slots_[slot]);
    verified_[slot] = VerifiedSample{sample, set, seconds};
  }

  // After sampling: the frames ("timed", j) of verified()[j]. When no kept
  // sample was staged (the first ones were discarded as throttled), the last
  // kept sample's outputs, still in its set's tensors.
  Status Finish(FrameSender& sender, cudaStream_t stream) {
    if (verified_.empty() && wanted_ > 0 && last_tensors_ != nullptr) {
      KOPT_RETURN_IF_ERROR(slots_[0]->CopyFrom(*last_tensors_, stream));
      KOPT_CUDA_CHECK(cudaStreamSynchronize(stream));
      verified_.push_back(last_);
    }
    for (size_t index = 0; index < verified_.size(); ++index) {
      KOPT_RETURN_IF_ERROR(slots_[index]->Send(sender, task_, static_cast<int64_t>(index), stream));
    }
    return Status::Ok();
  }
  const std::vector<VerifiedSample>& verified() const { return verified_; }

 private:
  const RunnerTask& task_;
  int wanted_;
  int64_t staged_calls_ = 0;
  std::random_device random_;
  std::unique_ptr<OutputSlot> staging_;
  std::vector<std::unique_ptr<OutputSlot>> slots_;
  StagingFlag flag_;
  uint32_t* host_flag_ = nullptr;
  VerifiedSample last_;
  const DeviceTensors* last_tensors_ = nullptr;
  std::vector<VerifiedSample> verified_;
};

// The phases after the library is loaded; returns the failure, if any.
class Phases {
 public:
  Phases(const RunnerRequest& request, const DeviceSetup& device, const KernelLibrary& library,
         OutputChannel& channel, EventSink& events)
      : request_(request),
        device_(device),
        sender_(channel),
        context_{&library, request.role == RunnerRole::kReference, device.stream, &events, &sender_},
        scalars_(request.task.scalars) {}

  std::optional<RunnerFailure> Run() {
    Result<std::unique_ptr<DeviceTensors>> main_size = DeviceTensors::Allocate(request_.task);
    if (!main_size.ok()) return Failure(main_size.status(), FailureKind::kOutOfMemory);
    main_size_ = std::move(main_size).value();
    if (request_.check) {
      if (auto failure = RunCorrectnessRounds(context_, request_, *main_size_)) return failure;
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
  std::optional<RunnerFailure> Failure(const Status& status, FailureKind fallback) const {
    RunnerFailure failure = FailureForStatus(status, fallback);
    if (context_.is_reference) {
      failure.not_candidate = true;
      failure.message = "the reference failed: " + failure.message;
    }
    return failure;
  }

  uint64_t SetSeed(int set) const { return TimingSetSeed(request_.timing_seed, set); }

  // K sets, each drawn on the device from its own seed; a reference child
  // also runs its library once per set and sends the outputs ("set", k): the
  // expected outputs of every candidate's verified timed samples.
  std::optional<RunnerFailure> PrepareInputSets() {
    int count = InputSetCount(request_, device_.event.l2_bytes);
    for (int index = 1; index < count; ++index) {
      Result<std::unique_ptr<DeviceTensors>> set = DeviceTensors::Allocate(request_.task);
      if (!set.ok()) return Failure(set.status(), FailureKind::kOutOfMemory);
      extra_sets_.push_back(std::move(set).value());
    }
    for (int index = 0; index < count; ++index) {
      Status drawn = DrawSetOnDevice(request_.task, SetSeed(index), InputSet(index), device_.stream);
      if (!drawn.ok()) return Failure(drawn, FailureKind::kLaunchFailure);
    }
    Status synchronized = KOPT_CUDA_STATUS(cudaStreamSynchronize(device_.stream));
    if (!synchronized.ok()) return Failure(synchronized, FailureKind::kLaunchFailure);
    if (!context_.is_reference || !request_.timing) return std::nullopt;
    for (int index = 0; index < count; ++index) {
      Status ran = LaunchOnce(*context_.library, InputSet(index), scalars_, device_.stream);
      if (ran.ok()) ran = KOPT_CUDA_STATUS(cudaDeviceSynchronize());
      for (size_t tensor = 0; ran.ok() && tensor < request_.task.tensors.size(); ++tensor) {
        if (!request_.task.tensors[tensor].IsWritten()) continue;
        ran = SendTensor(sender_, request_.task, InputSet(index), tensor, "set", index, device_.stream);
      }
      if (!ran.ok()) return Failure(ran, FailureKind::kLaunchFailure);
      OutputsEvent event;
      event.round = "set";
      event.index = index;
      event.seed = SetSeed(index);
      for (const TensorDecl& tensor : request_.task.tensors) {
        if (tensor.IsWritten()) event.tensors.push_back(tensor.name);
      }
      context_.events->Emit(event);
    }
    return std::nullopt;
  }

  DeviceTensors& InputSet(int index) const {
    return index == 0 ? *main_size_ : *extra_sets_[static_cast<size_t>(index - 1)];
  }
  int SetCount() const { return 1 + static_cast<int>(extra_sets_.size()); }

  LaunchFunction MakeLaunch() const {
    return [this](int input_set, cudaStream_t stream) {
      return LaunchOnce(*context_.library, InputSet(input_set), scalars_, stream);
    };
  }

  std::optional<RunnerFailure> Time() {
    SampleVerifier verifier(request_.task, *request_.timing);
    TimerContext timer;
    timer.stream = device_.stream;
    timer.device = device_.ordinal;
    timer.input_sets = SetCount();
    timer.nvml = device_.nvml.get();
    timer.prepare_sample = [this](int set, cudaStream_t stream) {
      return PrepareSetForSample(request_.task, SetSeed(set), InputSet(set), stream);
    };
    Status prepared = verifier.Prepare(InputSet(0));
    if (!prepared.ok()) return Failure(prepared, FailureKind::kOutOfMemory);
    timer.stage_outputs = [&](int set, cudaStream_t stream) { return verifier.Stage(InputSet(set), stream); };
    timer.after_sample = [&](int64_t sample, int set, double seconds, bool kept) {
      verifier.AfterSample(sample, set, seconds, kept, InputSet(set));
      return Status::Ok();
    };
    Result<TimingMeasurement> measurement = TimeCandidate(MakeLaunch(), timer, *request_.timing);
    if (!measurement.ok()) return Failure(measurement.status(), FailureKind::kLaunchFailure);
    Status sent = verifier.Finish(sender_, device_.stream);
    if (!sent.ok()) return Failure(sent, FailureKind::kLaunchFailure);
    measurement->verified = verifier.verified();
    context_.events->EmitJson(measurement->ToJson());
    seconds_per_launch_ = measurement->event.median;
    SideStreamDecision side_stream = measurement->SideStream();
    if (side_stream.escaped) {
      return RunnerFailure{FailureKind::kSideStream,
                           DescribeSideStream(side_stream, measurement->stream_event_median_s,
                                              measurement->device_wide.median)};
    }
    // Outputs of timed calls are checked again by the parent: fresh inputs in the same buffers.
    return RunFreshRound(context_, request_.task, *main_size_, request_.fresh_seed);
  }

  std::optional<RunnerFailure> MeasureEnergyPhase() {
    EnergyContext energy{device_.stream, SetCount(), device_.nvml.get(), device_.nvml_unavailable_reason,
                         seconds_per_launch_};
    Result<EnergyMeasurement> measurement =
        MeasureEnergy(MakeLaunch(), energy, EnergyOptionsFrom(*request_.energy));
    if (!measurement.ok()) return Failure(measurement.status(), FailureKind::kLaunchFailure);
    context_.events->EmitJson(measurement->ToJson());
    return std::nullopt;
  }

  const RunnerRequest& request_;
  const DeviceSetup& device_;
  FrameSender sender_;  // before context_, which points at it
  CheckContext context_;
  ScalarArguments scalars_;
  std::unique_ptr<DeviceTensors> main_size_;
  std::vector<std::unique_ptr<DeviceTensors>> extra_sets_;
  double seconds_per_launch_ = 0;
};

std::optional<RunnerFailure> LoadFailure(const Status& status, const char* which, bool not_candidate) {
  RunnerFailure failure{FailureKind::kLoadError, fmt::format("{} library: {}", which, status.message())};
  failure.not_candidate = not_candidate;
  return failure;
}

}  // namespace

int RunRequest(const RunnerRequest& request, EventSink& events, SandboxMode sandbox) {
  // Before the device is set up: Landlock binds only the threads created
  // after it (sandbox_stages.h, stage 0).
  Status writes_restricted = RestrictRunnerFileWrites(sandbox);
  if (!writes_restricted.ok())
    std::fprintf(stderr, "kopt-runner: file writes not restricted: %s\n",
                 writes_restricted.message().c_str());
  // The output channel first: before any library is loaded, the descriptor
  // moves out of the low numbers a candidate would write to by accident.
  OutputChannel channel(request.output_fd, request.output_channel);
  Result<DeviceSetup> device =
      SetUpDevice(request.device, request.timing.has_value() || request.energy.has_value());
  if (!device.ok()) {
    RunnerFailure failure = FailureForStatus(device.status(), FailureKind::kDeviceUnavailable);
    failure.not_candidate = failure.kind == FailureKind::kDeviceUnavailable;
    if (sandbox != SandboxMode::kOff && writes_restricted.ok() && !failure.not_candidate)
      failure.message += SandboxSetupHint();
    return Finish(events, failure);
  }
  events.Emit(device->event);
  // Everything the runner needs is set up: from here on, candidate code may run.
  Status sandboxed = EnterSandbox(sandbox);
  if (!sandboxed.ok()) std::fprintf(stderr, "kopt-runner: no sandbox: %s\n", sandboxed.message().c_str());
  // One library per child: a candidate child never loads the reference (its
  // outputs are the expected ones) and a reference child never loads a candidate.
  bool reference = request.role == RunnerRole::kReference;
  const std::string& path = reference ? request.reference_library : request.candidate_library;
  Result<KernelLibrary> library = KernelLibrary::Load(path);
  if (!library.ok()) {
    return Finish(events, LoadFailure(library.status(), reference ? "reference" : "candidate", reference));
  }
  if (sandboxed.ok()) {
    Status locked = LockExecutableMemory(sandbox);
    if (!locked.ok())
      std::fprintf(stderr, "kopt-runner: executable memory not locked: %s\n", locked.message().c_str());
  }
  Phases phases(request, *device, *library, channel, events);
  return Finish(events, phases.Run());
}

}  // namespace kopt::runner
