#include "runner/device_inputs.h"

#include "runner/cuda_check.h"
#include "runner/device_fill.h"
#include "runner_protocol/input_generator.h"

namespace kopt::runner {
namespace {

DeviceFillSpec FillSpecFor(const TensorDecl& tensor) {
  DeviceFillSpec spec;
  spec.dtype = static_cast<int>(tensor.dtype);
  spec.kind = static_cast<int>(tensor.init.kind);
  switch (tensor.init.kind) {
    case InitKind::kNormal: spec.a = tensor.init.mean, spec.b = tensor.init.stddev; break;
    case InitKind::kUniform: spec.a = tensor.init.low, spec.b = tensor.init.high; break;
    case InitKind::kHeavyTailed: spec.a = tensor.init.alpha, spec.b = tensor.init.scale; break;
    case InitKind::kIntRange: spec.low = tensor.init.integer_low, spec.high = tensor.init.integer_high; break;
    default: break;
  }
  return spec;
}

Status DrawTensor(const TensorDecl& tensor, uint64_t set_seed, void* pointer, size_t bytes,
                  cudaStream_t stream) {
  switch (tensor.init.kind) {
    case InitKind::kNone:
      KOPT_CUDA_CHECK(cudaMemsetAsync(pointer, static_cast<int>(kPoisonByte), bytes, stream));
      return Status::Ok();
    case InitKind::kZeros: KOPT_CUDA_CHECK(cudaMemsetAsync(pointer, 0, bytes, stream)); return Status::Ok();
    default:
      KOPT_CUDA_CHECK(LaunchDeviceFill(pointer, tensor.ElementCount(), FillSpecFor(tensor),
                                       TensorSeed(set_seed, tensor.name), stream));
      return Status::Ok();
  }
}

// Poisons the outputs and draws the inputs `draw` selects, from `set_seed`.
template <typename Selects>
Status PoisonOutputsAndDraw(const RunnerTask& task, uint64_t set_seed, DeviceTensors& tensors,
                            cudaStream_t stream, Selects draw) {
  for (size_t index = 0; index < task.tensors.size(); ++index) {
    const TensorDecl& tensor = task.tensors[index];
    void* pointer = tensors.Pointers()[index];
    if (tensor.role == TensorRole::kOutput) {
      KOPT_CUDA_CHECK(
          cudaMemsetAsync(pointer, static_cast<int>(kPoisonByte), tensors.ByteCount(index), stream));
    } else if (draw(tensor)) {
      KOPT_RETURN_IF_ERROR(DrawTensor(tensor, set_seed, pointer, tensors.ByteCount(index), stream));
    }
  }
  return Status::Ok();
}

}  // namespace

Status DrawSetOnDevice(const RunnerTask& task, uint64_t set_seed, DeviceTensors& tensors,
                       cudaStream_t stream) {
  return PoisonOutputsAndDraw(task, set_seed, tensors, stream, [](const TensorDecl&) { return true; });
}

Result<InputDifference> CompareWithDraw(const RunnerTask& task, size_t index, uint64_t set_seed,
                                        const DeviceTensors& tensors, cudaStream_t stream) {
  const TensorDecl& tensor = task.tensors[index];
  DeviceFillDifference found{0, ~0ull};
  DeviceFillDifference* on_device = nullptr;
  KOPT_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&on_device), sizeof found, stream));
  KOPT_CUDA_CHECK(cudaMemcpyAsync(on_device, &found, sizeof found, cudaMemcpyHostToDevice, stream));
  KOPT_CUDA_CHECK(LaunchDeviceFillCompare(tensors.Pointers()[index], tensor.ElementCount(),
                                          FillSpecFor(tensor), TensorSeed(set_seed, tensor.name), on_device,
                                          stream));
  KOPT_CUDA_CHECK(cudaMemcpyAsync(&found, on_device, sizeof found, cudaMemcpyDeviceToHost, stream));
  KOPT_CUDA_CHECK(cudaFreeAsync(on_device, stream));
  KOPT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return InputDifference{found.differing_bytes, found.first_byte};
}

Status PrepareSetForSample(const RunnerTask& task, uint64_t set_seed, DeviceTensors& tensors,
                           cudaStream_t stream) {
  return PoisonOutputsAndDraw(task, set_seed, tensors, stream,
                              [](const TensorDecl& tensor) { return tensor.role == TensorRole::kInout; });
}

}  // namespace kopt::runner
