#include "measure/output_prejudge.h"

#include <utility>

#include "runner_protocol/output_comparison.h"

namespace kopt {

OutputPrejudge::OutputPrejudge(const runner::RunnerRequest& request, const OutputFrames& expected)
    : request_(request), expected_(expected) {
  std::set<int64_t> sets;
  for (const auto& [key, payload] : expected.frames()) {
    if (key.round == "set") sets.insert(key.index);
  }
  if (sets.size() == 1) only_set_ = *sets.begin();
  worker_ = std::thread([this] { Work(); });
}

OutputPrejudge::~OutputPrejudge() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    jobs_.clear();
  }
  changed_.notify_all();
  worker_.join();
}

void OutputPrejudge::Received(std::string_view bytes) {
  Result<OutputFrames> arrived = OutputFrames::ParseArrived(bytes);
  if (!arrived.ok()) return;  // the judge reports it
  for (const auto& [key, payload] : arrived->frames()) {
    if (queued_.insert(key).second) Queue(key, payload);
  }
}

// The expected frame and the task JudgeOutputs will compare `key` with (see bench_verdict.cc).
void OutputPrejudge::Queue(const FrameKey& key, std::span<const std::byte> payload) {
  runner::RunnerTask task = request_.task;
  FrameKey expected_key = key;
  if (key.round == "variant") {
    if (key.index < 0 || key.index >= static_cast<int64_t>(request_.check_variants.size())) return;
    task = runner::ApplyVariant(request_.task, request_.check_variants[static_cast<size_t>(key.index)]);
  } else if (key.round == "timed") {
    if (!only_set_) return;
    expected_key = {"set", *only_set_, key.tensor};
  } else if (key.round != "check" && key.round != "fresh") {
    return;
  }
  const runner::TensorDecl* tensor = nullptr;
  for (const runner::TensorDecl& candidate : task.tensors) {
    if (candidate.IsWritten() && candidate.name == key.tensor) tensor = &candidate;
  }
  std::optional<std::span<const std::byte>> expected = expected_.Find(expected_key);
  if (tensor == nullptr || !expected || payload.size() != static_cast<size_t>(tensor->ByteCount()) ||
      expected->size() != payload.size()) {
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back({tensor->name, tensor->dtype, payload, *expected, task.ToleranceFor(tensor->dtype)});
  }
  changed_.notify_all();
}

void OutputPrejudge::WaitIdle(std::unique_lock<std::mutex>& lock) {
  changed_.wait(lock, [this] { return jobs_.empty() && !busy_; });
}

void OutputPrejudge::Moving() {
  std::unique_lock<std::mutex> lock(mutex_);
  WaitIdle(lock);
  done_.Clear();
  queued_.clear();  // queued again from where the bytes go
}

PrecomputedOutputs OutputPrejudge::Finish() {
  std::unique_lock<std::mutex> lock(mutex_);
  WaitIdle(lock);
  return std::exchange(done_, PrecomputedOutputs());
}

void OutputPrejudge::Work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
    if (stop_) return;
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    busy_ = true;
    lock.unlock();
    runner::OutputVerdict verdict =
        runner::JudgeOutput(job.name, job.dtype, job.got, job.expected, job.tolerance);
    lock.lock();
    done_.Add(job.name, job.dtype, job.got, job.expected, job.tolerance, std::move(verdict));
    busy_ = false;
    changed_.notify_all();
  }
}

}  // namespace kopt
