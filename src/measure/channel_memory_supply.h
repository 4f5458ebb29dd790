// Channel memory (core/channel_memory.h) for candidate children, prepared
// on a thread while the previous child runs: creating and allocating a large channel (2.3 GB for
// KernelBench level1/88) takes about a second on the H200's host, and so does
// freeing a child's after it was judged, done on another thread. Memory is
// sealed once and never reused: every child gets fresh memory no other child
// has seen. `ahead` memories are prepared at once, each on a thread of its
// own (allocating 2.3 GB takes longer than a level1/88 child runs, so two
// are allocated side by side); at most ahead + 2 exist at once: the ones
// prepared, the one a child writes, and one being freed.
//
// Thread safety: one owner thread calls the methods; the work runs on
// internal threads (preparing, freeing). Destroying the supply cancels the
// preparations between allocation steps and waits for all of them.
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <future>
#include <memory>
#include <optional>

#include "core/channel_memory.h"
#include "core/status.h"

namespace kopt {

class ChannelMemorySupply {
 public:
  // `ahead` (>= 1): how many memories Take keeps in preparation.
  explicit ChannelMemorySupply(size_t ahead = 2) : ahead_(ahead < 1 ? 1 : ahead) {}
  ~ChannelMemorySupply();
  ChannelMemorySupply(const ChannelMemorySupply&) = delete;
  ChannelMemorySupply& operator=(const ChannelMemorySupply&) = delete;

  // Starts preparing `bytes` (> 0) of memory for the next Take, unless a
  // preparation of that size is under way or done (ones of another size are
  // cancelled and dropped).
  void Prepare(size_t bytes);

  // The prepared memory, waiting for it when it is not ready yet (preparing
  // it now when nothing was prepared); `waited_seconds` (may be null) gets
  // how long. Memory of the same size for the next `prepare_next` Takes (at
  // most `ahead`) is started right away, so that it is ready when the child
  // that gets this one has ended. Unavailable when memfd sealing is unsupported here
  // (available() is false from then on); WorkFailed when allocating failed.
  Result<ChannelMemory> Take(size_t bytes, size_t prepare_next, double* waited_seconds = nullptr);

  // Frees `discard` (a judged child's frames, which own its memory's
  // mapping) on the freeing thread, after what it was freeing before.
  void Release(std::shared_ptr<void> discard);

  // False once channel memory turned out to be unsupported on this machine.
  bool available() const { return available_; }

 private:
  void Start(size_t bytes);
  void DropPending();

  const size_t ahead_;
  // Set by the destructor; also when pending memories of another size are dropped.
  std::atomic<bool> cancel_{false};
  std::deque<std::future<Result<ChannelMemory>>> pending_;  // oldest first
  size_t pending_bytes_ = 0;
  std::optional<std::future<void>> releasing_;
  bool available_ = true;
};

}  // namespace kopt
