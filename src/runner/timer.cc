// kopt-runner's timer: warm-up, L2 flush, gated samples with events and a
// device-wide bracket, NVML clock per sample, noise-based stopping.
#include "runner/timer.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "runner/cuda_check.h"

namespace kopt::runner {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void SleepSeconds(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

// Clears a tolerated CUDA failure: the runtime's last error (so the caller's
// cudaGetLastError after the next launch does not blame the candidate) and
// cuda_check's record of the failed call.
void ForgetToleratedCudaError() {
  (void)cudaGetLastError();
  (void)TakeLastCudaCallError();
}

constexpr int kEmptyCallSamples = 20;
constexpr int kWarmupLaunchesPerSync = 8;
constexpr double kClockReadIntervalSeconds = 0.001;
constexpr double kGateWatchdogSeconds = 1.0;
constexpr size_t kFallbackFlushBytes = size_t{256} << 20;   // when the device reports no L2 size
constexpr unsigned int kStreamWaitValueGreaterOrEqual = 0;  // CU_STREAM_WAIT_VALUE_GEQ
constexpr unsigned int kDriverApiVersion = 12000;           // cuStreamWaitValue32 as of CUDA 12.0 (_v2)

// A CUDA event that destroys itself.
class Event {
 public:
  Event() = default;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() {
    if (event_ != nullptr) (void)cudaEventDestroy(event_);  // teardown: nothing to report to
  }
  Status Create() { return KOPT_CUDA_STATUS(cudaEventCreate(&event_)); }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// A device buffer that frees itself.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (pointer_ != nullptr) (void)cudaFree(pointer_);  // teardown: nothing to report to
  }
  Status Allocate(size_t bytes) {
    bytes_ = bytes;
    return KOPT_CUDA_STATUS(cudaMalloc(&pointer_, bytes));
  }
  void* get() const { return pointer_; }
  size_t bytes() const { return bytes_; }

 private:
  void* pointer_ = nullptr;
  size_t bytes_ = 0;
};

// Holds a stream at a point until the host opens it: the stream waits, with
// cuStreamWaitValue32, for a host-mapped word to reach the gate's generation.
// While it waits, the host queues the start event, the launch and the stop
// event, so the timed interval starts with the kernel already queued (what
// nvbench's blocking kernel achieves, without compiling a kernel here).
class StreamGate {
 public:
  using WaitValue32 = int (*)(cudaStream_t stream, unsigned long long address, uint32_t value,
                              unsigned int flags);
  StreamGate() = default;
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;
  ~StreamGate() {
    if (host_word_ != nullptr) (void)cudaFreeHost(host_word_);  // teardown: nothing to report to
  }

  // Unavailable (tolerated: the caller times without the gate) when the
  // driver lacks stream memory operations; a failed allocation is an error.
  Status Create(cudaStream_t stream) {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;
    Status found = KOPT_CUDA_STATUS(cudaGetDriverEntryPointByVersion(
        "cuStreamWaitValue32", &function, kDriverApiVersion, cudaEnableDefault, &query));
    if (!found.ok() || query != cudaDriverEntryPointSuccess || function == nullptr) {
      ForgetToleratedCudaError();
      return Unavailable("the driver does not provide cuStreamWaitValue32");
    }
    wait_value_ = reinterpret_cast<WaitValue32>(function);
    KOPT_CUDA_CHECK(
        cudaHostAlloc(reinterpret_cast<void**>(&host_word_), sizeof(uint32_t), cudaHostAllocMapped));
    *host_word_ = 0;
    void* device_word = nullptr;
    KOPT_CUDA_CHECK(cudaHostGetDevicePointer(&device_word, host_word_, 0));
    device_address_ = reinterpret_cast<unsigned long long>(device_word);
    return SelfTest(stream);
  }

  // Queues the wait; the stream stops here until Open().
  Status Close(cudaStream_t stream) {
    ++generation_;
    int result = wait_value_(stream, device_address_, generation_, kStreamWaitValueGreaterOrEqual);
    if (result != 0) return WorkFailed(fmt::format("cuStreamWaitValue32 failed with CUresult {}", result));
    return Status::Ok();
  }
  // Lets the stream run past the last Close(). Safe from any thread; idempotent.
  void Open() { std::atomic_ref<uint32_t>(*host_word_).store(generation_, std::memory_order_release); }

