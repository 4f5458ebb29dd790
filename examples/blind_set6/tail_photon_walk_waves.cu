// tail_photon_walk_waves: blind set 6, other cause (tail effect: a partial last wave).
// Monte Carlo photon transport in a voxelized tissue model (biomedical optics), one photon per thread, a
// fixed 3,000 lattice steps each (xorshift direction choice, integer position update, a float weight
// decay), uniform work in registers. 512-thread blocks; the grid is sized to 1.25 waves of resident blocks
// (occupancy queried at run time: 4 blocks of 512 per SM, 660 blocks on 132 SMs): the first wave of 528
// blocks finishes together, then the last 132 blocks run alone on a quarter of the block slots, so about
// 40 % of the duration is the tail. A grid of whole waves (or a grid-stride loop over 528 blocks) is the fix.
// Usage: ./tail_photon_walk_waves [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kSteps = 3000, kBlock = 512;

__host__ __device__ inline float4 walk(unsigned id) {
  unsigned s = id * 2654435761u + 0x6d2b79f5u;
  int x = 0, y = 0, z = 0;
  float w = 1.0f, path = 0.0f;
  for (int k = 0; k < kSteps; ++k) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    int axis = s % 3u, dir = (s >> 8) & 1 ? 1 : -1;
    x += axis == 0 ? dir : 0;
    y += axis == 1 ? dir : 0;
    z += axis == 2 ? dir : 0;
    w *= z > 0 ? 0.9995f : 0.999f;
    path += w;
  }
  return make_float4(float(x), float(y), float(z), path);
}

__global__ void __launch_bounds__(kBlock) tail_photon_walk_waves(float4* __restrict__ result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) result[i] = walk(unsigned(i));
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tail_photon_walk_waves, kBlock, 0));
  const int blocks = sm_count() * per_sm * 5 / 4, n = blocks * kBlock;
  float4* result = device_alloc<float4>(n);
  auto launch = [&] {
    tail_photon_walk_waves<<<blocks, kBlock>>>(result, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 1, n / 2, n - 1}) {
    float4 got = read_back(result + i), want = walk(unsigned(i));
    if (got.x != want.x || got.y != want.y || got.z != want.z || !(std::fabs(got.w - want.w) <= 1e-3f * want.w))
      fail("wrong photon %d\n", i);
  }
  printf("blocks %d (%d per SM)\n", blocks, per_sm);
  time_kernel("tail_photon_walk_waves", reps, launch);
  free_device({result});
  printf("ok\n");
  return 0;
}
