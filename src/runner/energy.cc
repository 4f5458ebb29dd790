// kopt-runner's energy meter: NVML energy counter over edge-aligned windows
// of back-to-back launches, idle power, field-186 cross-check.
#include "runner/energy.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <utility>

#include "runner/cuda_check.h"

namespace kopt::runner {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kCounterPollSeconds = 0.0005;
constexpr double kCounterEdgeTimeoutSeconds = 1.0;  // the counter updates about every 0.1 s
constexpr double kPowerSampleIntervalSeconds = 0.01;
constexpr int kEstimateLaunches = 10;
constexpr int64_t kMaxLaunchesPerBatch = int64_t{1} << 20;
constexpr double kMillijoulesPerJoule = 1000;

double SecondsBetween(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

double SecondsSince(Clock::time_point start) {
  return SecondsBetween(start, Clock::now());
}

// A reading of the cumulative energy counter and when the host took it.
struct CounterReading {
  uint64_t millijoules = 0;
  Clock::time_point time;
  int64_t launches_completed = 0;  // of the pipeline, at the reading
};

// A pair of CUDA events that destroy themselves.
class EventPair {
 public:
  EventPair() = default;
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  ~EventPair() {
    for (cudaEvent_t event : events_) {
      if (event != nullptr) (void)cudaEventDestroy(event);  // teardown: nothing to report to
    }
  }
  Status Create() {
    for (cudaEvent_t& event : events_) KOPT_CUDA_CHECK(cudaEventCreate(&event));
    return Status::Ok();
  }
  cudaEvent_t operator[](int index) const { return events_[index]; }

 private:
  cudaEvent_t events_[2] = {nullptr, nullptr};
};

// Back-to-back launches in two alternating batches: Step() queues the next
// batch, then waits for the previous one, so one batch is always queued
// while the host reads NVML.
class LaunchPipeline {
 public:
  LaunchPipeline(const LaunchFunction& launch, cudaStream_t stream, int input_sets, int64_t batch)
      : launch_(launch), stream_(stream), input_sets_(input_sets), batch_(batch) {}

  Status Start() {
    KOPT_RETURN_IF_ERROR(done_.Create());
    current_ = 0;
    return EnqueueBatch(current_);
  }
  Status Step() {
    KOPT_RETURN_IF_ERROR(EnqueueBatch(1 - current_));
    KOPT_CUDA_CHECK(cudaEventSynchronize(done_[current_]));
    completed_ += batch_;
    current_ = 1 - current_;
    return Status::Ok();
  }
  Status Drain() {
    KOPT_CUDA_CHECK(cudaEventSynchronize(done_[current_]));
    completed_ += batch_;
    return Status::Ok();
  }
  int64_t completed() const { return completed_; }

 private:
  Status EnqueueBatch(int slot) {
    for (int64_t index = 0; index < batch_; ++index) {
      KOPT_RETURN_IF_ERROR(launch_(static_cast<int>(next_launch_ % input_sets_), stream_));
      ++next_launch_;
    }
    KOPT_CUDA_CHECK(cudaEventRecord(done_[slot], stream_));
    return Status::Ok();
  }

  const LaunchFunction& launch_;
  cudaStream_t stream_;
  int input_sets_;
  int64_t batch_;
  EventPair done_;
  int current_ = 0;
  int64_t next_launch_ = 0;
  int64_t completed_ = 0;
};

// One energy measurement. NVML failures are remembered in nvml_problem_ (the
// caller turns them into "unavailable"); CUDA failures are returned as they
// are.
class EnergyRun {
 public:
  EnergyRun(const LaunchFunction& launch, const EnergyContext& context, const EnergyOptions& options)
      : launch_(launch), context_(context), options_(options), nvml_(*context.nvml) {}

  Result<EnergyMeasurement> Run();
  const std::string& nvml_problem() const { return nvml_problem_; }

 private:
  Status NvmlFailed(const Status& status) {
    nvml_problem_ = status.message();
    return status;
  }
  Result<uint64_t> ReadCounter();
  Result<CounterReading> WaitForEdge(LaunchPipeline* pipeline);
  Result<double> MeasureIdleWatts();
  Result<double> EstimateSecondsPerLaunch();
  Result<EnergyWindow> MeasureWindow(LaunchPipeline& pipeline);
  void SamplePower(EnergyWindow& window, Clock::time_point& last_sample);
  double Temperature();

  const LaunchFunction& launch_;
  const EnergyContext& context_;
  const EnergyOptions& options_;
  const NvmlDevice& nvml_;
  std::string nvml_problem_;
  bool power_failed_ = false;
};

Result<uint64_t> EnergyRun::ReadCounter() {
  Result<uint64_t> millijoules = nvml_.TotalEnergyMillijoules();
  if (!millijoules.ok()) return NvmlFailed(millijoules.status());
  return millijoules;
}

// Waits for the next update of the counter: by polling (GPU idle) or, with a
// pipeline, by stepping it (GPU busy). The reading's time is when the host
// saw the change.
Result<CounterReading> EnergyRun::WaitForEdge(LaunchPipeline* pipeline) {
  KOPT_ASSIGN_OR_RETURN(uint64_t before, ReadCounter());
  Clock::time_point start = Clock::now();
  while (true) {
    if (pipeline != nullptr) {
      KOPT_RETURN_IF_ERROR(pipeline->Step());
    } else {
      std::this_thread::sleep_for(std::chrono::duration<double>(kCounterPollSeconds));
    }
    KOPT_ASSIGN_OR_RETURN(uint64_t now, ReadCounter());
    if (now != before) {
      return CounterReading{now, Clock::now(), pipeline != nullptr ? pipeline->completed() : 0};
    }
    if (SecondsSince(start) > kCounterEdgeTimeoutSeconds) {
      return NvmlFailed(
          Unavailable(fmt::format("the NVML energy counter did not change within {} s (it stayed at {} mJ)",
                                  kCounterEdgeTimeoutSeconds, before)));
    }
  }
}

Result<double> EnergyRun::MeasureIdleWatts() {
  KOPT_CUDA_CHECK(cudaDeviceSynchronize());
  KOPT_ASSIGN_OR_RETURN(CounterReading start, WaitForEdge(nullptr));
  std::this_thread::sleep_for(std::chrono::duration<double>(options_.idle_seconds));
  KOPT_ASSIGN_OR_RETURN(CounterReading end, WaitForEdge(nullptr));
  double joules = static_cast<double>(end.millijoules - start.millijoules) / kMillijoulesPerJoule;
  return IdleWatts(joules, SecondsBetween(start.time, end.time));
}

Result<double> EnergyRun::EstimateSecondsPerLaunch() {
  if (context_.seconds_per_launch_estimate > 0) return context_.seconds_per_launch_estimate;
  EventPair events;
  KOPT_RETURN_IF_ERROR(events.Create());
  KOPT_CUDA_CHECK(cudaEventRecord(events[0], context_.stream));
  for (int index = 0; index < kEstimateLaunches; ++index) {
    KOPT_RETURN_IF_ERROR(launch_(index % context_.input_sets, context_.stream));
  }
  KOPT_CUDA_CHECK(cudaEventRecord(events[1], context_.stream));
  KOPT_CUDA_CHECK(cudaEventSynchronize(events[1]));
  float milliseconds = 0;
  KOPT_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, events[0], events[1]));
  return std::max(milliseconds / 1000.0 / kEstimateLaunches, 1e-7);
}

