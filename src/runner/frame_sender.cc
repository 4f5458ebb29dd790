#include "runner/frame_sender.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <span>

#include "runner/cuda_check.h"

namespace kopt::runner {

FrameSender::~FrameSender() {
  // Teardown: nothing to report errors to.
  for (std::byte* buffer : buffers_) {
    if (buffer == nullptr) continue;
    (void)cudaHostUnregister(buffer);
    // Unmapped, never handed back to malloc: pages a pipe still holds (the
    // last piece lent, not yet read) stay as they are until the parent reads them.
    munmap(buffer, kPieceBytes);
  }
  for (cudaEvent_t event : copied_) {
    if (event != nullptr) (void)cudaEventDestroy(event);
  }
}

// Ordinary pages, written once and then pinned (cudaHostRegister), rather
// than cudaMallocHost's: the kernel can lend ordinary pages to a pipe
// (vmsplice), and the device copies into pinned ones directly.
Status FrameSender::Allocate() {
  for (size_t slot = 0; slot < buffers_.size(); ++slot) {
    if (buffers_[slot] != nullptr) continue;
    void* buffer = mmap(nullptr, kPieceBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buffer == MAP_FAILED) return WorkFailed("out of host memory for the output buffers");
    std::memset(buffer, 0, kPieceBytes);
    if (cudaHostRegister(buffer, kPieceBytes, cudaHostRegisterDefault) != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky: pageable copies still work, only slower
    }
    buffers_[slot] = static_cast<std::byte*>(buffer);
    KOPT_CUDA_CHECK(cudaEventCreateWithFlags(&copied_[slot], cudaEventDisableTiming));
  }
  return Status::Ok();
}

Status FrameSender::Send(const FrameKey& key, const void* pointer, size_t bytes, cudaStream_t stream) {
  KOPT_RETURN_IF_ERROR(channel_.BeginFrame(key, bytes));
  if (bytes == 0 || !channel_.connected()) return Status::Ok();
  KOPT_RETURN_IF_ERROR(Allocate());
  const auto* source = static_cast<const std::byte*>(pointer);
  size_t pieces = (bytes + kPieceBytes - 1) / kPieceBytes;
  auto piece_bytes = [&](size_t piece) { return std::min(kPieceBytes, bytes - piece * kPieceBytes); };
  auto slot_of = [&](size_t piece) { return (next_slot_ + piece) % buffers_.size(); };
  auto enqueue = [&](size_t piece) -> Status {
    size_t slot = slot_of(piece);
    // The parent must have read what this buffer lent before (usually long ago).
    KOPT_RETURN_IF_ERROR(channel_.Consumed(lent_until_[slot]));
    KOPT_CUDA_CHECK(cudaMemcpyAsync(buffers_[slot], source + piece * kPieceBytes, piece_bytes(piece),
                                    cudaMemcpyDeviceToHost, stream));
    KOPT_CUDA_CHECK(cudaEventRecord(copied_[slot], stream));
    return Status::Ok();
  };
  KOPT_RETURN_IF_ERROR(enqueue(0));
  for (size_t piece = 0; piece < pieces; ++piece) {
    if (piece + 1 < pieces) KOPT_RETURN_IF_ERROR(enqueue(piece + 1));
    size_t slot = slot_of(piece);
    KOPT_CUDA_CHECK(cudaEventSynchronize(copied_[slot]));
    KOPT_ASSIGN_OR_RETURN(lent_until_[slot],
                          channel_.Lend(std::span<const std::byte>(buffers_[slot], piece_bytes(piece))));
  }
  // A pulled channel: the parent copies from the buffers themselves, so the
  // frame is sent only when it has (the process may end or unmap them next).
  size_t last_slot = slot_of(pieces - 1);
  next_slot_ = slot_of(pieces);
  if (channel_.pulled()) return channel_.Consumed(lent_until_[last_slot]);
  return Status::Ok();
}

}  // namespace kopt::runner
