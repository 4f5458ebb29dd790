#include "measure/child_outcome.h"

#include <fmt/format.h>

#include <algorithm>

namespace kopt {
namespace {

std::string LastLines(const std::string& text, size_t max_bytes = 400) {
  std::string tail = text.size() > max_bytes ? "..." + text.substr(text.size() - max_bytes) : text;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  return tail;
}

std::string Notes(const RunnerEvents& events, const CommandResult& result) {
  std::string detail;
  if (events.malformed_lines > 0) {
    detail += std::to_string(events.malformed_lines) + " malformed output line(s):";
    for (const std::string& note : events.malformed) detail += " [" + note + "]";
  }
  if (result.output_truncated) detail += (detail.empty() ? "" : "; ") + std::string("output truncated");
  if (!result.stderr_text.empty()) {
    detail += (detail.empty() ? "" : "; ") + std::string("stderr: ") + LastLines(result.stderr_text);
  }
  return detail;
}

// What an exit-0 child failed to send, or "".
std::string MissingEvents(const RunnerEvents& events, const ChildExpectations& expected) {
  std::vector<std::string> missing;
  if (!events.device) missing.push_back("device");
  if (events.checks.size() < expected.check_rounds) {
    missing.push_back("check (" + std::to_string(events.checks.size()) + " of " +
                      std::to_string(expected.check_rounds) + ")");
  }
  if (expected.timing && !events.timing) missing.push_back("timing");
  if (expected.energy && !events.energy) missing.push_back("energy");
  if (!events.done_ok) missing.push_back("done");
  std::string text;
  for (const std::string& name : missing) text += (text.empty() ? "" : ", ") + name;
  return text;
}

ChildOutcome ClassifyExitZero(const RunnerEvents& events, const ChildExpectations& expected,
                              const std::string& notes) {
  if (events.failure) {
    return FailedOutcome(FailureKind::kCrash,
                  "exit code 0 after a " + std::string(FailureKindName(events.failure->kind)) +
                      " failure event (protocol violation)",
                  notes);
  }
  std::string missing = MissingEvents(events, expected);
  if (!missing.empty())
    return FailedOutcome(FailureKind::kCrash, "exited 0 without its " + missing + " event(s)", notes);
  if (!*events.done_ok)
    return FailedOutcome(FailureKind::kCrash, "exited 0 but its done event says ok=false", notes);
  for (const runner::CheckEvent& check : events.checks) {
    if (!check.passed) {
      return FailedOutcome(FailureKind::kCrash,
                    "exited 0 after a failed check (seed " + std::to_string(check.seed) + ")", notes);
    }
  }
  ChildOutcome outcome;
  outcome.status = ChildOutcome::Status::kOk;
  outcome.detail = notes;
  return outcome;
}

// A run that says nothing about the candidate (never reused by resume): the
// runner's failure message when it sent one, else the end of its stderr.
ChildOutcome HarnessError(const std::string& what, const CommandResult& result, const RunnerEvents& events,
                          const std::string& notes) {
  ChildOutcome outcome;
  outcome.status = ChildOutcome::Status::kHarnessError;
  outcome.message = what + (events.failure ? events.failure->message : LastLines(result.stderr_text, 200));
  outcome.detail = notes;
  return outcome;
}

}  // namespace

ChildOutcome FailedOutcome(FailureKind kind, std::string message, std::string detail) {
  ChildOutcome outcome;
  outcome.status = ChildOutcome::Status::kFailed;
  outcome.kind = kind;
  outcome.message = std::move(message);
  outcome.detail = std::move(detail);
  return outcome;
}

std::string ChildOutcome::KindName() const {
  if (status == Status::kHarnessError) return "harness_error";
  return kind ? std::string(FailureKindName(*kind)) : std::string();
}

std::string ChildStatusName(ChildOutcome::Status status) {
  switch (status) {
    case ChildOutcome::Status::kOk: return "ok";
    case ChildOutcome::Status::kFailed: return "failed";
    case ChildOutcome::Status::kHarnessError: return "harness_error";
  }
  return "harness_error";
}

ChildOutcome ClassifyChildEnd(const CommandResult& result, const RunnerEvents& events,
                              const ChildExpectations& expected) {
  std::string notes = Notes(events, result);
  if (result.timed_out) {
    return FailedOutcome(FailureKind::kTimeout,
                  "killed by the watchdog after " + fmt::format("{:g}", expected.timeout_seconds) + " s",
                  notes);
  }
  if (result.signaled) {
    std::string how = "died by " + DescribeSignal(result.signal);
    if (events.failure) {
      return FailedOutcome(events.failure->kind, events.failure->message + " (then " + how + ")", notes);
    }
    return FailedOutcome(FailureKind::kCrash, how, notes);
  }
  if (result.exit_code == 0) return ClassifyExitZero(events, expected, notes);
  if (result.exit_code == 2) {
    return HarnessError("kopt-runner rejected the request (exit code 2): ", result, events, notes);
  }
  if (result.exit_code == 4) {  // not the candidate's fault: no device, or the reference failed
    return HarnessError("kopt-runner could not judge the candidate (exit code 4): ", result, events, notes);
  }
  if (result.exit_code == 3 && events.failure) {
    std::string detail = events.failure->detail;
    if (!notes.empty()) detail += (detail.empty() ? "" : "; ") + notes;
    return FailedOutcome(events.failure->kind, events.failure->message, detail);
  }
  if (result.exit_code == 3) return FailedOutcome(FailureKind::kCrash, "exit code 3 without a failure event", notes);
  return FailedOutcome(FailureKind::kCrash, "exited with code " + std::to_string(result.exit_code), notes);
}

std::optional<double> Speedup(double reference_median_seconds, double candidate_median_seconds) {
  if (!(reference_median_seconds > 0) || !(candidate_median_seconds > 0)) return std::nullopt;
  return reference_median_seconds / candidate_median_seconds;
}

double RooflineFloorSeconds(double flops, double min_bytes, double peak_flops_per_second,
                            double dram_bytes_per_second) {
  double floor = 0;
  if (flops > 0 && peak_flops_per_second > 0) floor = std::max(floor, flops / peak_flops_per_second);
  if (min_bytes > 0 && dram_bytes_per_second > 0) floor = std::max(floor, min_bytes / dram_bytes_per_second);
  return floor;
}

double PeakFlopsForDtype(const GpuSpec& gpu, std::string_view dtype) {
  if (dtype == "f64") return std::max(gpu.fp64_flops, gpu.fp64_tensor_flops);
  if (dtype == "f32") return std::max(gpu.fp32_flops, gpu.tf32_tensor_flops);
  if (dtype == "f16" || dtype == "bf16") {
    return std::max({gpu.fp16_flops, gpu.fp16_tensor_flops, gpu.bf16_tensor_flops});
  }
  if (dtype == "u8" || dtype == "i32" || dtype == "i64") return std::max(gpu.int8_tensor_ops, gpu.fp32_flops);
  return 0;
}

bool IsSuspectFast(double median_seconds, double floor_seconds) {
  return floor_seconds > 0 && median_seconds > 0 && median_seconds < floor_seconds;
}

}  // namespace kopt