 private:
  // One closed-then-opened gate on an idle stream must pass.
  Status SelfTest(cudaStream_t stream) {
    Status closed = Close(stream);
    Open();
    if (!closed.ok()) return Unavailable(closed.message());
    Status synchronized = KOPT_CUDA_STATUS(cudaStreamSynchronize(stream));
    if (!synchronized.ok()) {
      ForgetToleratedCudaError();
      return Unavailable("the stream gate did not open: " + synchronized.message());
    }
    return Status::Ok();
  }

  WaitValue32 wait_value_ = nullptr;
  uint32_t* host_word_ = nullptr;
  unsigned long long device_address_ = 0;
  uint32_t generation_ = 0;
};

// Work enqueued on the harness stream right after a sample's stop event.
using StageFunction = std::function<Status(cudaStream_t stream)>;

// One sample's times, in seconds.
struct RawSample {
  double event_seconds = 0;
  double device_wide_seconds = 0;
  double host_call_seconds = 0;  // the host's time inside the enqueue (the entry call)
  // start event to the end of the staging copy (= event_seconds without one): the stream's share of
  // the device-wide bracket, for the side-stream decision.
  double stream_seconds = 0;
  // The sample's time (timer.h): the host's time in the call beyond an
  // enqueue's grace runs before the stream may start (the gate holds it), so
  // it adds to the event time; and a sample is never shorter than the call.
  bool gated = false;  // the host call ran while the gate held the stream
  // Ungated (the candidate blocks inside its call: timer.h), host and stream overlap: the larger counts.
  double Seconds() const {
    return gated ? ChargedSampleSeconds(event_seconds, host_call_seconds)
                 : std::max(event_seconds, host_call_seconds);
  }
  bool HostCharged() const { return Seconds() > event_seconds; }
};

// Takes samples of "enqueue some work on the stream" the same way for the
// candidate and for the empty call.
class Sampler {
 public:
  Sampler(cudaStream_t stream, bool cold) : stream_(stream), cold_(cold) {}

  Status Prepare(int device, StreamGate* gate) {
    gate_ = gate;
    KOPT_RETURN_IF_ERROR(start_.Create());
    KOPT_RETURN_IF_ERROR(stop_.Create());
    KOPT_RETURN_IF_ERROR(staged_.Create());
    if (!cold_) return Status::Ok();
    int l2_bytes = 0;
    KOPT_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    size_t flush_bytes = l2_bytes > 0 ? static_cast<size_t>(l2_bytes) : kFallbackFlushBytes;
    return flush_.Allocate(flush_bytes);
  }
  void DisableGate() { gate_ = nullptr; }
  bool gated() const { return gate_ != nullptr; }

  // Evicts the inputs from L2 (cold mode) and waits, outside the timed bracket.
  Status FlushL2() {
    if (!cold_) return Status::Ok();
    KOPT_CUDA_CHECK(cudaMemsetAsync(flush_.get(), ++flush_value_ & 0xff, flush_.bytes(), stream_));
    KOPT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return Status::Ok();
  }

