#include "runner/output_channel.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

}  // namespace

OutputChannel::OutputChannel(int descriptor, bool memory) {
  if (descriptor < 0) return;
  descriptor_ = fcntl(descriptor, F_DUPFD_CLOEXEC, 64);
  if (descriptor_ < 0) {
    descriptor_ = descriptor;  // keep the given one: still correct
    return;
  }
  close(descriptor);
  if (memory) {
    memory_.emplace(descriptor_);
    return;
  }
#ifdef F_SETPIPE_SZ
  (void)fcntl(descriptor_, F_SETPIPE_SZ, 1 << 20);  // fewer wake-ups for large tensors; best effort
#endif
}

OutputChannel::~OutputChannel() {
  if (descriptor_ >= 0) close(descriptor_);
}

Status OutputChannel::BeginFrame(const FrameKey& key, uint64_t payload_bytes) {
  if (descriptor_ < 0) return Status::Ok();
  if (memory_) return memory_->Begin(key, payload_bytes);
  std::string head = EncodeFrameHead(key, payload_bytes);
  return WriteAll(descriptor_, head.data(), head.size());
}

Status OutputChannel::Write(std::span<const std::byte> bytes) {
  if (descriptor_ < 0) return Status::Ok();
  if (memory_) return memory_->Write(bytes);
  return WriteAll(descriptor_, bytes.data(), bytes.size());
}

}  // namespace kopt::runner
