// The device memory of one set of a task's tensors, and the argument arrays
// kopt_launch takes (docs/harness-protocol.md §2).
//
// One cudaMalloc per tensor (cudaMalloc returns at least 256-byte aligned
// pointers). The candidate's and the reference's tensors are always separate
// DeviceTensors objects, so neither can see the other's outputs.
//
// Ownership: frees its memory when destroyed, except after a sticky CUDA
// error, when the runner exits without running destructors (std::_Exit).
// Thread safety: not thread-safe; use from the thread that set the device.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/status.h"
#include "runner_protocol/runner_request.h"

namespace kopt::runner {

class DeviceTensors {
 public:
  // Allocates every tensor of `task` (its current shapes).
  static Result<std::unique_ptr<DeviceTensors>> Allocate(const RunnerTask& task);
  ~DeviceTensors();
  DeviceTensors(const DeviceTensors&) = delete;
  DeviceTensors& operator=(const DeviceTensors&) = delete;

  // Copies host contents (exactly the tensor's byte size) to tensor `index`.
  Status Upload(size_t index, std::span<const std::byte> contents);
  // Copies every tensor of `source` (the same task: same byte sizes) into
  // this set on the device, and waits for the copies.
  Status CopyFrom(const DeviceTensors& source);
  // Copies tensor `index` of `source` (same byte size) into tensor `index`
  // on the device, and waits.
  Status CopyTensorFrom(size_t index, const DeviceTensors& source);
  // Sets every byte of tensor `index` to `value` on the device, and waits.
  Status Fill(size_t index, std::byte value);
  // Copies tensor `index` back into `destination`, resized to the tensor's
  // byte count (its memory is reused when large enough).
  Status DownloadInto(size_t index, std::vector<std::byte>& destination) const;
  size_t size() const { return pointers_.size(); }
  size_t ByteCount(size_t index) const { return byte_counts_[index]; }
  // The tensors argument of kopt_launch.
  void* const* Pointers() const { return pointers_.data(); }

 private:
  DeviceTensors() = default;
  std::vector<void*> pointers_;
  std::vector<size_t> byte_counts_;
};

// Scalar values stored with their C types (int, int64_t, float, double), and
// the scalars argument of kopt_launch pointing at them.
class ScalarArguments {
 public:
  explicit ScalarArguments(const std::vector<ScalarDecl>& scalars);
  ScalarArguments(const ScalarArguments&) = delete;
  ScalarArguments& operator=(const ScalarArguments&) = delete;
  const void* const* Pointers() const { return pointers_.data(); }

 private:
  std::vector<std::unique_ptr<std::byte[]>> storage_;
  std::vector<const void*> pointers_;
};

}  // namespace kopt::runner
