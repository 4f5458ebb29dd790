// Compares a candidate child's output frames with the expected ones while
// the child still sends them, on a thread of its own (judging eight 256 MiB
// outputs after the child has ended costs the parent 0.12-0.16 s).
//
// It only computes ahead: each comparison is stored under the exact
// arguments runner::JudgeOutput gets (PrecomputedOutputs, bench_verdict.h),
// and JudgeOutputs, which still runs after the child ended and decides
// everything (which rounds count, in which order, against which expected
// frame), takes it from there when every argument matches. The bytes compared
// are the parent's own copy (a pulled channel's storage, core/channel_pull.h),
// complete before they are compared, never written again, and compared where
// they stay: nothing the child does changes them. A frame it cannot place
// yet (a timed sample when the reference has several input sets) or that
// would fail the judge's own checks (a wrong size, no expected frame) is
// left to the judge.
//
// Thread safety: Received, Moving and Finish are called from one thread (the
// one that receives the channel); the comparisons run on an internal thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <thread>

#include "measure/bench_verdict.h"
#include "runner_protocol/output_frames.h"
#include "runner_protocol/runner_request.h"

namespace kopt {

class OutputPrejudge {
 public:
  // `expected` (the reference child's frames) must outlive this object.
  OutputPrejudge(const runner::RunnerRequest& request, const OutputFrames& expected);
  ~OutputPrejudge();
  OutputPrejudge(const OutputPrejudge&) = delete;
  OutputPrejudge& operator=(const OutputPrejudge&) = delete;

  // The channel's bytes that arrived so far (CommandSpec::on_channel):
  // frames complete in them are queued for comparison.
  void Received(std::string_view bytes);
  // The bytes are about to move (CommandSpec::before_channel_moves): waits
  // for the comparison under way and forgets every result.
  void Moving();
  // Waits for the queued comparisons and hands over the results (valid as
  // long as the bytes stay where they were).
  PrecomputedOutputs Finish();

 private:
  struct Job {
    std::string name;
    DataType dtype = DataType::kF32;
    std::span<const std::byte> got, expected;
    Tolerance tolerance;
  };
  void Queue(const FrameKey& key, std::span<const std::byte> payload);
  void WaitIdle(std::unique_lock<std::mutex>& lock);
  void Work();

  const runner::RunnerRequest request_;
  const OutputFrames& expected_;
  std::optional<int64_t> only_set_;  // the reference's one timed input set, when it has exactly one
  std::set<FrameKey> queued_;        // frames queued or judged (receiving thread only)
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> jobs_;
  bool busy_ = false;
  bool stop_ = false;
  PrecomputedOutputs done_;
  std::thread worker_;
};

}  // namespace kopt