  // `stage`: enqueued right after the stop event (null: nothing).
  template <typename Enqueue>
  Result<RawSample> Take(Enqueue&& enqueue, const StageFunction* stage = nullptr) {
    KOPT_RETURN_IF_ERROR(FlushL2());
    // The device-wide bracket starts when the harness stream can first run:
    // at the gate's opening (the host's own launch cost, which differs between
    // a kernel launch and the empty call, stays outside), or without a gate
    // before the start event. Work the candidate put on other streams started
    // during its launch; whatever of it outlasts the gate's opening is counted.
    Clock::time_point begin = Clock::now();
    if (gate_ != nullptr) KOPT_RETURN_IF_ERROR(gate_->Close(stream_));
    double host_call_seconds = 0;
    Status queued = QueueBracket(enqueue, host_call_seconds, stage);
    if (gate_ != nullptr) {
      begin = Clock::now();
      gate_->Open();  // on every path: a closed gate would hang the stream
    }
    KOPT_RETURN_IF_ERROR(queued);
    KOPT_CUDA_CHECK(cudaDeviceSynchronize());
    RawSample sample;
    sample.device_wide_seconds = SecondsSince(begin);
    sample.host_call_seconds = host_call_seconds;
    sample.gated = gate_ != nullptr;
    float milliseconds = 0;
    KOPT_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start_.get(), stop_.get()));
    sample.event_seconds = milliseconds / 1000.0;
    sample.stream_seconds = sample.event_seconds;
    if (stage != nullptr && *stage) {
      KOPT_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start_.get(), staged_.get()));
      sample.stream_seconds = milliseconds / 1000.0;
    }
    return sample;
  }

 private:
  // Start event, the work, stop event, on the harness stream.
  template <typename Enqueue>
  Status QueueBracket(Enqueue& enqueue, double& host_call_seconds, const StageFunction* stage) {
    KOPT_CUDA_CHECK(cudaEventRecord(start_.get(), stream_));
    Clock::time_point call = Clock::now();
    Status enqueued = enqueue(stream_);
    host_call_seconds = SecondsSince(call);
    KOPT_RETURN_IF_ERROR(enqueued);
    KOPT_CUDA_CHECK(cudaEventRecord(stop_.get(), stream_));
    if (stage != nullptr && *stage) {
      KOPT_RETURN_IF_ERROR((*stage)(stream_));
      KOPT_CUDA_CHECK(cudaEventRecord(staged_.get(), stream_));
    }
    return Status::Ok();
  }

  cudaStream_t stream_;
  bool cold_;
  StreamGate* gate_ = nullptr;
  Event start_, stop_, staged_;
  DeviceBuffer flush_;
  int flush_value_ = 0;
};

// Whether the SM clock has ramped up: at least kWarmClockFraction of the
// maximum. Always false without NVML or when a read fails.
bool ClockIsWarm(const NvmlDevice* nvml, double max_clock_mhz) {
  if (nvml == nullptr || !(max_clock_mhz > 0)) return false;
  Result<double> mhz = nvml->SmClockMhz();
  return mhz.ok() && *mhz >= kWarmClockFraction * max_clock_mhz;
}

// Back-to-back launches for `seconds` of wall time (less once the clock is
// warm, see the header), rotating the input sets; a stream sync every few
// launches keeps the queue short. Returns the count.
Result<int64_t> WarmUp(const LaunchFunction& launch, const TimerContext& context, double seconds) {
  double max_clock_mhz = 0;
  if (context.nvml != nullptr) {
    Result<double> maximum = context.nvml->MaxSmClockMhz();
    if (maximum.ok()) max_clock_mhz = *maximum;
  }
  Clock::time_point start = Clock::now();
  Clock::time_point last_clock_read = start;
  int64_t launches = 0;
  while (launches == 0 || SecondsSince(start) < seconds) {
    KOPT_RETURN_IF_ERROR(launch(static_cast<int>(launches % context.input_sets), context.stream));
    if (++launches % kWarmupLaunchesPerSync != 0) continue;
    KOPT_CUDA_CHECK(cudaStreamSynchronize(context.stream));
    if (SecondsSince(start) >= kMinWarmupSeconds &&
        SecondsSince(last_clock_read) >= kClockReadIntervalSeconds) {
      last_clock_read = Clock::now();
      if (ClockIsWarm(context.nvml, max_clock_mhz)) break;
    }
  }
  KOPT_CUDA_CHECK(cudaDeviceSynchronize());
  return launches;
}

