#include "core/channel_pull.h"

#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "core/parallel_chunks.h"

namespace kopt {
namespace {

// Pieces of a pull copied by one thread at a time: large enough that a
// thread's start is small beside its copy, small enough to spread 8 MiB.
constexpr size_t kPullChunkBytes = size_t{2} << 20;
// The most one pull grows the sink by before its bytes arrived.
constexpr uint64_t kPullStepBytes = uint64_t{64} << 20;

std::string Record(uint64_t kind, uint64_t first, uint64_t second) {
  uint64_t words[3] = {kind, first, second};
  return std::string(reinterpret_cast<const char*>(words), sizeof words);
}

// One chunk: process_vm_readv until every byte arrived (it may stop short at a page it cannot read).
Status PullChunk(pid_t pid, uint64_t address, size_t bytes, std::byte* destination) {
  size_t done = 0;
  while (done < bytes) {
    iovec local{destination + done, bytes - done};
    iovec remote{reinterpret_cast<void*>(static_cast<uintptr_t>(address + done)), bytes - done};
    ssize_t copied = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (copied < 0 && errno == EINTR) continue;
    if (copied < 0 && (errno == EPERM || errno == ENOSYS || errno == EACCES)) {
      return Unavailable(std::string("cannot read the child's memory (process_vm_readv: ") +
                         std::strerror(errno) + ")");
    }
    if (copied <= 0) {
      return InvalidInput("the output channel named memory the child does not have (" +
                          std::string(copied < 0 ? std::strerror(errno) : "nothing readable") + ")");
    }
    done += static_cast<size_t>(copied);
  }
  return Status::Ok();
}

}  // namespace

std::string EncodeInlineRecord(uint64_t bytes) {
  return Record(kPullRecordInline, bytes, 0);
}

std::string EncodePullRecord(const void* address, uint64_t bytes) {
  return Record(kPullRecordPull, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(address)), bytes);
}

Status PullFromProcess(pid_t pid, uint64_t address, size_t bytes, std::byte* destination, size_t threads) {
  if (address + bytes < address)
    return InvalidInput("the output channel named memory past the address space");
  size_t chunks = ChunkCount(bytes, kPullChunkBytes);
  std::mutex mutex;
  Status first = Status::Ok();
  std::atomic<bool> failed{false};
  ForEachChunk(
      chunks,
      [&](size_t chunk) {
        if (failed) return;
        size_t offset = chunk * kPullChunkBytes;
        Status status =
            PullChunk(pid, address + offset, std::min(kPullChunkBytes, bytes - offset), destination + offset);
        if (status.ok()) return;
        std::lock_guard<std::mutex> lock(mutex);
        if (!failed.exchange(true)) first = status;
      },
      threads);
  return first;
}

PullReceiver::PullReceiver(pid_t pid, std::string& sink, size_t max_bytes, int ack_fd, size_t threads)
    : pid_(pid), sink_(sink), max_bytes_(max_bytes), ack_fd_(ack_fd), threads_(threads) {}

void PullReceiver::Consume(std::span<const char> bytes) {
  size_t next = 0;
  while (next < bytes.size() && failure_ == PullFailure::kNone) {
    if (inline_left_ > 0) {
      size_t take = static_cast<size_t>(std::min<uint64_t>(inline_left_, bytes.size() - next));
      Append(bytes.data() + next, take);
      inline_left_ -= take;
      next += take;
      continue;
    }
    size_t take = std::min(kPullRecordBytes - record_.size(), bytes.size() - next);
    record_.append(bytes.data() + next, take);
    next += take;
    if (record_.size() < kPullRecordBytes) break;
    uint64_t words[3];
    std::memcpy(words, record_.data(), sizeof words);
    record_.clear();
    if (words[0] == kPullRecordInline && words[2] == 0) {
      inline_left_ = words[1];
    } else if (words[0] == kPullRecordPull) {
      Pull(words[1], words[2]);
    } else {
      Fail(PullFailure::kChild,
           "the output channel sent a record of unknown kind " + std::to_string(words[0]));
    }
  }
}

size_t PullReceiver::Reserve(uint64_t count) {
  size_t room = count;
  if (max_bytes_ > 0) {
    room = static_cast<size_t>(std::min<uint64_t>(count, max_bytes_ - std::min(max_bytes_, filled_)));
    if (room < count) truncated_ = true;
  }
  if (sink_.size() < filled_ + room) {
    if (filled_ + room > sink_.capacity() && moving_) moving_();
    sink_.resize(filled_ + room);
  }
  return room;
}

void PullReceiver::Append(const char* bytes, size_t count) {
  size_t room = Reserve(count);
  std::memcpy(sink_.data() + filled_, bytes, room);
  filled_ += room;
  stream_bytes_ += count;
}

void PullReceiver::Pull(uint64_t address, uint64_t count) {
  // In steps, so that the sink grows only as far as bytes arrived (a record
  // naming gigabytes the child does not have costs one step, not the gigabytes).
  for (uint64_t done = 0; done < count;) {
    uint64_t step = std::min<uint64_t>(count - done, kPullStepBytes);
    size_t room = Reserve(step);
    // Past max_bytes nothing more is kept: the rest is dropped at once, not
    // stepped through (a record naming 2^63 bytes would take 2^37 steps).
    if (room == 0) break;
    Status pulled = PullFromProcess(pid_, address + done, room,
                                    reinterpret_cast<std::byte*>(sink_.data() + filled_), threads_);
    if (!pulled.ok()) {
      Fail(pulled.kind() == ErrorKind::kUnavailable ? PullFailure::kEnvironment : PullFailure::kChild,
           pulled.message());
      return;
    }
    filled_ += room;
    done += step;
  }
  stream_bytes_ += count;
  Acknowledge();
  if (arrived_) arrived_(std::string_view(sink_.data(), filled_));
}

void PullReceiver::Acknowledge() {
  if (ack_fd_ < 0) return;
  // Never blocks and never raises SIGPIPE: a child that does not read its
  // acks only makes itself wait (acks are cumulative: a later one says all).
  (void)send(ack_fd_, &stream_bytes_, sizeof stream_bytes_, MSG_NOSIGNAL | MSG_DONTWAIT);
}

void PullReceiver::Fail(PullFailure failure, std::string message) {
  failure_ = failure;
  failure_message_ = std::move(message);
}

}  // namespace kopt
