#include "runner/device_tensors.h"

#include <cstring>

#include "runner/cuda_check.h"

namespace kopt::runner {

Result<std::unique_ptr<DeviceTensors>> DeviceTensors::Allocate(const RunnerTask& task) {
  std::unique_ptr<DeviceTensors> tensors(new DeviceTensors());
  for (const TensorDecl& tensor : task.tensors) {
    void* pointer = nullptr;
    size_t bytes = static_cast<size_t>(tensor.ByteCount());
    KOPT_CUDA_CHECK(cudaMalloc(&pointer, bytes));
    tensors->pointers_.push_back(pointer);
    tensors->byte_counts_.push_back(bytes);
  }
  return tensors;
}

DeviceTensors::~DeviceTensors() {
  for (void* pointer : pointers_) cudaFree(pointer);  // errors ignored: nothing to do about them here
}

Status DeviceTensors::Upload(size_t index, std::span<const std::byte> contents) {
  if (contents.size() != byte_counts_[index]) {
    return Internal("DeviceTensors::Upload: host contents do not match the tensor's byte size");
  }
  KOPT_CUDA_CHECK(cudaMemcpy(pointers_[index], contents.data(), contents.size(), cudaMemcpyHostToDevice));
  // A pageable-memory cudaMemcpy may return before its DMA reaches the
  // device, and the harness stream is non-blocking (not ordered after the
  // legacy stream): without this wait a kernel launched next could be
  // overwritten by the tail of the copy (seen on the H200: the NaN poison
  // landing on 13,024 elements the reference had just written).
  KOPT_CUDA_CHECK(cudaDeviceSynchronize());
  return Status::Ok();
}

Status DeviceTensors::CopyFrom(const DeviceTensors& source) {
  if (source.byte_counts_ != byte_counts_) {
    return Internal("DeviceTensors::CopyFrom: the two sets hold tensors of different sizes");
  }
  for (size_t index = 0; index < pointers_.size(); ++index) {
    KOPT_RETURN_IF_ERROR(CopyTensorFrom(index, source));
  }
  return Status::Ok();
}

Status DeviceTensors::CopyTensorFrom(size_t index, const DeviceTensors& source) {
  if (source.byte_counts_[index] != byte_counts_[index]) {
    return Internal("DeviceTensors::CopyTensorFrom: the two tensors differ in size");
  }
  KOPT_CUDA_CHECK(
      cudaMemcpy(pointers_[index], source.pointers_[index], byte_counts_[index], cudaMemcpyDeviceToDevice));
  KOPT_CUDA_CHECK(cudaDeviceSynchronize());  // legacy-stream copy: see Upload
  return Status::Ok();
}

Status DeviceTensors::Fill(size_t index, std::byte value) {
  KOPT_CUDA_CHECK(cudaMemset(pointers_[index], static_cast<int>(value), byte_counts_[index]));
  KOPT_CUDA_CHECK(cudaDeviceSynchronize());  // cudaMemset may return early and is not on the harness stream
  return Status::Ok();
}

Status DeviceTensors::DownloadInto(size_t index, std::vector<std::byte>& destination) const {
  destination.resize(byte_counts_[index]);
  KOPT_CUDA_CHECK(
      cudaMemcpy(destination.data(), pointers_[index], destination.size(), cudaMemcpyDeviceToHost));
  return Status::Ok();
}

ScalarArguments::ScalarArguments(const std::vector<ScalarDecl>& scalars) {
  for (const ScalarDecl& scalar : scalars) {
    auto store = [&](const auto& value) {
      auto bytes = std::make_unique<std::byte[]>(sizeof(value));
      std::memcpy(bytes.get(), &value, sizeof(value));
      pointers_.push_back(bytes.get());
      storage_.push_back(std::move(bytes));
    };
    switch (scalar.type) {
      case ScalarType::kI32: store(static_cast<int32_t>(scalar.integer_value)); break;
      case ScalarType::kI64: store(static_cast<int64_t>(scalar.integer_value)); break;
      case ScalarType::kF32: store(static_cast<float>(scalar.float_value)); break;
      case ScalarType::kF64: store(scalar.float_value); break;
    }
  }
}

}  // namespace kopt::runner