// Median device-wide minus median event time of an empty call (a 4-byte
// memset) bracketed like a sample: the bracket's fixed cost.
Result<double> MeasureEmptyCallOverhead(Sampler& sampler) {
  DeviceBuffer scratch;
  KOPT_RETURN_IF_ERROR(scratch.Allocate(sizeof(uint32_t)));
  std::vector<double> events, device_wide;
  for (int index = 0; index < kEmptyCallSamples; ++index) {
    KOPT_ASSIGN_OR_RETURN(RawSample sample, sampler.Take([&](cudaStream_t stream) {
      return KOPT_CUDA_STATUS(cudaMemsetAsync(scratch.get(), 0, sizeof(uint32_t), stream));
    }));
    events.push_back(sample.event_seconds);
    device_wide.push_back(sample.device_wide_seconds);
  }
  return Summarize(device_wide).median - Summarize(events).median;
}

// One gated launch of the candidate with a watchdog thread that opens the
// gate after kGateWatchdogSeconds. True when the launch returned by itself
// (the gate is safe for this candidate); false when it blocked on the host
// until the watchdog opened the gate (the candidate synchronizes inside its
// launch, which the ABI forbids; timing then goes on without the gate).
Result<bool> ProbeGatedLaunch(StreamGate& gate, const LaunchFunction& launch, cudaStream_t stream) {
  std::mutex mutex;
  std::condition_variable returned;
  bool done = false;
  bool fired = false;
  KOPT_RETURN_IF_ERROR(gate.Close(stream));
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(mutex);
    if (!returned.wait_for(lock, std::chrono::duration<double>(kGateWatchdogSeconds), [&] { return done; })) {
      fired = true;
      gate.Open();
    }
  });
  Status launched = launch(0, stream);
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  returned.notify_one();
  watchdog.join();
  gate.Open();
  KOPT_RETURN_IF_ERROR(launched);
  KOPT_CUDA_CHECK(cudaDeviceSynchronize());
  return !fired;
}

// The SM clock from NVML, read at most once per kClockReadIntervalSeconds
// (samples in between reuse the last reading). 0 when NVML is unavailable or
// a read failed (the first failure is kept in `note`).
class ClockReader {
 public:
  explicit ClockReader(const NvmlDevice* nvml) : nvml_(nvml) {}
  double Read(std::string& note) {
    if (nvml_ == nullptr || failed_) return 0;
    if (has_reading_ && SecondsSince(last_read_) < kClockReadIntervalSeconds) return last_mhz_;
    Result<double> mhz = nvml_->SmClockMhz();
    if (!mhz.ok()) {
      failed_ = true;
      note += (note.empty() ? "" : "; ") + ("SM clock not measured: " + mhz.status().message());
      return 0;
    }
    last_mhz_ = *mhz;
    last_read_ = Clock::now();
    has_reading_ = true;
    return last_mhz_;
  }

 private:
  const NvmlDevice* nvml_;
  bool failed_ = false;
  bool has_reading_ = false;
  double last_mhz_ = 0;
  Clock::time_point last_read_;
};

// The kept samples of step 3.
struct SampleSeries {
  // event_seconds: each kept sample's time (RawSample::Seconds); stream_event_seconds: its event time alone.
  std::vector<double> event_seconds, stream_event_seconds, device_wide_seconds, host_call_seconds, clock_mhz;
  int64_t host_bound_samples = 0;  // kept samples whose time the host call lengthened
  StopReason stop_reason = StopReason::kContinue;
  double wall_seconds = 0;
  int64_t samples_taken = 0;
};

