// Sends a tensor from device memory as one output frame (output_channel.h)
// through two pinned host buffers: while one piece is written to the
// channel, the next is copied from the device into the other buffer, so a
// large output (256 MiB for KernelBench level1/88) costs about its pipe
// write alone instead of a pageable copy plus the write (issue 16, "cost per
// candidate").
//
// Ownership: owns the pinned buffers and events (allocated on the first
// Send, freed when destroyed); borrows the channel, which must outlive it.
// Thread safety: not thread-safe; the runner's main thread.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>

#include "core/status.h"
#include "runner/output_channel.h"

namespace kopt::runner {

class FrameSender {
 public:
  explicit FrameSender(OutputChannel& channel) : channel_(channel) {}
  ~FrameSender();
  FrameSender(const FrameSender&) = delete;
  FrameSender& operator=(const FrameSender&) = delete;

  // Sends the `bytes` bytes at device address `pointer` as frame `key`; the
  // copies are ordered on `stream` after what was enqueued there (the caller
  // has synchronized the work that wrote them). Returns when the whole frame
  // is written. Errors: a CUDA copy failed, or the channel's write did.
  Status Send(const FrameKey& key, const void* pointer, size_t bytes, cudaStream_t stream);

  // Bytes per piece (each of the two buffers).
  static constexpr size_t kPieceBytes = size_t{8} << 20;

 private:
  Status Allocate();

  OutputChannel& channel_;
  std::array<std::byte*, 2> buffers_{};
  std::array<cudaEvent_t, 2> copied_{};
};

}  // namespace kopt::runner
