// The output channel of kopt-runner (docs/harness-protocol.md §3, "Output
// frames"): a child writes the raw bytes of the tensors it produced to a
// descriptor the parent gave it (never to a file), one frame per tensor; the
// parent judges them against the reference child's frames for the same
// (round, index, tensor).
//
// A frame: the 8 bytes "KOPTOUT1", a little-endian uint32 header length, the
// header (a JSON object {"round": str, "index": int, "tensor": str}), a
// little-endian uint64 payload length, the payload (the tensor's bytes).
//
// Rounds: "check" (main-size seed i), "variant" (size variant i), "set"
// (timed input set i, one untimed call: reference children only), "timed"
// (the i-th verified timed sample, its input set named in the timing event),
// "fresh" (the round after timing).
//
// Channel memory (request `output_memory`, core/channel_memory.h): the same
// frames back to back from offset 0 of memory the parent seals after the
// child ended; a frame's payload is written before its head and the head's
// magic last, so a frame whose magic is there is complete; the frames end
// where 8 zero bytes (the memory's initial value) stand instead of a magic,
// or at the end of the memory.
//
// Thread safety: pure functions; OutputFrames is a value; a
// MemoryFrameWriter is used by one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>

#include "core/channel_memory.h"
#include "core/status.h"

namespace kopt {

struct FrameKey {
  std::string round;
  int64_t index = 0;
  std::string tensor;
  auto operator<=>(const FrameKey&) const = default;
};

inline constexpr std::string_view kFrameMagic = "KOPTOUT1";
inline constexpr size_t kMaxFrameHeaderBytes = 4096;

// The header and length prefix of one frame, to be followed by `payload_bytes` bytes.
std::string EncodeFrameHead(const FrameKey& key, uint64_t payload_bytes);

// A whole frame (head + payload): for tests and fakes.
std::string EncodeFrame(const FrameKey& key, std::span<const std::byte> payload);

// The frames of one child's channel. The payloads are views into `channel`,
// which the object owns.
class OutputFrames {
 public:
  OutputFrames() = default;
  OutputFrames(OutputFrames&&) = default;
  OutputFrames& operator=(OutputFrames&&) = default;
  OutputFrames(const OutputFrames&) = delete;
  OutputFrames& operator=(const OutputFrames&) = delete;

  // Parses `channel`. InvalidInput (naming the byte offset) for a bad magic,
  // an oversized or malformed header, a payload past the end, or a key sent
  // twice (a child sends every frame once). `allow_truncated_tail`: a last
  // frame cut short (a child killed while writing it) is dropped instead.
  static Result<OutputFrames> Parse(std::string channel, bool allow_truncated_tail = false);
  // Parses sealed channel memory (above), keeping the mapping alive as long
  // as the frames. InvalidInput as Parse, also for bytes after the last
  // frame that are neither a frame nor zeros.
  static Result<OutputFrames> ParseMemory(std::shared_ptr<const SealedBytes> memory);
  // The whole frames at the start of `bytes` (a channel still arriving: a
  // last frame not complete yet is left out), as views into `bytes`, which
  // the caller keeps alive and unchanged while it uses them. InvalidInput as Parse.
  static Result<OutputFrames> ParseArrived(std::string_view bytes);

  // The payload of `key`, or nullopt when the child did not send it.
  std::optional<std::span<const std::byte>> Find(const FrameKey& key) const;
  size_t size() const { return frames_.size(); }
  const std::map<FrameKey, std::span<const std::byte>>& frames() const { return frames_; }
  // The channel's memory, for reuse (CommandSpec::channel_storage); the
  // frames are gone afterwards (empty).
  std::string ReleaseChannel();

 private:
  static Result<OutputFrames> ParseBytes(OutputFrames parsed, std::string_view bytes,
                                         bool allow_truncated_tail, bool zero_ends);
  std::unique_ptr<std::string> channel_;       // stable address: the spans point into it
  std::shared_ptr<const SealedBytes> memory_;  // or into this mapping
  std::map<FrameKey, std::span<const std::byte>> frames_;
};

// Writes frames into channel memory at `descriptor` in the layout above
// (pwrite: the memory grows when a frame does not fit). Begin, then Write
// the payload's bytes in order, all of them, before the next Begin.
class MemoryFrameWriter {
 public:
  explicit MemoryFrameWriter(int descriptor) : descriptor_(descriptor) {}
  // WorkFailed when the previous frame is not complete or a write failed.
  Status Begin(const FrameKey& key, uint64_t payload_bytes);
  // WorkFailed for more bytes than the frame announced or a failed write.
  Status Write(std::span<const std::byte> bytes);
  // Where the next frame starts (bytes written so far, heads included).
  uint64_t end_offset() const { return next_offset_; }

 private:
  Status CommitHead();  // the pending head, its magic last

  int descriptor_;
  uint64_t next_offset_ = 0;
  std::string pending_head_;
  uint64_t head_offset_ = 0;
  uint64_t payload_left_ = 0;
};

}  // namespace kopt
