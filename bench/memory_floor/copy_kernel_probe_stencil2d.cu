// Probe, not a candidate (bench/memory_floor): a copy KERNEL of x into y
// (H * W floats read and written, the bytes stencil2d moves), 16-byte loads
// and stores, UNROLL loads in flight per thread, grid-stride tiles over 132 *
// BLOCKS_PER_SM blocks of 512 threads: what an ordinary kernel (not
// cudaMemcpy) achieves for stencil2d's traffic. Its CHECK fails (y = x);
// only its time matters. Assumes H * W % (4 * 512 * UNROLL) == 0 (8192 x 8192).
#ifndef BLOCKS_PER_SM
#define BLOCKS_PER_SM 4
#endif
#ifndef UNROLL
#define UNROLL 4
#endif
constexpr int kThreads = 512;

__global__ void __launch_bounds__(kThreads) copy_kernel_probe(const float4* x, float4* y, long long vectors) {
  const long long tile = static_cast<long long>(kThreads) * UNROLL;
  for (long long base = blockIdx.x * tile + threadIdx.x; base + (UNROLL - 1) * kThreads < vectors;
       base += static_cast<long long>(gridDim.x) * tile) {
    float4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = x[base + u * kThreads];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) y[base + u * kThreads] = v[u];
  }
}

extern "C" void stencil2d(const float* x, const float* w, float* y, int H, int W, cudaStream_t stream) {
  (void)w;
  copy_kernel_probe<<<132 * BLOCKS_PER_SM, kThreads, 0, stream>>>(
      reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), static_cast<long long>(H) * W / 4);
}
