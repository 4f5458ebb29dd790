#include "runner/sample_staging.h"

namespace kopt::runner {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 2048;

__device__ uint64_t Mix(uint64_t value) {  // splitmix64's finalizer
  value += 0x9e3779b97f4a7c15ull;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ull;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebull;
  return value ^ (value >> 31);
}

__global__ void DrawKernel(uint64_t threshold, uint64_t salt, uint32_t* device_flag, uint32_t* host_flag) {
  uint64_t nanoseconds = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(nanoseconds));
  uint64_t cycles = static_cast<uint64_t>(clock64());
  uint64_t draw = Mix(nanoseconds ^ Mix(cycles ^ Mix(salt))) >> 32;  // uniform in [0, 2^32)
  uint32_t staged = draw < threshold ? 1u : 0u;
  *device_flag = staged;
  *reinterpret_cast<volatile uint32_t*>(host_flag) = staged;
}

__global__ void CopyKernel(uint4* destination, const uint4* source, uint64_t vectors,
                           unsigned char* tail_destination, const unsigned char* tail_source,
                           uint64_t tail_bytes, const uint32_t* device_flag) {
  if (*device_flag == 0) return;
  uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  uint64_t first = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (uint64_t index = first; index < vectors; index += stride) destination[index] = source[index];
  for (uint64_t index = first; index < tail_bytes; index += stride)
    tail_destination[index] = tail_source[index];
}

}  // namespace

cudaError_t LoadStagingKernels() {
  cudaFuncAttributes attributes;
  cudaError_t error = cudaFuncGetAttributes(&attributes, DrawKernel);
  if (error != cudaSuccess) return error;
  return cudaFuncGetAttributes(&attributes, CopyKernel);
}

cudaError_t LaunchStagingDraw(double probability, uint64_t salt, StagingFlag flag, cudaStream_t stream) {
  double clamped = probability < 0 ? 0 : probability > 1 ? 1 : probability;
  uint64_t threshold = static_cast<uint64_t>(clamped * 4294967296.0);  // 2^32: always
  DrawKernel<<<1, 1, 0, stream>>>(threshold, salt, flag.device_flag, flag.host_flag);
  return cudaGetLastError();
}

cudaError_t LaunchCopyIfStaged(void* destination, const void* source, uint64_t bytes,
                               const uint32_t* device_flag, cudaStream_t stream) {
  if (bytes == 0) return cudaSuccess;
  // The buffers are cudaMalloc'd (256-byte aligned): 16-byte vectors, then the tail bytes.
  uint64_t vectors = bytes / sizeof(uint4);
  uint64_t tail = bytes - vectors * sizeof(uint4);
  uint64_t blocks = (vectors + kThreads - 1) / kThreads;
  int grid = static_cast<int>(blocks < 1 ? 1 : blocks > kMaxBlocks ? kMaxBlocks : blocks);
  auto* tail_destination = static_cast<unsigned char*>(destination) + vectors * sizeof(uint4);
  auto* tail_source = static_cast<const unsigned char*>(source) + vectors * sizeof(uint4);
  CopyKernel<<<grid, kThreads, 0, stream>>>(static_cast<uint4*>(destination),
                                            static_cast<const uint4*>(source), vectors, tail_destination,
                                            tail_source, tail, device_flag);
  return cudaGetLastError();
}

}  // namespace kopt::runner
