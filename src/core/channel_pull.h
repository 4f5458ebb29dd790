// A pulled output channel: instead of
// writing a large payload into a pipe, the child names where it lies in its
// own memory and the parent copies it from there (process_vm_readv), on
// several threads, straight into the memory it keeps the channel in: one copy
// in all, in parallel, where a pipe costs two copies on one thread (about
// 3 GB/s on the H200's host: most of a KernelBench level1/88 candidate's cost).
//
// The channel is a stream socket (both directions). The child writes records;
// the parent rebuilds from them the byte stream a pipe would have carried
// (the output frames of runner_protocol/output_frames.h) and, after each
// pulled piece, answers with how many bytes of that stream it holds (an ack,
// a native uint64), so the child knows when it may reuse the piece's memory.
// A record is three native uint64 values, then its data:
//   kInline, n, 0:        n bytes of the stream follow in the socket;
//   kPull, address, n:    the next n bytes of the stream are at `address` in
//                         the child's memory: the parent copies them, then acks.
//
// The threat model is the one of docs/harness-protocol.md §3: the child is
// hostile. What it can do with the records is what it can do with a pipe:
// send bytes of its own choosing. The parent copies only from the child's
// memory (never writes it), bounds the stream (PullReceiver's max_bytes),
// and a record it cannot honour (an unknown kind, an address the child does
// not have, a child that is gone) breaks the channel: the stream ends at the
// last whole record. The bytes the parent keeps are its own copy: nothing the
// child does later changes them.
//
// Linux only (process_vm_readv, kernel 3.2); where the kernel refuses it
// (seccomp, Yama ptrace_scope 2 or 3) pulls fail with kEnvironment and the caller
// falls back to the pipe.
//
// Thread safety: PullReceiver is used by one thread (it runs its copies on
// threads of its own and joins them); the encoders are pure functions.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "core/status.h"

namespace kopt {

inline constexpr uint64_t kPullRecordInline = 1;
inline constexpr uint64_t kPullRecordPull = 2;
inline constexpr size_t kPullRecordBytes = 3 * sizeof(uint64_t);

// The record announcing `bytes` inline bytes (which the caller writes next).
std::string EncodeInlineRecord(uint64_t bytes);
// The record naming `bytes` bytes at `address` in the writer's memory.
std::string EncodePullRecord(const void* address, uint64_t bytes);

// Why a channel broke.
enum class PullFailure {
  kNone,
  kChild,        // a malformed record, or memory the child does not have (or it is gone)
  kEnvironment,  // this kernel does not let the parent read the child's memory
};

// Copies `bytes` bytes at `address` in process `pid` to `destination`, in
// pieces on up to `threads` threads. kChild-style failures return
// InvalidInput, refusals (EPERM, ENOSYS) Unavailable.
Status PullFromProcess(pid_t pid, uint64_t address, size_t bytes, std::byte* destination, size_t threads);

// The parent's side: rebuilds the stream from what arrives on the socket.
class PullReceiver {
 public:
  // The stream goes into `sink` from offset 0: its current bytes (a reused
  // buffer's size, already faulted in) are overwritten, and it grows where
  // needed. `max_bytes` (0: none): bytes past it are dropped (truncated()),
  // but still acknowledged. `ack_fd`: where acks go (the socket; -1: none).
  PullReceiver(pid_t pid, std::string& sink, size_t max_bytes, int ack_fd, size_t threads);

  // Observers, called on the thread that calls Consume (null: none):
  // `arrived` with the stream's bytes kept so far (a prefix of the sink that
  // only grows) after each pulled piece; `moving` just before the sink
  // grows past its capacity (its bytes move: views into them end).
  void set_observers(std::function<void(std::string_view)> arrived, std::function<void()> moving) {
    arrived_ = std::move(arrived);
    moving_ = std::move(moving);
  }

  // Takes the next bytes read from the socket. After a failure: ignored.
  void Consume(std::span<const char> bytes);

  // The stream's bytes kept so far (sink's valid prefix); the caller
  // resizes the sink to it when the channel ended.
  size_t filled() const { return filled_; }
  bool truncated() const { return truncated_; }
  PullFailure failure() const { return failure_; }
  const std::string& failure_message() const { return failure_message_; }

 private:
  void Append(const char* bytes, size_t count);
  void Pull(uint64_t address, uint64_t count);
  void Acknowledge();
  void Fail(PullFailure failure, std::string message);
  // Room for `count` more bytes in the sink (grown when needed); how many fit under max_bytes.
  size_t Reserve(uint64_t count);

  pid_t pid_;
  std::string& sink_;
  size_t max_bytes_;
  int ack_fd_;
  size_t threads_;
  size_t filled_ = 0;
  uint64_t stream_bytes_ = 0;  // the stream's length so far, dropped bytes included (what acks say)
  uint64_t inline_left_ = 0;   // inline bytes of the current record still to come
  std::string record_;         // a record's bytes received so far
  bool truncated_ = false;
  PullFailure failure_ = PullFailure::kNone;
  std::string failure_message_;
  std::function<void(std::string_view)> arrived_;
  std::function<void()> moving_;
};

}  // namespace kopt
