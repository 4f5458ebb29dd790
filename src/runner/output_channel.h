// Where kopt-runner sends the raw outputs it produced (runner_protocol/output_frames.h):
// the descriptor the parent passed (request `output_fd`), a pipe the parent
// reads, never a file. Moved at construction to a private close-on-exec
// descriptor (like the event sink) so a candidate's stray writes to low
// descriptors do not land in it by accident. A deliberately hostile candidate
// in this process can still write frames; it gains nothing by it: a frame is
// only its own output, judged by the parent against the reference child's.
//
// With OutputChannelKind::kMemory (request `output_memory`) the descriptor is instead shared memory the
// parent seals after this process ended (core/channel_memory.h), written by
// a MemoryFrameWriter (runner_protocol/output_frames.h): one copy, nothing
// for the parent to read while the child runs.
//
// A pipe's payload can also be given by reference (Lend: vmsplice, where
// the kernel allows it): the pipe then holds the caller's pages, not a copy,
// until the parent has read them; nothing is copied in this process. The
// caller must not change lent bytes until Consumed says the parent has read
// them. A candidate in this process could change them before that: only its
// own outputs, before the parent judges anything (it judges after the child
// ended), as it could write frames itself. KOPT_OUTPUT_SPLICE=0 in the
// environment turns lending off (a benchmark switch: each Lend copies).
//
// With OutputChannelKind::kPull (request `output_pull`) the descriptor is one end of a stream socket and
// the channel is pulled (core/channel_pull.h): Lend sends only where the bytes
// lie in this process, the parent copies them from here and acks; Consumed
// waits for those acks. Lent bytes must stay as they are, and mapped, until
// then (the parent reads them from this process's memory).
//
// Thread safety: not thread-safe; the runner's main thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "core/status.h"
#include "runner_protocol/output_frames.h"
#include "runner_protocol/runner_request.h"

namespace kopt::runner {

class OutputChannel {
 public:
  // `descriptor` -1: frames are dropped (no parent reads them). `kind`: what
  // the descriptor is: a pipe, channel memory or a pulled channel's socket (above).
  explicit OutputChannel(int descriptor, OutputChannelKind kind = OutputChannelKind::kPipe);
  ~OutputChannel();
  OutputChannel(const OutputChannel&) = delete;
  OutputChannel& operator=(const OutputChannel&) = delete;

  // Starts a frame whose payload of `payload_bytes` bytes the caller then
  // writes with Write, all of it, before the next frame (a pipe gets the
  // head now, memory after the payload). WorkFailed when the parent went
  // away (EPIPE) or the descriptor is bad.
  Status BeginFrame(const FrameKey& key, uint64_t payload_bytes);
  // Writes `bytes` of the current frame's payload (retrying short writes).
  Status Write(std::span<const std::byte> bytes);
  // As Write, but a pipe may take the bytes by reference (above); returns
  // where they end in the channel's stream (for Consumed).
  Result<uint64_t> Lend(std::span<const std::byte> bytes);
  // Waits until the parent has read the channel's stream up to `offset`
  // (at once when nothing is lent). WorkFailed when the pipe broke.
  Status Consumed(uint64_t offset);
  bool connected() const { return descriptor_ >= 0; }
  bool lends() const { return splice_ || pull_; }
  bool pulled() const { return pull_; }

 private:
  int descriptor_ = -1;
  bool splice_ = false;                      // Lend may vmsplice
  bool pull_ = false;                        // a pulled channel (above)
  uint64_t acknowledged_ = 0;                // a pulled channel: the parent's last ack
  std::string ack_bytes_;                    // a pulled channel: an ack's bytes received so far
  uint64_t written_ = 0;                     // bytes put into the pipe so far (heads and payloads)
  std::optional<MemoryFrameWriter> memory_;  // set: the descriptor is channel memory
};

}  // namespace kopt::runner
