// fp64_coulomb_constant_pairs: blind set 4, kind 1 (the busy unit is the wrong one: FP64 in float code).
// Direct-sum electrostatic energy per atom for a 32,768-atom system in float coordinates and charges
// (x, y, z, q as float4, tiled through shared memory), in kcal/mol: e_i = k q_i sum_j q_j / r_ij. The code
// keeps Coulomb's constant as `const double kCoulomb = 332.0636` (a header shared with CPU code) and
// accumulates kCoulomb * q_j / sqrtf(r2) per pair: the double constant promotes the product, turns the
// division by the float distance into an IEEE double division (the DFMA / MUFU.RCP64H refinement
// sequence) and the accumulation into double adds, all on the FP64 pipe, for float inputs stored back as
// float. A float constant applied once after the loop and rsqrtf(r2) keep it on the FP32 pipe and MUFU.
// Usage: ./fp64_coulomb_constant_pairs [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kTile = 256;
const double kCoulomb = 332.0636;  // kcal mol^-1 A e^-2

__global__ void fp64_coulomb_constant_pairs(const float4* __restrict__ atoms, int n,
                                            float* __restrict__ energy) {
  __shared__ float4 tile[kTile];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 a = atoms[i];
  double sum = 0.0;
  for (int base = 0; base < n; base += kTile) {
    __syncthreads();
    tile[threadIdx.x] = atoms[base + threadIdx.x];
    __syncthreads();
    for (int j = 0; j < kTile; ++j) {
      float4 b = tile[j];
      float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
      float r2 = dx * dx + dy * dy + dz * dz;
      if (base + j != i) sum += kCoulomb * b.w / sqrtf(r2);
    }
  }
  energy[i] = float(a.w * sum);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 32768;
  float* atoms = device_alloc<float>(4 * size_t(n));
  float* energy = device_alloc<float>(n);
  fill_random<<<128, 256>>>(atoms, 4 * size_t(n), 433, 0.01f, 1.0f);
  CK(cudaGetLastError());
  std::vector<float> h(4 * size_t(n));
  CK(cudaMemcpy(h.data(), atoms, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
  // a 64 A box (coordinates scaled) and charges in [-1, 1)
  for (int i = 0; i < n; ++i) {
    h[4 * i] *= 64.0f;
    h[4 * i + 1] *= 64.0f;
    h[4 * i + 2] *= 64.0f;
    h[4 * i + 3] = 2.0f * h[4 * i + 3] - 1.0f;
  }
  CK(cudaMemcpy(atoms, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  auto launch = [&] {
    fp64_coulomb_constant_pairs<<<n / kTile, kTile>>>((const float4*)atoms, n, energy);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 999, 20000, n - 1}) {
    double sum = 0;
    for (int j = 0; j < n; ++j) {
      if (j == i) continue;
      float dx = h[4 * i] - h[4 * j], dy = h[4 * i + 1] - h[4 * j + 1], dz = h[4 * i + 2] - h[4 * j + 2];
      sum += kCoulomb * h[4 * j + 3] / std::sqrt(double(dx) * dx + double(dy) * dy + double(dz) * dz);
    }
    double want = h[4 * i + 3] * sum;
    float got = read_back(energy + i);
    if (!(fabs(got - want) <= 1e-3 * (1 + fabs(want))))
      fail("wrong energy of atom %d: %f vs %f\n", i, got, want);
  }
  time_kernel("fp64_coulomb_constant_pairs", reps, launch);
  free_device({atoms, energy});
  printf("ok\n");
  return 0;
}
