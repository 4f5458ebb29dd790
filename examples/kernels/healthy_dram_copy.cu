// healthy_dram_copy: HEALTHY (no planted bottleneck) - a copy near the DRAM bandwidth ceiling.
// One 16-byte float4 load and store per thread, fully coalesced, 512 MB in and 512 MB out (about 17x the
// L2): DRAM throughput should sit near its peak. The only real gain left is to move fewer bytes.
// Usage: ./healthy_dram_copy [reps]
#include "example_common.cuh"

__global__ void healthy_dram_copy(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n4) out[i] = in[i];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t n4 = size_t(1) << 25;  // float4s: 512 MB
  float4* in = device_alloc<float4>(n4);
  float4* out = device_alloc<float4>(n4);
  fill_random<<<4096, 256>>>((float*)in, n4 * 4, 23, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    healthy_dram_copy<<<unsigned((n4 + 255) / 256), 256>>>(in, out, n4);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float4> a(1024), b(1024);
  CK(cudaMemcpy(a.data(), in + 123456, 1024 * sizeof(float4), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b.data(), out + 123456, 1024 * sizeof(float4), cudaMemcpyDeviceToHost));
  for (int k = 0; k < 1024; ++k)
    if (a[k].x != b[k].x || a[k].w != b[k].w) fail("wrong result\n");
  time_kernel("healthy_dram_copy", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
