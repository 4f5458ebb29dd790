// imbalance_cluster_core_cells: blind set 6, kind 6 (load imbalance across SMs).
// SPH-style density of a cosmological snapshot on a cell list (astrophysics): 4,096 cells, one 256-thread
// block per cell, each particle summing a smooth kernel (1 - r^2/h^2)^2 over all particles of its cell.
// Most cells hold 32 particles (1 K pairs), but four cells in the cores of galaxy clusters hold 4,096 each
// (16.8 M pairs): those four blocks carry 94 % of the 71 M pair evaluations, so after the first few
// microseconds four SMs work (one block, eight warps each) while the other 128 are idle. Splitting big cells
// over several blocks (or a pair-list work queue) is the fix; memory traffic is a few MB, L1-resident.
// Usage: ./imbalance_cluster_core_cells [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kCells = 4096, kSmall = 32, kBig = 4096;

__host__ __device__ inline int cell_size(int c) {
  return (c % 1024 == 100) ? kBig : kSmall;
}

__global__ void imbalance_cluster_core_cells(const float4* __restrict__ pos, const int* __restrict__ start,
                                             float* __restrict__ density, float inv_h2) {
  int c = blockIdx.x, first = start[c], count = start[c + 1] - first;
  for (int i = threadIdx.x; i < count; i += blockDim.x) {
    float4 p = pos[first + i];
    float rho = 0.0f;
    for (int j = 0; j < count; ++j) {
      float4 q = pos[first + j];
      float dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
      float u = fmaxf(1.0f - (dx * dx + dy * dy + dz * dz) * inv_h2, 0.0f);
      rho += q.w * u * u;
    }
    density[first + i] = rho;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  std::vector<int> hs(kCells + 1, 0);
  for (int c = 0; c < kCells; ++c) hs[c + 1] = hs[c] + cell_size(c);
  const int n = hs[kCells];
  std::vector<float4> hp(n);
  for (int c = 0; c < kCells; ++c)
    for (int i = hs[c]; i < hs[c + 1]; ++i) {
      unsigned h = unsigned(i) * 2654435761u;
      float spread = cell_size(c) == kBig ? 0.3f : 1.0f;
      hp[i] = make_float4(spread * ((h >> 4) & 1023) / 1024.0f, spread * ((h >> 14) & 1023) / 1024.0f,
                          spread * ((h >> 22) & 1023) / 1024.0f, 1.0f + (i % 5) * 0.25f);
    }
  const float inv_h2 = 1.0f / (0.5f * 0.5f);
  float4* pos = device_alloc<float4>(n);
  int* start = device_alloc<int>(kCells + 1);
  float* density = device_alloc<float>(n);
  CK(cudaMemcpy(pos, hp.data(), sizeof(float4) * n, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(start, hs.data(), sizeof(int) * (kCells + 1), cudaMemcpyHostToDevice));
  auto launch = [&] {
    imbalance_cluster_core_cells<<<kCells, 256>>>(pos, start, density, inv_h2);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int c : {0, 100, 2047, 3172}) {
    for (int i : {hs[c], hs[c + 1] - 1}) {
      double want = 0;
      for (int j = hs[c]; j < hs[c + 1]; ++j) {
        double dx = hp[i].x - hp[j].x, dy = hp[i].y - hp[j].y, dz = hp[i].z - hp[j].z;
        double u = std::fmax(1.0 - (dx * dx + dy * dy + dz * dz) * inv_h2, 0.0);
        want += hp[j].w * u * u;
      }
      float got = read_back(density + i);
      if (!(std::fabs(got - want) <= 1e-3 * want + 1e-4)) fail("wrong density %d: %f vs %f\n", i, got, want);
    }
  }
  time_kernel("imbalance_cluster_core_cells", reps, launch);
  free_device({pos, start, density});
  printf("ok\n");
  return 0;
}
