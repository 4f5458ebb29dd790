#include "runner/frame_sender.h"

#include <algorithm>
#include <span>

#include "runner/cuda_check.h"

namespace kopt::runner {

FrameSender::~FrameSender() {
  // Teardown: nothing to report errors to.
  for (std::byte* buffer : buffers_) {
    if (buffer != nullptr) (void)cudaFreeHost(buffer);
  }
  for (cudaEvent_t event : copied_) {
    if (event != nullptr) (void)cudaEventDestroy(event);
  }
}

Status FrameSender::Allocate() {
  for (size_t slot = 0; slot < buffers_.size(); ++slot) {
    if (buffers_[slot] != nullptr) continue;
    KOPT_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&buffers_[slot]), kPieceBytes));
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
  auto enqueue = [&](size_t piece) -> Status {
    size_t slot = piece % 2;
    KOPT_CUDA_CHECK(cudaMemcpyAsync(buffers_[slot], source + piece * kPieceBytes, piece_bytes(piece),
                                    cudaMemcpyDeviceToHost, stream));
    KOPT_CUDA_CHECK(cudaEventRecord(copied_[slot], stream));
    return Status::Ok();
  };
  KOPT_RETURN_IF_ERROR(enqueue(0));
  for (size_t piece = 0; piece < pieces; ++piece) {
    // The other buffer was written to the channel in the previous step: free for the next copy.
    if (piece + 1 < pieces) KOPT_RETURN_IF_ERROR(enqueue(piece + 1));
    size_t slot = piece % 2;
    KOPT_CUDA_CHECK(cudaEventSynchronize(copied_[slot]));
    KOPT_RETURN_IF_ERROR(channel_.Write(std::span<const std::byte>(buffers_[slot], piece_bytes(piece))));
  }
  return Status::Ok();
}

}  // namespace kopt::runner
