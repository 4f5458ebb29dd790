// nbody_sqrt_div_forces: blind set 3, kind 1 (the busy unit is the wrong one: IEEE sqrt and division).
// Gravitational acceleration at 135,168 probe points from 16,384 source masses, sources staged through
// shared memory in tiles of 128 (the textbook all-pairs layout), but each interaction computes
// r = sqrtf(r2) and m / (r2 * r) without fast math: an IEEE square root and an IEEE division per pair,
// each a MUFU op plus a refinement sequence and a slow-path check. rsqrtf (one MUFU.RSQ, then
// inv_r3 = rs * rs * rs) removes both and roughly halves the instructions per interaction.
// Usage: ./nbody_sqrt_div_forces [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kTile = 128;
constexpr float kSoftening = 1e-3f;

__global__ void nbody_sqrt_div_forces(const float4* __restrict__ probes, const float4* __restrict__ sources,
                                      int n_sources, float4* __restrict__ acc) {
  __shared__ float4 tile[kTile];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 p = probes[i];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int t = 0; t < n_sources; t += kTile) {
    tile[threadIdx.x] = sources[t + threadIdx.x];
    __syncthreads();
#pragma unroll 4
    for (int j = 0; j < kTile; ++j) {
      float4 s = tile[j];
      float dx = s.x - p.x, dy = s.y - p.y, dz = s.z - p.z;
      float r2 = dx * dx + dy * dy + dz * dz + kSoftening;
      float r = sqrtf(r2);
      float f = s.w / (r2 * r);
      ax += dx * f;
      ay += dy * f;
      az += dz * f;
    }
    __syncthreads();
  }
  acc[i] = make_float4(ax, ay, az, 0.0f);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n_probes = 132 * 8 * kTile, n_sources = 16384;
  float4* probes = device_alloc<float4>(n_probes);
  float4* sources = device_alloc<float4>(n_sources);
  float4* acc = device_alloc<float4>(n_probes);
  fill_random<<<1024, 256>>>((float*)probes, 4 * size_t(n_probes), 302, 0.0f, 1.0f);
  fill_random<<<256, 256>>>((float*)sources, 4 * size_t(n_sources), 303, 0.0f, 1.0f);  // w: mass in [0, 1)
  CK(cudaGetLastError());
  auto launch = [&] {
    nbody_sqrt_div_forces<<<n_probes / kTile, kTile>>>(probes, sources, n_sources, acc);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float4> hs(n_sources);
  CK(cudaMemcpy(hs.data(), sources, n_sources * sizeof(float4), cudaMemcpyDeviceToHost));
  for (int i : {0, 777, 99999, n_probes - 1}) {
    float4 p = read_back(probes + i), got = read_back(acc + i);
    double want = 0, scale = 0;
    for (const float4& s : hs) {
      double dx = double(s.x) - p.x, dy = double(s.y) - p.y, dz = double(s.z) - p.z;
      double r2 = dx * dx + dy * dy + dz * dz + kSoftening;
      double f = s.w / (r2 * sqrt(r2));
      want += dx * f;
      scale += fabs(dx * f);
    }
    if (!(fabs(got.x - want) <= 1e-4 * scale)) fail("wrong result at %d: %f vs %f\n", i, got.x, want);
  }
  time_kernel("nbody_sqrt_div_forces", reps, launch);
  free_device({probes, sources, acc});
  printf("ok\n");
  return 0;
}