Result<SampleSeries> SampleUntilStop(const LaunchFunction& launch, const TimerContext& context,
                                     const TimingRequest& request, Sampler& sampler, ThrottleFilter& throttle,
                                     ClockReader& clock, std::string& note) {
  NoiseStoppingRule rule(StoppingOptionsFrom(request));
  SampleSeries series;
  Clock::time_point start = Clock::now();
  int64_t attempt = 0;
  while ((series.stop_reason = rule.Check(SecondsSince(start))) == StopReason::kContinue) {
    int input_set = request.rotate_input_sets ? static_cast<int>(attempt % context.input_sets) : 0;
    int64_t sample_index = attempt++;
    StageFunction stage;
    if (context.stage_outputs) {
      stage = [&context, input_set](cudaStream_t stream) { return context.stage_outputs(input_set, stream); };
    }
    if (context.prepare_sample) {
      KOPT_RETURN_IF_ERROR(context.prepare_sample(input_set, context.stream));
      // Cold samples wait in the L2 flush; warm ones here, so the preparation
      // is never inside the device-wide bracket.
      if (!request.cold) KOPT_CUDA_CHECK(cudaStreamSynchronize(context.stream));
    }
    KOPT_ASSIGN_OR_RETURN(
        RawSample sample,
        sampler.Take([&](cudaStream_t stream) { return launch(input_set, stream); }, &stage));
    double mhz = clock.Read(note);
    ThrottleVerdict verdict = throttle.Observe(mhz);
    if (context.after_sample) {
      KOPT_RETURN_IF_ERROR(context.after_sample(sample_index, input_set, sample.Seconds(), verdict.keep));
    }
    if (!verdict.keep) {
      SleepSeconds(verdict.recovery_delay_seconds);
      continue;
    }
    series.event_seconds.push_back(sample.Seconds());
    series.stream_event_seconds.push_back(sample.stream_seconds);
    series.device_wide_seconds.push_back(sample.device_wide_seconds);
    series.host_call_seconds.push_back(sample.host_call_seconds);
    if (sample.HostCharged()) ++series.host_bound_samples;
    if (mhz > 0) series.clock_mhz.push_back(mhz);
    rule.AddSample(sample.Seconds());
  }
  series.wall_seconds = SecondsSince(start);
  series.samples_taken = attempt;
  if (series.event_seconds.empty()) {
    return WorkFailed(fmt::format("timing kept no sample in {:.2f} s: {} samples were discarded as throttled",
                                  series.wall_seconds, throttle.discarded()));
  }
  return series;
}

// Sets up the gate (tolerating its absence) and probes it with the candidate.
Status PrepareGate(const LaunchFunction& launch, const TimerContext& context, StreamGate& gate,
                   Sampler& sampler, TimingMeasurement& measurement) {
  Status created = gate.Create(context.stream);
  if (created.kind() == ErrorKind::kUnavailable) {
    measurement.note = "samples not gated: " + created.message();
    sampler.DisableGate();
    return Status::Ok();
  }
  KOPT_RETURN_IF_ERROR(created);
  KOPT_ASSIGN_OR_RETURN(bool safe, ProbeGatedLaunch(gate, launch, context.stream));
  if (!safe) {
    measurement.note = fmt::format(
        "samples not gated: the candidate's launch blocked the host for more than {} s while its stream was "
        "held (it synchronizes inside the entry point, which the ABI forbids)",
        kGateWatchdogSeconds);
    sampler.DisableGate();
  }
  return Status::Ok();
}

double Mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double sum = 0;
  for (double value : values) sum += value;
  return sum / static_cast<double>(values.size());
}

}  // namespace

StoppingOptions StoppingOptionsFrom(const TimingRequest& request) {
  StoppingOptions options;
  options.min_samples = request.min_samples;
  options.max_samples = request.max_samples;
  options.max_relative_stdev = request.max_relative_stdev;
  options.min_gpu_seconds = request.min_gpu_seconds;
  options.timeout_seconds = request.timeout_seconds;
  return options;
}

