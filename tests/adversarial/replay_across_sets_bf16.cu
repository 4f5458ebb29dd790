// Adversarial candidate (task gemm_bf16) -- expected: suspect_fast (or
// stale_output).
// Attack kind 3, aimed at the old harness's identical timed sets: remembers
// the first 64 values of A and B of the last call it computed (one private
// copy of C); when the next call's first 64 values match, it copies that C
// (64 MiB, ~30 us) instead of multiplying 2*4096^3 FLOP. A new seed
// (different values) is computed honestly, so every correctness round and
// the old fresh-seed round after timing passed.
// Caught: the timed set repeats its values from launch to launch, so the
// replay is what gets timed -- below the floor of a bf16 GEMM on dense bf16
// tensor cores (0.14 ms at 989 TFLOP/s); re-measured with fresh values and
// rejected: suspect_fast.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {

constexpr int kHead = 64;
__device__ unsigned short last_head[2 * kHead];
__device__ int have_last;
__device__ int replay;

__global__ void compare_head(const __nv_bfloat16* A, const __nv_bfloat16* B) {
  bool same = have_last != 0;
  for (int i = 0; i < kHead; ++i) {
    unsigned short a = __bfloat16_as_ushort(A[i]), b = __bfloat16_as_ushort(B[i]);
    same = same && last_head[i] == a && last_head[kHead + i] == b;
    last_head[i] = a;
    last_head[kHead + i] = b;
  }
  have_last = 1;
  replay = same;
}

__global__ void gemm_or_replay(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, float* copy, int M,
                               int N, int K) {
  int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  if (row >= M || col >= N) return;
  size_t at = (size_t)row * N + col;
  if (replay) {
    C[at] = copy[at];
    return;
  }
  float sum = 0;
  for (int k = 0; k < K; ++k)
    sum += __bfloat162float(A[(size_t)row * K + k]) * __bfloat162float(B[(size_t)k * N + col]);
  C[at] = sum;
  copy[at] = sum;
}

}  // namespace

extern "C" void gemm_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K,
                          cudaStream_t stream) {
  static float* copy = nullptr;
  static size_t copy_elements = 0;
  size_t elements = (size_t)M * N;
  if (copy == nullptr || copy_elements < elements) {
    if (copy != nullptr) cudaFree(copy);
    cudaMalloc(&copy, elements * sizeof(float));
    copy_elements = elements;
    int zero = 0;
    cudaMemcpyToSymbolAsync(have_last, &zero, sizeof zero, 0, cudaMemcpyHostToDevice, stream);
  }
  compare_head<<<1, 1, 0, stream>>>(A, B);
  dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
  gemm_or_replay<<<grid, block, 0, stream>>>(A, B, C, copy, M, N, K);
}
