#include "runner/output_channel.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "core/channel_pull.h"

namespace kopt::runner {
namespace {

// Writes every byte, retrying on EINTR and short writes.
Status WriteAll(int descriptor, const void* data, size_t bytes) {
  const char* next = static_cast<const char*>(data);
  while (bytes > 0) {
    ssize_t written = write(descriptor, next, bytes);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return WorkFailed(std::string("output channel: write failed: ") + std::strerror(errno));
    next += written;
    bytes -= static_cast<size_t>(written);
  }
  return Status::Ok();
}

// A pulled channel's socket: as WriteAll, never raising SIGPIPE.
Status SendAll(int descriptor, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t sent = send(descriptor, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return WorkFailed(std::string("output channel: write failed: ") + std::strerror(errno));
    bytes.remove_prefix(static_cast<size_t>(sent));
  }
  return Status::Ok();
}

}  // namespace

OutputChannel::OutputChannel(int descriptor, OutputChannelKind kind) {
  if (descriptor < 0) return;
  descriptor_ = fcntl(descriptor, F_DUPFD_CLOEXEC, 64);
  if (descriptor_ < 0) {
    descriptor_ = descriptor;  // keep the given one: still correct
    return;
  }
  close(descriptor);
  if (kind == OutputChannelKind::kMemory) {
    memory_.emplace(descriptor_);
    return;
  }
  if (kind == OutputChannelKind::kPull) {
    pull_ = true;
    return;
  }
#ifdef F_SETPIPE_SZ
  (void)fcntl(descriptor_, F_SETPIPE_SZ, 1 << 20);  // fewer wake-ups for large tensors; best effort
#endif
  struct stat status {};
  const char* splice = std::getenv("KOPT_OUTPUT_SPLICE");
  splice_ = fstat(descriptor_, &status) == 0 && S_ISFIFO(status.st_mode) &&
            !(splice != nullptr && std::string_view(splice) == "0");
}

OutputChannel::~OutputChannel() {
  if (descriptor_ >= 0) close(descriptor_);
}

Status OutputChannel::BeginFrame(const FrameKey& key, uint64_t payload_bytes) {
  if (descriptor_ < 0) return Status::Ok();
  if (memory_) return memory_->Begin(key, payload_bytes);
  std::string head = EncodeFrameHead(key, payload_bytes);
  written_ += head.size();
  if (pull_) return SendAll(descriptor_, EncodeInlineRecord(head.size()) + head);
  return WriteAll(descriptor_, head.data(), head.size());
}

Status OutputChannel::Write(std::span<const std::byte> bytes) {
  if (descriptor_ < 0) return Status::Ok();
  if (memory_) return memory_->Write(bytes);
  written_ += bytes.size();
  if (pull_) {
    KOPT_RETURN_IF_ERROR(SendAll(descriptor_, EncodeInlineRecord(bytes.size())));
    return SendAll(descriptor_, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }
  return WriteAll(descriptor_, bytes.data(), bytes.size());
}

Result<uint64_t> OutputChannel::Lend(std::span<const std::byte> bytes) {
  if (pull_ && descriptor_ >= 0 && !bytes.empty()) {
    KOPT_RETURN_IF_ERROR(SendAll(descriptor_, EncodePullRecord(bytes.data(), bytes.size())));
    written_ += bytes.size();
    return written_;
  }
  if (descriptor_ < 0 || memory_ || !splice_) {
    KOPT_RETURN_IF_ERROR(Write(bytes));
    return written_;
  }
  size_t done = 0;
  while (done < bytes.size()) {
    iovec piece{const_cast<std::byte*>(bytes.data() + done), bytes.size() - done};
    ssize_t spliced = vmsplice(descriptor_, &piece, 1, 0);
    if (spliced < 0 && errno == EINTR) continue;
    if (spliced <= 0) {
      if (errno == EPIPE)
        return WorkFailed(std::string("output channel: write failed: ") + std::strerror(errno));
      splice_ = false;  // not for this memory here: copy the rest, and everything from now on
      written_ += done;
      KOPT_RETURN_IF_ERROR(Write(bytes.subspan(done)));
      return written_;
    }
    done += static_cast<size_t>(spliced);
  }
  written_ += bytes.size();
  return written_;
}

Status OutputChannel::Consumed(uint64_t offset) {
  if (descriptor_ < 0 || memory_ || offset == 0) return Status::Ok();
  if (pull_) {
    while (acknowledged_ < offset) {
      char bytes[256];
      ssize_t got = read(descriptor_, bytes, sizeof bytes);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return WorkFailed("output channel: the parent stopped reading");
      ack_bytes_.append(bytes, static_cast<size_t>(got));
      size_t whole = ack_bytes_.size() / sizeof(uint64_t) * sizeof(uint64_t);
      if (whole == 0) continue;
      uint64_t last = 0;
      std::memcpy(&last, ack_bytes_.data() + whole - sizeof last, sizeof last);  // acks are cumulative
      acknowledged_ = std::max(acknowledged_, last);
      ack_bytes_.erase(0, whole);
    }
    return Status::Ok();
  }
  while (true) {
    int unread = 0;
    if (ioctl(descriptor_, FIONREAD, &unread) != 0) {
      return WorkFailed(std::string("output channel: cannot query the pipe: ") + std::strerror(errno));
    }
    if (written_ - static_cast<uint64_t>(unread) >= offset) return Status::Ok();
    usleep(20);  // the parent reads 1 MiB at a time: microseconds
  }
}

}  // namespace kopt::runner