void EnergyRun::SamplePower(EnergyWindow& window, Clock::time_point& last_sample) {
  if (power_failed_ || SecondsSince(last_sample) < kPowerSampleIntervalSeconds) return;
  Result<double> watts = nvml_.InstantPowerWatts();
  last_sample = Clock::now();
  if (!watts.ok()) {
    power_failed_ = true;  // a cross-check only: the counter still gives the energy
    return;
  }
  window.instant_power_watts_sum += *watts;
  ++window.power_samples;
}

// From one counter update to the first update after window_seconds.
Result<EnergyWindow> EnergyRun::MeasureWindow(LaunchPipeline& pipeline) {
  KOPT_ASSIGN_OR_RETURN(CounterReading start, WaitForEdge(&pipeline));
  EnergyWindow window;
  Clock::time_point last_power_sample = Clock::now() - std::chrono::seconds(1);
  while (SecondsSince(start.time) < options_.window_seconds) {
    KOPT_RETURN_IF_ERROR(pipeline.Step());
    SamplePower(window, last_power_sample);
  }
  KOPT_ASSIGN_OR_RETURN(CounterReading end, WaitForEdge(&pipeline));
  window.joules = static_cast<double>(end.millijoules - start.millijoules) / kMillijoulesPerJoule;
  window.seconds = SecondsBetween(start.time, end.time);
  window.launches = end.launches_completed - start.launches_completed;
  return window;
}

double EnergyRun::Temperature() {
  Result<double> celsius = nvml_.TemperatureCelsius();
  return celsius.ok() ? *celsius : 0;
}

