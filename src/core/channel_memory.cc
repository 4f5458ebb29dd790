#include "core/channel_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace kopt {
namespace {

std::string ErrnoText(int error) {
  return std::strerror(error);
}

}  // namespace

SealedBytes::~SealedBytes() {
  if (address_ != nullptr && bytes_ > 0) munmap(const_cast<void*>(address_), bytes_);
}

ChannelMemory::~ChannelMemory() {
  Close();
}

ChannelMemory::ChannelMemory(ChannelMemory&& other) noexcept
    : descriptor_(std::exchange(other.descriptor_, -1)),
      capacity_bytes_(std::exchange(other.capacity_bytes_, 0)) {}

ChannelMemory& ChannelMemory::operator=(ChannelMemory&& other) noexcept {
  if (this != &other) {
    Close();
    descriptor_ = std::exchange(other.descriptor_, -1);
    capacity_bytes_ = std::exchange(other.capacity_bytes_, 0);
  }
  return *this;
}

void ChannelMemory::Close() {
  if (descriptor_ >= 0) close(descriptor_);
  descriptor_ = -1;
}

Result<ChannelMemory> ChannelMemory::Create(size_t bytes, const std::atomic<bool>* cancel) {
  if (bytes == 0) return InvalidInput("channel memory: zero bytes requested");
#if defined(__linux__) && defined(MFD_ALLOW_SEALING) && defined(F_ADD_SEALS)
  int descriptor = memfd_create("kopt-output-channel", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (descriptor < 0) {
    return Unavailable("channel memory: memfd_create failed: " + ErrnoText(errno));
  }
  ChannelMemory memory;
  memory.descriptor_ = descriptor;
  memory.capacity_bytes_ = bytes;
  if (ftruncate(descriptor, static_cast<off_t>(bytes)) != 0) {
    return WorkFailed("channel memory: cannot size it to " + std::to_string(bytes) +
                      " bytes: " + ErrnoText(errno));
  }
  // Allocates every page now (zeroed), not when the child writes it. Best
  // effort: without it the child's writes allocate the pages themselves.
  constexpr size_t kStep = size_t{256} << 20;
  for (size_t offset = 0; offset < bytes; offset += kStep) {
    if (cancel != nullptr && cancel->load()) return Unavailable("channel memory: cancelled");
    size_t length = std::min(kStep, bytes - offset);
    int error = 0;
    do {
      error = posix_fallocate(descriptor, static_cast<off_t>(offset), static_cast<off_t>(length));
    } while (error == EINTR);
    if (error == ENOSPC || error == ENOMEM) {
      return WorkFailed("channel memory: cannot allocate " + std::to_string(bytes) +
                        " bytes: " + ErrnoText(error));
    }
    if (error != 0) break;  // no fallocate here: the child's writes allocate the pages
  }
  // Sealing must work here, or the memory is useless as a channel: test with a harmless seal.
  if (fcntl(descriptor, F_ADD_SEALS, 0) != 0) {
    return Unavailable("channel memory: sealing unsupported: " + ErrnoText(errno));
  }
  return memory;
#else
  return Unavailable("channel memory: memfd sealing is Linux-only");
#endif
}

Result<std::shared_ptr<const SealedBytes>> ChannelMemory::Seal(size_t max_bytes) {
  if (descriptor_ < 0) return Internal("channel memory: Seal without memory");
  int descriptor = descriptor_;
  struct CloseLater {
    ChannelMemory* memory;
    ~CloseLater() { memory->Close(); }
  } close_later{this};
#if defined(__linux__) && defined(F_ADD_SEALS)
  if (fcntl(descriptor, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    int error = errno;
    if (error == EBUSY) {
      return WorkFailed(
          "output channel memory could not be sealed: a process still holds a writable mapping (or pinned "
          "pages) of it after the child ended");
    }
    if (error == EPERM) {
      return WorkFailed("output channel memory could not be sealed: someone else sealed it (F_SEAL_SEAL)");
    }
    return WorkFailed("output channel memory could not be sealed: " + ErrnoText(error));
  }
  int seals = fcntl(descriptor, F_GET_SEALS);
  constexpr int kNeeded = F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;
  if (seals < 0 || (seals & kNeeded) != kNeeded) {
    return WorkFailed("output channel memory: the seals did not hold (F_GET_SEALS " + std::to_string(seals) +
                      ")");
  }
  struct stat status {};
  if (fstat(descriptor, &status) != 0)
    return WorkFailed("output channel memory: fstat failed: " + ErrnoText(errno));
  size_t bytes = static_cast<size_t>(status.st_size);
  if (bytes > max_bytes) {
    return WorkFailed("output channel memory was grown to " + std::to_string(bytes) +
                      " bytes, more than the " + std::to_string(max_bytes) + " allowed");
  }
  if (bytes == 0) return std::make_shared<const SealedBytes>(nullptr, 0);
  void* address = mmap(nullptr, bytes, PROT_READ, MAP_SHARED, descriptor, 0);
  if (address == MAP_FAILED) {
    return WorkFailed("output channel memory: cannot map " + std::to_string(bytes) +
                      " bytes: " + ErrnoText(errno));
  }
  return std::make_shared<const SealedBytes>(address, bytes);
#else
  (void)descriptor;
  return Unavailable("channel memory: memfd sealing is Linux-only");
#endif
}

}  // namespace kopt
