#include "measure/bench_verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "measure/child_outcome.h"
#include "runner_protocol/output_comparison.h"

namespace kopt {
namespace {

constexpr int kMaxInputSets = 64;

struct RoundJudge {
  const OutputFrames& got;
  const OutputFrames& expected;
  ParentVerdict& verdict;
  const PrecomputedOutputs* precomputed = nullptr;
  bool harness_error = false;

  void Fail(FailureKind kind, std::string message) {
    if (verdict.kind || harness_error) return;
    verdict.kind = kind;
    verdict.message = std::move(message);
  }
  bool failed() const { return verdict.kind.has_value() || harness_error; }

  // Compares every written tensor of `task` between got (round, index) and
  // expected (expected_round, expected_index). Fills `check` when given.
  // Returns the round's failure kind, if any; the compared buffers (views
  // into got and expected) are appended to got_rounds and expected_rounds.
  std::optional<FailureKind> Compare(const runner::RunnerTask& task, const std::string& round, int64_t index,
                                     const std::string& expected_round, int64_t expected_index,
                                     runner::CheckEvent* check, std::string& message,
                                     std::vector<std::span<const std::byte>>* got_rounds,
                                     std::vector<std::span<const std::byte>>* expected_rounds) {
    std::vector<runner::OutputVerdict> verdicts;
    for (const runner::TensorDecl& tensor : task.tensors) {
      if (!tensor.IsWritten()) continue;
      std::optional<std::span<const std::byte>> mine = got.Find({round, index, tensor.name});
      std::optional<std::span<const std::byte>> theirs =
          expected.Find({expected_round, expected_index, tensor.name});
      if (!theirs) {
        harness_error = true;
        verdict.message = fmt::format("kopt bug: the reference child sent no output \"{}\" for round {} {}",
                                      tensor.name, expected_round, expected_index);
        return std::nullopt;
      }
      if (!mine) {
        Fail(FailureKind::kProtocolViolation,
             fmt::format("the child announced round {} {} but sent no output \"{}\"", round, index,
                         tensor.name));
        return std::nullopt;
      }
      if (mine->size() != static_cast<size_t>(tensor.ByteCount()) || theirs->size() != mine->size()) {
        Fail(FailureKind::kProtocolViolation,
             fmt::format("round {} {}: output \"{}\" has {} bytes; expected {}", round, index, tensor.name,
                         mine->size(), tensor.ByteCount()));
        return std::nullopt;
      }
      runner::Tolerance tolerance = task.ToleranceFor(tensor.dtype);
      const runner::OutputVerdict* ahead =
          precomputed != nullptr ? precomputed->Find(tensor.name, tensor.dtype, *mine, *theirs, tolerance)
                                 : nullptr;
      runner::OutputVerdict one =
          ahead != nullptr ? *ahead
                           : runner::JudgeOutput(tensor.name, tensor.dtype, *mine, *theirs, tolerance);
      if (one.failure && message.empty()) {
        message = runner::DescribeOutputMismatch(one.check, tensor.ElementCount(), tensor.dtype, *mine,
                                                 *theirs, tolerance);
      }
      if (check != nullptr) check->outputs.push_back(one.check);
      if (got_rounds != nullptr) got_rounds->push_back(*mine);
      if (expected_rounds != nullptr) expected_rounds->push_back(*theirs);
      verdicts.push_back(std::move(one));
    }
    return runner::RoundFailure(verdicts);
  }
};

const runner::OutputsEvent* FindRound(const RunnerEvents& events, const std::string& round, int64_t index) {
  for (const runner::OutputsEvent& event : events.outputs) {
    if (event.round == round && event.index == index) return &event;
  }
  return nullptr;
}

// What a child that claims success must have announced.
std::string MissingRounds(const runner::RunnerRequest& request, const RunnerEvents& events) {
  std::vector<std::string> missing;
  if (request.check) {
    for (size_t index = 0; index < request.seeds.size(); ++index) {
      if (!FindRound(events, "check", static_cast<int64_t>(index)))
        missing.push_back(fmt::format("check {}", index));
    }
    for (size_t index = 0; index < request.check_variants.size(); ++index) {
      if (!FindRound(events, "variant", static_cast<int64_t>(index))) {
        missing.push_back(fmt::format("variant {}", index));
      }
    }
  }
  if (request.timing && !FindRound(events, "fresh", 0)) missing.push_back("fresh 0");
  std::string text;
  for (const std::string& name : missing) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

void PrecomputedOutputs::Add(const std::string& name, DataType dtype, std::span<const std::byte> got,
                             std::span<const std::byte> expected, Tolerance tolerance,
                             runner::OutputVerdict verdict) {
  verdicts_[Key{name, dtype, got.data(), got.size(), expected.data(), expected.size(), tolerance.rtol,
                tolerance.atol}] = std::move(verdict);
}

const runner::OutputVerdict* PrecomputedOutputs::Find(const std::string& name, DataType dtype,
                                                      std::span<const std::byte> got,
                                                      std::span<const std::byte> expected,
                                                      Tolerance tolerance) const {
  auto found = verdicts_.find(Key{name, dtype, got.data(), got.size(), expected.data(), expected.size(),
                                  tolerance.rtol, tolerance.atol});
  return found == verdicts_.end() ? nullptr : &found->second;
}

namespace {

// Per main-size check round, per written tensor: the buffers compared (for constant_output).
struct MainRounds {
  std::vector<std::vector<std::span<const std::byte>>> got, expected;
};

// The correctness rounds, in the order the child ran them: each one's check event in the verdict.
MainRounds JudgeCheckRounds(const runner::RunnerRequest& request, const RunnerEvents& events,
                            RoundJudge& judge) {
  MainRounds main;
  for (const runner::OutputsEvent& event : events.outputs) {
    if (judge.failed()) break;
    if (event.round != "check" && event.round != "variant") continue;
    bool variant = event.round == "variant";
    if (event.index < 0 || (!variant && event.index >= static_cast<int64_t>(request.seeds.size())) ||
        (variant && event.index >= static_cast<int64_t>(request.check_variants.size()))) {
      judge.Fail(FailureKind::kProtocolViolation,
                 fmt::format("the child announced round {} {}, which the request has not", event.round,
                             event.index));
      break;
    }
    runner::RunnerTask task =
        variant ? runner::ApplyVariant(request.task, request.check_variants[static_cast<size_t>(event.index)])
                : request.task;
    runner::CheckEvent check;
    check.seed = event.seed;
    if (variant) check.variant = static_cast<int>(event.index);
    std::string message;
    std::vector<std::span<const std::byte>> mine, theirs;
    std::optional<FailureKind> kind = judge.Compare(task, event.round, event.index, event.round, event.index,
                                                    &check, message, &mine, &theirs);
    if (judge.failed()) break;
    check.passed = !kind.has_value();
    judge.verdict.checks.push_back(check);
    if (kind) {
      judge.Fail(*kind, variant ? fmt::format("size variant {}: {}", event.index, message) : message);
      break;
    }
    if (!variant) {
      main.got.push_back(std::move(mine));
      main.expected.push_back(std::move(theirs));
    }
  }
  return main;
}

// constant_output over the main-size rounds, per written tensor.
void JudgeConstantOutput(const runner::RunnerTask& task, const MainRounds& main, RoundJudge& judge) {
  if (main.got.size() < 2) return;
  size_t written = 0;
  for (const runner::TensorDecl& tensor : task.tensors) {
    if (!tensor.IsWritten()) continue;
    std::vector<std::span<const std::byte>> mine, theirs;
    for (size_t round = 0; round < main.got.size(); ++round) {
      mine.push_back(main.got[round][written]);
      theirs.push_back(main.expected[round][written]);
    }
    if (runner::IsConstantOutput(mine, theirs)) {
      judge.Fail(FailureKind::kConstantOutput,
                 fmt::format("output \"{}\" was identical for all {} seeds while the reference's changed",
                             tensor.name, main.got.size()));
      return;
    }
    ++written;
  }
}

// The verified timed samples, then the round after timing.
void JudgeTimedOutputs(const runner::RunnerRequest& request, const RunnerEvents& events,
                       const OutputFrames& expected, RoundJudge& judge) {
  const runner::TimingEvent& timing = *events.timing;
  std::set<int64_t> expected_sets;
  for (const auto& [key, payload] : expected.frames()) {
    if (key.round == "set") expected_sets.insert(key.index);
  }
  if (timing.verified.empty() && request.timing && request.timing->verified_samples > 0) {
    judge.Fail(FailureKind::kProtocolViolation, "the timing event lists no verified timed sample");
  }
  for (size_t index = 0; index < timing.verified.size() && !judge.failed(); ++index) {
    const runner::VerifiedSample& sample = timing.verified[index];
    if (!expected_sets.contains(sample.set)) {
      judge.Fail(FailureKind::kProtocolViolation,
                 fmt::format("verified sample {} names input set {}, which the run does not have",
                             sample.sample, sample.set));
      break;
    }
    std::string message;
    std::optional<FailureKind> kind = judge.Compare(request.task, "timed", static_cast<int64_t>(index), "set",
                                                    sample.set, nullptr, message, nullptr, nullptr);
    if (kind) {
      judge.Fail(
          FailureKind::kStaleOutput,
          fmt::format("timed sample {} (input set {}), checked after it ran, gave old, unwritten or wrong "
                      "outputs: {}",
                      sample.sample, sample.set, message));
    }
  }
  if (!judge.failed() && FindRound(events, "fresh", 0)) {
    std::string message;
    std::optional<FailureKind> kind =
        judge.Compare(request.task, "fresh", 0, "fresh", 0, nullptr, message, nullptr, nullptr);
    if (kind) {
      judge.Fail(FailureKind::kStaleOutput,
                 "after timing, fresh inputs in the timed buffers gave old or unwritten outputs: " + message);
    }
  }
}

}  // namespace

ParentVerdict JudgeOutputs(const runner::RunnerRequest& request, const RunnerEvents& events,
                           const OutputFrames& got, const OutputFrames& expected,
                           const PrecomputedOutputs* precomputed) {
  ParentVerdict verdict;
  RoundJudge judge{got, expected, verdict, precomputed};
  MainRounds main = JudgeCheckRounds(request, events, judge);
  if (!judge.failed()) JudgeConstantOutput(request.task, main, judge);
  if (!judge.failed() && events.timing) JudgeTimedOutputs(request, events, expected, judge);
  if (!judge.failed() && events.done_ok.value_or(false)) {
    std::string missing = MissingRounds(request, events);
    if (!missing.empty()) {
      judge.Fail(FailureKind::kProtocolViolation,
                 "the child claims success without the outputs of " + missing);
    }
  }
  if (judge.harness_error) verdict.kind.reset();
  return verdict;
}

bool IsHarnessVerdict(const ParentVerdict& verdict) {
  return !verdict.kind && !verdict.message.empty();
}

int64_t ExpectedInputSets(const runner::RunnerRequest& request, int64_t l2_bytes) {
  if (!request.timing || !request.timing->rotate_input_sets) return 1;
  int64_t set_bytes = 0;
  for (const runner::TensorDecl& tensor : request.task.tensors) set_bytes += tensor.ByteCount();
  if (set_bytes <= 0 || set_bytes >= 2 * l2_bytes) return 1;
  return std::min<int64_t>((2 * l2_bytes + set_bytes - 1) / set_bytes, kMaxInputSets);
}

uint64_t ExpectedOutputBytes(const runner::RunnerRequest& request, int64_t l2_bytes) {
  auto round_bytes = [](const runner::RunnerTask& task, const std::string& round, int64_t index) {
    uint64_t bytes = 0;
    for (const runner::TensorDecl& tensor : task.tensors) {
      if (!tensor.IsWritten()) continue;
      uint64_t payload = static_cast<uint64_t>(tensor.ByteCount());
      bytes += EncodeFrameHead({round, index, tensor.name}, payload).size() + payload;
    }
    return bytes;
  };
  uint64_t total = 0;
  if (request.check) {
    for (size_t index = 0; index < request.seeds.size(); ++index) {
      total += round_bytes(request.task, "check", static_cast<int64_t>(index));
    }
    for (size_t index = 0; index < request.check_variants.size(); ++index) {
      total += round_bytes(runner::ApplyVariant(request.task, request.check_variants[index]), "variant",
                           static_cast<int64_t>(index));
    }
  }
  if (request.timing) {
    bool reference = request.role == runner::RunnerRole::kReference;
    int64_t frames = reference ? (l2_bytes > 0 ? ExpectedInputSets(request, l2_bytes) : 1)
                               : request.timing->verified_samples;
    for (int64_t index = 0; index < frames; ++index) {
      total += round_bytes(request.task, reference ? "set" : "timed", index);
    }
    total += round_bytes(request.task, "fresh", 0);
  }
  return total;
}

std::string CheckTimingClaims(const runner::RunnerRequest& request, const runner::TimingEvent& timing,
                              double timing_window_seconds, int64_t l2_bytes) {
  if (!request.timing) return "a timing event although the request asked for no timing";
  const runner::TimingRequest& asked = *request.timing;
  if (timing.samples > asked.max_samples) {
    return fmt::format("{} samples claimed; the request allows at most {}", timing.samples,
                       asked.max_samples);
  }
  if (timing.cold != asked.cold)
    return fmt::format("cold = {} claimed; the request asked for {}", timing.cold, asked.cold);
  if (l2_bytes > 0) {
    int64_t sets = ExpectedInputSets(request, l2_bytes);
    if (timing.input_sets != sets) {
      return fmt::format("{} input sets claimed; this task on this GPU uses {}", timing.input_sets, sets);
    }
  }
  if (!(timing.min_s <= timing.median_s && timing.median_s <= timing.max_s)) {
    return "the claimed median is outside the claimed minimum and maximum";
  }
  // The child cannot have timed more GPU work than the parent saw elapse.
  double claimed = std::max(timing.gpu_seconds, static_cast<double>(timing.samples) * timing.min_s);
  if (timing_window_seconds >= 0 && claimed > 1.05 * timing_window_seconds + 2e-3) {
    return fmt::format("{:.4g} s of timed GPU work claimed in a timing phase the parent saw take {:.4g} s",
                       claimed, timing_window_seconds);
  }
  // A checked launch must take about as long as the timed ones.
  double bound = kVerifiedSlackRatio * std::max(timing.q3_s, timing.median_s) + kVerifiedSlackSeconds;
  for (const runner::VerifiedSample& sample : timing.verified) {
    if (!(sample.seconds <= bound)) {
      return fmt::format(
          "verified timed sample {} took {:.4g} s while the claimed median is {:.4g} s (upper quartile "
          "{:.4g} s): "
          "the launches that were checked did work the timed ones did not",
          sample.sample, sample.seconds, timing.median_s, timing.q3_s);
    }
  }
  return "";
}

double TimingWindowSeconds(const RunnerEvents& events, const std::vector<OutputArrival>& arrivals) {
  if (events.event_end_offsets.size() != events.events.size() || arrivals.empty()) return -1;
  for (size_t index = 1; index < events.events.size(); ++index) {
    if (events.events[index].value("event", "") != "timing") continue;
    return ArrivalSeconds(arrivals, events.event_end_offsets[index]) -
           ArrivalSeconds(arrivals, events.event_end_offsets[index - 1]);
  }
  return -1;
}

double AllowedPeakFlops(const GpuSpec& gpu, DataType dtype, double rtol) {
  switch (dtype) {
    case DataType::kF64: return std::max(gpu.fp64_flops, gpu.fp64_tensor_flops);
    case DataType::kF32:
      return rtol >= kTf32MinRelativeTolerance ? std::max(gpu.fp32_flops, gpu.tf32_tensor_flops)
                                               : gpu.fp32_flops;
    case DataType::kF16: return std::max(gpu.fp16_flops, gpu.fp16_tensor_flops);
    case DataType::kBF16: return std::max(gpu.fp16_flops, gpu.bf16_tensor_flops);
    case DataType::kI64:
    case DataType::kI32:
    case DataType::kU8: return std::max(gpu.int8_tensor_ops, gpu.fp32_flops);
  }
  return 0;
}

double TaskFloorSeconds(const TaskSpec& task, const GpuSpec& gpu) {
  double peak = 0;
  for (const TensorSpec& tensor : task.tensors) {
    peak = std::max(peak, AllowedPeakFlops(gpu, tensor.dtype, task.ToleranceFor(tensor.dtype).rtol));
  }
  return RooflineFloorSeconds(task.flops.value_or(0), task.min_bytes, peak, gpu.dram_bytes_per_second);
}

}  // namespace kopt
