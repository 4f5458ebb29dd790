// bf16_gemm_smem_tiled_moe_expert: blind set 6, kind 5 (a SIMT GEMM that should use tensor cores).
// One mixture-of-experts expert's up-projection for the 2,048 tokens routed to it (hidden 2,048,
// intermediate 4,096), bf16 weights and activations, written as the textbook shared-memory tiled GEMM:
// 16 x 16 tiles of bf16 staged in shared memory, one output per thread, each product converted to float and
// FFMA-accumulated, two shared loads per FMA and two barriers per tile step. 34 GFLOP at a few TFLOP/s on
// the CUDA cores (LSU/shared-load bound), where bf16 tensor cores (mma/wgmma, or cuBLAS) run at hundreds.
// Usage: ./bf16_gemm_smem_tiled_moe_expert [reps]
#include <cuda_bf16.h>

#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kTile = 16;

__global__ void bf16_gemm_smem_tiled_moe_expert(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                                                __nv_bfloat16* __restrict__ y, int tokens, int hidden, int inter) {
  __shared__ __nv_bfloat16 xs[kTile][kTile], ws[kTile][kTile];
  int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;  // token, output
  float acc = 0.0f;
  for (int k0 = 0; k0 < hidden; k0 += kTile) {
    xs[threadIdx.y][threadIdx.x] = x[size_t(row) * hidden + k0 + threadIdx.x];
    ws[threadIdx.y][threadIdx.x] = w[size_t(k0 + threadIdx.y) * inter + col];  // w: [hidden][inter]
    __syncthreads();
    for (int k = 0; k < kTile; ++k) acc += __bfloat162float(xs[threadIdx.y][k]) * __bfloat162float(ws[k][threadIdx.x]);
    __syncthreads();
  }
  y[size_t(row) * inter + col] = __float2bfloat16(acc);
}

__global__ void to_bf16(const float* in, __nv_bfloat16* out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = __float2bfloat16(in[i]);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int tokens = 2048, hidden = 2048, inter = 4096;
  float* tmp = device_alloc<float>(size_t(hidden) * inter);
  __nv_bfloat16* x = device_alloc<__nv_bfloat16>(size_t(tokens) * hidden);
  __nv_bfloat16* w = device_alloc<__nv_bfloat16>(size_t(hidden) * inter);
  __nv_bfloat16* y = device_alloc<__nv_bfloat16>(size_t(tokens) * inter);
  fill_random<<<1024, 256>>>(tmp, size_t(tokens) * hidden, 641, 1e-3f, 1.0f);
  to_bf16<<<1024, 256>>>(tmp, x, size_t(tokens) * hidden);
  fill_random<<<1024, 256>>>(tmp, size_t(hidden) * inter, 642, -0.05f + 1e-6f, 0.05f);
  to_bf16<<<1024, 256>>>(tmp, w, size_t(hidden) * inter);
  CK(cudaGetLastError());
  auto launch = [&] {
    bf16_gemm_smem_tiled_moe_expert<<<dim3(inter / kTile, tokens / kTile), dim3(kTile, kTile)>>>(x, w, y, tokens, hidden, inter);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<__nv_bfloat16> hx(size_t(tokens) * hidden), hw(size_t(hidden) * inter);
  CK(cudaMemcpy(hx.data(), x, hx.size() * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hw.data(), w, hw.size() * 2, cudaMemcpyDeviceToHost));
  for (auto [t, o] : {std::pair{0, 0}, {1000, 2345}, {2047, 4095}}) {
    double want = 0, mag = 0;
    for (int k = 0; k < hidden; ++k) {
      double p = double(__bfloat162float(hx[size_t(t) * hidden + k])) * __bfloat162float(hw[size_t(k) * inter + o]);
      want += p;
      mag += std::fabs(p);
    }
    float got = __bfloat162float(read_back(y + size_t(t) * inter + o));
    if (!(std::fabs(got - want) <= 1e-2 * mag + 1e-3)) fail("wrong output (%d,%d): %g vs %g\n", t, o, got, want);
  }
  time_kernel("bf16_gemm_smem_tiled_moe_expert", reps, launch);
  free_device({tmp, x, w, y});
  printf("ok\n");
  return 0;
}