Result<EnergyMeasurement> EnergyRun::Run() {
  EnergyMeasurement measurement;
  measurement.temperature_before_c = Temperature();
  KOPT_ASSIGN_OR_RETURN(double idle_watts, MeasureIdleWatts());
  KOPT_ASSIGN_OR_RETURN(double seconds_per_launch, EstimateSecondsPerLaunch());
  measurement.launches_per_batch = std::clamp<int64_t>(
      static_cast<int64_t>(std::ceil(options_.batch_seconds / seconds_per_launch)), 1, kMaxLaunchesPerBatch);
  LaunchPipeline pipeline(launch_, context_.stream, context_.input_sets, measurement.launches_per_batch);
  KOPT_RETURN_IF_ERROR(pipeline.Start());
  Clock::time_point warmup_start = Clock::now();
  while (SecondsSince(warmup_start) < options_.warmup_seconds) KOPT_RETURN_IF_ERROR(pipeline.Step());
  for (int index = 0; index < options_.windows; ++index) {
    KOPT_ASSIGN_OR_RETURN(EnergyWindow window, MeasureWindow(pipeline));
    measurement.windows.push_back(window);
  }
  KOPT_RETURN_IF_ERROR(pipeline.Drain());
  KOPT_CUDA_CHECK(cudaDeviceSynchronize());
  measurement.temperature_after_c = Temperature();
  Result<EnergySummary> summary = SummarizeEnergy(idle_watts, measurement.windows);
  if (!summary.ok()) return NvmlFailed(summary.status());
  measurement.summary = *summary;
  measurement.available = true;
  return measurement;
}

}  // namespace

EnergyOptions EnergyOptionsFrom(const EnergyRequest& request) {
  EnergyOptions options;
  if (request.window_seconds > 0) options.window_seconds = request.window_seconds;
  if (request.idle_seconds > 0) options.idle_seconds = request.idle_seconds;
  return options;
}

EnergyMeasurement EnergyUnavailable(std::string reason) {
  EnergyMeasurement measurement;
  measurement.available = false;
  measurement.reason = std::move(reason);
  return measurement;
}

Result<EnergyMeasurement> MeasureEnergy(const LaunchFunction& launch, const EnergyContext& context,
                                        const EnergyOptions& options) {
  if (context.nvml == nullptr) {
    return EnergyUnavailable(context.nvml_unavailable_reason.empty() ? "NVML unavailable"
                                                                     : context.nvml_unavailable_reason);
  }
  if (context.input_sets < 1) return Internal("MeasureEnergy needs at least one input set");
  EnergyRun run(launch, context, options);
  Result<EnergyMeasurement> measurement = run.Run();
  if (!measurement.ok() && !run.nvml_problem().empty()) {
    // Let the launches already queued finish before reporting.
    KOPT_CUDA_CHECK(cudaDeviceSynchronize());
    return EnergyUnavailable(run.nvml_problem());
  }
  return measurement;
}

EnergyEvent EnergyMeasurement::ToEvent() const {
  EnergyEvent event;
  event.available = available;
  event.reason = reason;
  event.joules_per_launch = summary.joules_per_launch;
  event.joules_per_launch_stdev = summary.joules_per_launch_stdev;
  event.dynamic_joules_per_launch = summary.dynamic_joules_per_launch;
  event.idle_watts = summary.idle_watts;
  event.mean_watts = summary.mean_watts;
  event.power_sample_watts = summary.power_sample_watts;
  event.windows = summary.windows;
  event.launches_per_window = summary.launches_per_window;
  return event;
}

nlohmann::json EnergyMeasurement::ToJson() const {
  nlohmann::json json{{"event", "energy"}, {"available", available}};
  if (!available) {
    json["reason"] = reason;
    return json;
  }
  nlohmann::json window_seconds = nlohmann::json::array();
  for (const EnergyWindow& window : windows) window_seconds.push_back(window.seconds);
  json.update(nlohmann::json{
      {"joules_per_launch", summary.joules_per_launch},
      {"joules_per_launch_stdev", summary.joules_per_launch_stdev},
      {"dynamic_joules_per_launch", summary.dynamic_joules_per_launch},
      {"idle_watts", summary.idle_watts},
      {"mean_watts", summary.mean_watts},
      {"power_sample_watts", summary.power_sample_watts},
      {"windows", summary.windows},
      {"launches_per_window", summary.launches_per_window},
      {"launches_per_batch", launches_per_batch},
      {"window_seconds", window_seconds},
      {"temperature_before_c", temperature_before_c},
      {"temperature_after_c", temperature_after_c},
  });
  return json;
}

}  // namespace kopt::runner