Result<TimingMeasurement> TimeCandidate(const LaunchFunction& launch, const TimerContext& context,
                                        const TimingRequest& request) {
  if (context.input_sets < 1) return Internal("TimeCandidate needs at least one input set");
  TimingMeasurement measurement;
  measurement.cold = request.cold;
  measurement.input_sets = request.rotate_input_sets ? context.input_sets : 1;
  Clock::time_point warmup_start = Clock::now();
  KOPT_ASSIGN_OR_RETURN(measurement.warmup_launches, WarmUp(launch, context, request.warmup_seconds));
  measurement.warmup_s = SecondsSince(warmup_start);

  Sampler sampler(context.stream, request.cold);
  StreamGate gate;
  KOPT_RETURN_IF_ERROR(sampler.Prepare(context.device, &gate));
  KOPT_RETURN_IF_ERROR(PrepareGate(launch, context, gate, sampler, measurement));
  measurement.blocked_launch = sampler.gated();
  KOPT_ASSIGN_OR_RETURN(measurement.empty_call_overhead_s, MeasureEmptyCallOverhead(sampler));

  ClockReader clock(context.nvml);
  if (context.nvml != nullptr) {
    Result<double> max_clock = context.nvml->MaxSmClockMhz();
    if (max_clock.ok()) measurement.sm_clock_max_mhz = *max_clock;
  }
  ThrottleFilter throttle(measurement.sm_clock_max_mhz);
  KOPT_ASSIGN_OR_RETURN(SampleSeries series, SampleUntilStop(launch, context, request, sampler, throttle,
                                                             clock, measurement.note));
  measurement.event = Summarize(series.event_seconds);
  measurement.stream_event_median_s = Summarize(series.stream_event_seconds).median;
  measurement.host_call_median_s = Summarize(series.host_call_seconds).median;
  measurement.host_bound_samples = series.host_bound_samples;
  measurement.device_wide = Summarize(series.device_wide_seconds);
  measurement.stop_reason = series.stop_reason;
  measurement.gpu_seconds = measurement.event.mean * static_cast<double>(measurement.event.count);
  measurement.sm_clock_mean_mhz = Mean(series.clock_mhz);
  measurement.throttled_samples_discarded = throttle.discarded();
  measurement.throttle_gave_up = throttle.gave_up();
  measurement.sampling_wall_s = series.wall_seconds;
  measurement.samples_taken = series.samples_taken;
  return measurement;
}

SideStreamDecision TimingMeasurement::SideStream() const {
  return DecideSideStream(stream_event_median_s, device_wide.median, empty_call_overhead_s);
}

TimingEvent TimingMeasurement::ToEvent() const {
  TimingEvent timing;
  timing.samples = event.count;
  timing.median_s = event.median;
  timing.q1_s = event.q1;
  timing.q3_s = event.q3;
  timing.mean_s = event.mean;
  timing.min_s = event.min;
  timing.max_s = event.max;
  timing.relative_stdev = event.relative_stdev;
  timing.gpu_seconds = gpu_seconds;
  timing.stop_reason = std::string(StopReasonName(stop_reason));
  timing.cold = cold;
  timing.input_sets = input_sets;
  timing.device_wide_median_s = device_wide.median;
  timing.sm_clock_mean_mhz = sm_clock_mean_mhz;
  timing.throttled_samples_discarded = throttled_samples_discarded;
  timing.verified = verified;
  timing.sampling_wall_s = sampling_wall_s;
  return timing;
}

nlohmann::json TimingMeasurement::ToJson() const {
  return nlohmann::json{
      {"event", "timing"},
      {"samples", event.count},
      {"median_s", event.median},
      {"q1_s", event.q1},
      {"q3_s", event.q3},
      {"iqr_s", event.iqr},
      {"mean_s", event.mean},
      {"min_s", event.min},
      {"max_s", event.max},
      {"stdev_s", event.stdev},
      {"relative_stdev", event.relative_stdev},
      {"gpu_seconds", gpu_seconds},
      {"stop_reason", StopReasonName(stop_reason)},
      {"cold", cold},
      {"input_sets", input_sets},
      {"device_wide_median_s", device_wide.median},
      {"sm_clock_mean_mhz", sm_clock_mean_mhz},
      {"sm_clock_max_mhz", sm_clock_max_mhz},
      {"throttled_samples_discarded", throttled_samples_discarded},
      {"throttle_gave_up", throttle_gave_up},
      {"empty_call_overhead_s", empty_call_overhead_s},
      {"warmup_s", warmup_s},
      {"warmup_launches", warmup_launches},
      {"sampling_wall_s", sampling_wall_s},
      {"blocked_launch", blocked_launch},
      {"samples_taken", samples_taken},
      {"stream_event_median_s", stream_event_median_s},
      {"host_call_median_s", host_call_median_s},
      {"host_bound_samples", host_bound_samples},
      {"verified", VerifiedToJson(verified)},
      {"note", note},
  };
}

}  // namespace kopt::runner
