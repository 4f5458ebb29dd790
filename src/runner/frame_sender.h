// Sends a tensor from device memory as one output frame (output_channel.h)
// through three pinned host buffers: while one piece is written to the
// channel, the next is copied from the device into another buffer, so a
// large output (256 MiB for KernelBench level1/88) costs about its pipe
// write alone instead of a pageable copy plus the write. Pieces are lent to a pipe (OutputChannel::Lend,
// vmsplice: no copy in this process); a buffer is reused only after the parent has read what was lent from it
// (OutputChannel::Consumed), across frames too. On a pulled channel (OutputChannel::pulled) the parent copies
// each piece from the buffer itself, and Send returns only when it has the whole frame.
//
// Ownership: owns the pinned buffers and events (allocated on the first
// Send, unmapped when destroyed: a pipe keeps the pages it still holds);
// borrows the channel, which must outlive it.
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

  // Bytes per piece (each of the buffers).
  static constexpr size_t kPieceBytes = size_t{8} << 20;

 private:
  Status Allocate();

  OutputChannel& channel_;
  std::array<std::byte*, 3> buffers_{};
  std::array<cudaEvent_t, 3> copied_{};
  // Where the piece last sent from each buffer ends in the channel's stream
  // (0: none): the buffer is free once the parent has read that far.
  std::array<uint64_t, 3> lent_until_{};
  size_t next_slot_ = 0;  // the buffer of the next piece (rotates across frames)
};

}  // namespace kopt::runner
