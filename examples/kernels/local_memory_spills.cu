// local_memory_spills: PLANTED BOTTLENECK = local memory (per-thread array indexed at run time).
// Each thread keeps float a[64] and reads/writes it at pseudo-random run-time indices, so the compiler
// cannot keep it in registers: it lives in local memory (256-byte stack frame, LDL/STL in SASS). Lanes use
// different indices, so each LDL/STL touches up to 32 sectors, and the 512 KB of local data per SM
// (64 warps x 8 KB) overflows L1 into L2.
// Size: 2^20 threads, 64 floats each read once from a 256 MB input; 64 local read+write steps each.
// Usage: ./local_memory_spills [reps]
#include "example_common.cuh"

#define LEN 64
__global__ void local_memory_spills(const float* __restrict__ in, float* __restrict__ out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a[LEN];  // indexed with run-time values below: placed in local memory
  for (int j = 0; j < LEN; ++j) a[j] = in[(size_t)j * n + i];
  unsigned h = i * 2654435761u;
  float s = 0.0f;
  for (int k = 0; k < iters; ++k) {
    h = h * 1664525u + 1013904223u;
    float v = a[h >> 26];
    s += v;
    a[(h >> 20) & (LEN - 1)] = v * 0.5f + 0.25f;
  }
  out[i] = s;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 20, iters = 64;
  float* in = device_alloc<float>((size_t)n * LEN);
  float* out = device_alloc<float>(n);
  fill_random<<<4096, 256>>>(in, (size_t)n * LEN, 4, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    local_memory_spills<<<n / 256, 256>>>(in, out, n, iters);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float s = read_back(out + 11);
  if (!(s > 0.0f && s < 2.0f * iters)) fail("wrong result %f\n", s);
  time_kernel("local_memory_spills", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
