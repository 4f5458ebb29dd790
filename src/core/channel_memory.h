// Shared memory a child process writes its output channel into, instead of a
// pipe: the parent creates it, hands its
// descriptor to exactly one child, and after the child has ended seals it
// against every further change and maps it read-only. The bytes then cross
// no pipe and are never copied in the parent.
//
// The threat model is the one of docs/harness-protocol.md §3: the child (and
// anything it started) is hostile. Sealing (F_SEAL_WRITE, F_SEAL_SHRINK,
// F_SEAL_GROW, F_SEAL_SEAL) fails while any process still holds a writable
// shared mapping of the memory or has pages of it pinned, and afterwards no
// process can write, resize or unseal it (write/pwrite fail with EPERM, a
// writable mmap fails): what the parent judges after Seal is what it keeps.
// A child that keeps a writable mapping alive (a grandchild, a thread of a
// process that outlived it) or seals it first so that the parent cannot
// (F_SEAL_SEAL) makes Seal fail: the caller rejects that child.
//
// Linux only (memfd_create with MFD_ALLOW_SEALING, kernel 3.17); Create
// returns Unavailable elsewhere and the caller uses the pipe.
//
// Ownership: a ChannelMemory owns its descriptor (closed when destroyed);
// SealedBytes owns its read-only mapping (unmapped when destroyed).
// Thread safety: one object per thread; distinct objects are independent.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <span>

#include "core/status.h"

namespace kopt {

// A read-only mapping of sealed channel memory.
class SealedBytes {
 public:
  SealedBytes(const void* address, size_t bytes) : address_(address), bytes_(bytes) {}
  ~SealedBytes();
  SealedBytes(const SealedBytes&) = delete;
  SealedBytes& operator=(const SealedBytes&) = delete;
  std::span<const std::byte> bytes() const { return {static_cast<const std::byte*>(address_), bytes_}; }

 private:
  const void* address_;
  size_t bytes_;
};

class ChannelMemory {
 public:
  ChannelMemory() = default;
  ~ChannelMemory();
  ChannelMemory(ChannelMemory&& other) noexcept;
  ChannelMemory& operator=(ChannelMemory&& other) noexcept;
  ChannelMemory(const ChannelMemory&) = delete;
  ChannelMemory& operator=(const ChannelMemory&) = delete;

  // Creates `bytes` bytes (> 0) of zeroed, sealable memory, allocated up
  // front (fallocate, in steps) so that the child's writes fault no page in
  // (that is the slow part on large channels: about 1.3 GB/s on the H200's
  // host). Unavailable: no memfd or no sealing here; WorkFailed: out of
  // memory; Unavailable "cancelled" when `*cancel` became true between steps.
  static Result<ChannelMemory> Create(size_t bytes, const std::atomic<bool>* cancel = nullptr);

  // The descriptor to give the child (close-on-exec here; -1 when empty).
  int descriptor() const { return descriptor_; }
  // The size it was created with (the child may grow it before Seal).
  size_t capacity_bytes() const { return capacity_bytes_; }

  // Seals the memory against writing, resizing and further sealing, then
  // maps it read-only, all of it (its size as it is now). WorkFailed naming
  // the cause when sealing fails (a process still holds a writable mapping
  // or pinned pages of it, or it was sealed by someone else) or when it was
  // grown past `max_bytes`: the writer tampered with the channel. The
  // descriptor is closed afterwards either way.
  Result<std::shared_ptr<const SealedBytes>> Seal(size_t max_bytes);

 private:
  void Close();
  int descriptor_ = -1;
  size_t capacity_bytes_ = 0;
};

}  // namespace kopt
