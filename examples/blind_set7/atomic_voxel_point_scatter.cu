// atomic_voxel_point_scatter: blind set 7, kind 6 (atomic contention).
// LiDAR voxelization (PointPillars-style feature scatter): 16 M points add their (x, y, z, intensity) into
// the sums of their voxel with four float atomicAdds each. A sweep of a street scene concentrates the points:
// 80 % of them fall into 64 voxels near the sensor (the road and a car right in front), so a warp's 32 lanes
// mostly add into the same few addresses and the grid's warps into the same 256 floats: same-address atomics
// serialized at the L2, while the 256 MB of coalesced point reads need ~60 us and the per-thread work is
// uniform. Sorting points by voxel and a segmented reduction (or warp aggregation) is the fix.
// Usage: ./atomic_voxel_point_scatter [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kGrid = 128;  // 128 x 128 x 8 voxels of 0.5 m
constexpr int kVoxels = kGrid * kGrid * 8;

__host__ __device__ inline int voxel_of(float4 p) {
  int x = min(kGrid - 1, max(0, int(p.x * 2.0f))), y = min(kGrid - 1, max(0, int(p.y * 2.0f))),
      z = min(7, max(0, int(p.z * 2.0f)));
  return (z * kGrid + y) * kGrid + x;
}

__global__ void atomic_voxel_point_scatter(const float4* __restrict__ points, float4* __restrict__ sums,
                                           int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float4 p = points[i];
    float* s = reinterpret_cast<float*>(sums + voxel_of(p));
    atomicAdd(s + 0, p.x);
    atomicAdd(s + 1, p.y);
    atomicAdd(s + 2, p.z);
    atomicAdd(s + 3, p.w);
  }
}

__global__ void make_points(float4* pts, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    float u = (h & 0xffff) * (1.0f / 65536.0f), v = (h >> 16) * (1.0f / 65536.0f);
    bool near = (h % 10) < 8;
    // near: a 4 x 4 x 4 block of voxels (2 m cube) in front of the sensor; far: the whole 64 m x 64 m x 4 m
    // grid
    pts[i] = near ? make_float4(30.0f + 2.0f * u, 30.0f + 2.0f * v, 2.0f * (u * v), 0.5f)
                  : make_float4(63.9f * u, 63.9f * v, 3.9f * (1.0f - u), 0.1f);
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 24;
  float4* points = device_alloc<float4>(n);
  float4* sums = device_alloc<float4>(kVoxels);
  make_points<<<2048, 256>>>(points, n);
  CK(cudaGetLastError());
  const int blocks = sm_count() * 8;
  auto launch = [&] {
    CK(cudaMemset(sums, 0, sizeof(float4) * kVoxels));
    atomic_voxel_point_scatter<<<blocks, 256>>>(points, sums, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float4> hp(n), hs(kVoxels);
  CK(cudaMemcpy(hp.data(), points, sizeof(float4) * n, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hs.data(), sums, sizeof(float4) * kVoxels, cudaMemcpyDeviceToHost));
  std::vector<double> want(kVoxels, 0.0);
  double total = 0, got_total = 0;
  for (int i = 0; i < n; ++i) want[voxel_of(hp[i])] += hp[i].w, total += hp[i].w;
  for (int v = 0; v < kVoxels; ++v) {
    got_total += hs[v].w;
    if (!(std::fabs(hs[v].w - want[v]) <= 1e-3 * want[v] + 1e-3))
      fail("wrong intensity sum of voxel %d: %g vs %g\n", v, hs[v].w, want[v]);
  }
  if (!(std::fabs(got_total - total) <= 1e-4 * total)) fail("wrong total %g vs %g\n", got_total, total);
  time_kernel("atomic_voxel_point_scatter", reps, launch);
  free_device({points, sums});
  printf("ok\n");
  return 0;
}
