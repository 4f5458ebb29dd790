// Channel memory (core/channel_memory.h) for candidate children, prepared
// on a thread while the previous child runs (issue 16, "cost per
// candidate"): creating and allocating a large channel (2.3 GB for
// KernelBench level1/88) takes about a second on the H200's host, and so does
// freeing a child's after it was judged, done on another thread. Memory is
// sealed once and never reused: every child gets fresh memory no other child
// has seen. At most three channels exist at once: the one a child writes,
// the next one, and one being freed.
//
// Thread safety: one owner thread calls the methods; the work runs on two
// internal threads (preparing, freeing). Destroying the supply cancels a
// preparation between allocation steps and waits for both.
#pragma once

#include <atomic>
#include <cstddef>
#include <future>
#include <memory>
#include <optional>

#include "core/channel_memory.h"
#include "core/status.h"

namespace kopt {

class ChannelMemorySupply {
 public:
  ChannelMemorySupply() = default;
  ~ChannelMemorySupply();
  ChannelMemorySupply(const ChannelMemorySupply&) = delete;
  ChannelMemorySupply& operator=(const ChannelMemorySupply&) = delete;

  // Starts preparing `bytes` (> 0) of memory for the next Take, unless a
  // preparation of that size is under way or done (one of another size is
  // waited for and replaced).
  void Prepare(size_t bytes);

  // The prepared memory, waiting for it when it is not ready yet (preparing
  // it now when nothing was prepared); `waited_seconds` (may be null) gets
  // how long. With `prepare_next`, memory of the same size for the next Take
  // is started right away, so that it is ready when the child that gets this
  // one has ended. Unavailable when memfd sealing is unsupported here
  // (available() is false from then on); WorkFailed when allocating failed.
  Result<ChannelMemory> Take(size_t bytes, bool prepare_next, double* waited_seconds = nullptr);

  // Frees `discard` (a judged child's frames, which own its memory's
  // mapping) on the freeing thread, after what it was freeing before.
  void Release(std::shared_ptr<void> discard);

  // False once channel memory turned out to be unsupported on this machine.
  bool available() const { return available_; }

 private:
  void Wait();

  std::atomic<bool> cancel_{false};
  std::optional<std::future<Result<ChannelMemory>>> pending_;
  size_t pending_bytes_ = 0;
  std::optional<std::future<void>> releasing_;
  bool available_ = true;
};

}  // namespace kopt
