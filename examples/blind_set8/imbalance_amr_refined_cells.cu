// imbalance_amr_refined_cells: blind set 8, kind 6 (load imbalance: skewed work per block).
// A flux-integration pass over the coarse cells of an adaptive-mesh-refinement grid, one 256-thread block per
// coarse cell: a cell at refinement level L integrates 4^L sub-cells (the Simpson-like quadrature loop runs
// 4^L / 256 + 1 times per thread). 1,056 cells (8 per SM), almost all at level 3-4 (64-256 sub-cells, one
// pass of the loop), but the 16 cells around a shock front are at level 10 (1 M sub-cells, 4,096 passes per
// thread): those 16 blocks run alone on 16 SMs long after the other 116 SMs have emptied. Usage:
// ./imbalance_amr_refined_cells [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

__device__ float flux_density(float x, float y) {
  return x * x * y + 0.5f * y * y - 0.25f * x * y * y * y + 0.1f * x;
}

__global__ void imbalance_amr_refined_cells(const int* __restrict__ level, const float2* __restrict__ origin,
                                            float* __restrict__ flux) {
  __shared__ float partial[8];
  const int L = level[blockIdx.x];
  const int side = 1 << L, subcells = side * side;
  const float h = 1.0f / side;
  const float2 o = origin[blockIdx.x];
  float acc = 0.0f;
  for (int s = threadIdx.x; s < subcells; s += blockDim.x) {
    float x = o.x + (s % side + 0.5f) * h, y = o.y + (s / side + 0.5f) * h;
    acc += flux_density(x, y) * h * h;
  }
  for (int d = 16; d > 0; d >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, d);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float sum = 0.0f;
    for (int w = 0; w < 8; ++w) sum += partial[w];
    flux[blockIdx.x] = sum;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int cells = 1056;
  std::vector<int> hl(cells);
  std::vector<float> ho(2 * cells);
  for (int c = 0; c < cells; ++c) {
    hl[c] = (c % 66 == 7) ? 10 : 3 + (c % 2);  // 16 refined cells near the shock
    ho[2 * c] = float(c % 32), ho[2 * c + 1] = float(c / 32) * 0.1f;
  }
  int* level = device_alloc<int>(cells);
  float* origin = device_alloc<float>(2 * cells);
  float* flux = device_alloc<float>(cells);
  CK(cudaMemcpy(level, hl.data(), cells * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(origin, ho.data(), ho.size() * 4, cudaMemcpyHostToDevice));
  auto launch = [&] {
    imbalance_amr_refined_cells<<<cells, 256>>>(level, (const float2*)origin, flux);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int c : {0, 7, 73, cells - 1}) {
    int side = 1 << hl[c];
    double h = 1.0 / side, want = 0;
    for (int s = 0; s < side * side; ++s) {
      double x = ho[2 * c] + (s % side + 0.5) * h, y = ho[2 * c + 1] + (s / side + 0.5) * h;
      want += (x * x * y + 0.5 * y * y - 0.25 * x * y * y * y + 0.1 * x) * h * h;
    }
    float got = read_back(flux + c);
    if (!(std::fabs(got - want) <= 1e-3 * (1 + std::fabs(want))))
      fail("wrong flux %d: %g vs %g\n", c, got, want);
  }
  time_kernel("imbalance_amr_refined_cells", reps, launch);
  free_device({level, origin, flux});
  printf("ok\n");
  return 0;
}
