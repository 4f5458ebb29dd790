// fp64_mie_potential_pairs: blind set 5, kind 1 (float code on the FP64 pipe).
// All-pairs potential energy of a coarse-grained fluid with the Mie (generalized Lennard-Jones) potential,
// u(r) = C eps ((sigma/r)^n - (sigma/r)^m), in float positions and energies. The force-field parameters come
// from a host configuration struct in double, and the exponents n, m are passed as double kernel arguments,
// so pow(sr, n_rep) and pow(sr, n_att) resolve to the double pow: log/exp polynomials on the FP64 pipe for
// 268 M pairs (1,024 blocks: 64 particle tiles x 16 partner chunks). powf (or exp2f/log2f once per pair and
// sr^m reused) keeps it in FP32. Usage: ./fp64_mie_potential_pairs [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

struct MieParams {
  double n_rep = 14.0, n_att = 7.0, sigma = 1.0, eps = 0.8;
};

constexpr int kTile = 256, kSplit = 16;

// Grid (n / kTile, kSplit): block (x, y) sums particle i's pairs with the y-th of kSplit partner chunks and
// adds its partial energy to energy[i] (zeroed before the launch).
__global__ void fp64_mie_potential_pairs(const float4* __restrict__ pos, float* __restrict__ energy, int n,
                                         float sigma, float c_eps, double n_rep, double n_att) {
  __shared__ float4 tile[kTile];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 p = pos[i];
  float e = 0.0f;
  const int chunk = n / gridDim.y;
  for (int base = blockIdx.y * chunk; base < (blockIdx.y + 1) * chunk; base += kTile) {
    tile[threadIdx.x] = pos[base + threadIdx.x];
    __syncthreads();
    for (int k = 0; k < kTile; ++k) {
      float dx = tile[k].x - p.x, dy = tile[k].y - p.y, dz = tile[k].z - p.z;
      float r = sqrtf(dx * dx + dy * dy + dz * dz + 0.25f);
      float sr = sigma / r;
      e += c_eps * (pow(sr, n_rep) - pow(sr, n_att));
    }
    __syncthreads();
  }
  atomicAdd(&energy[i], 0.5f * e);
}

__global__ void place(float4* pos, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned h = i * 2654435761u;
  pos[i] = make_float4(20.0f * ((h & 1023) / 1024.0f), 20.0f * (((h >> 10) & 1023) / 1024.0f),
                       20.0f * (((h >> 20) & 1023) / 1024.0f), 0.0f);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 16384;
  MieParams mp;
  const double c =
      (mp.n_rep / (mp.n_rep - mp.n_att)) * std::pow(mp.n_rep / mp.n_att, mp.n_att / (mp.n_rep - mp.n_att));
  float4* pos = device_alloc<float4>(n);
  float* energy = device_alloc<float>(n);
  place<<<n / 256, 256>>>(pos, n);
  CK(cudaGetLastError());
  auto launch = [&] {
    CK(cudaMemsetAsync(energy, 0, n * sizeof(float)));
    fp64_mie_potential_pairs<<<dim3(n / kTile, kSplit), kTile>>>(pos, energy, n, float(mp.sigma),
                                                                 float(c * mp.eps), mp.n_rep, mp.n_att);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float4> hp(n);
  CK(cudaMemcpy(hp.data(), pos, n * sizeof(float4), cudaMemcpyDeviceToHost));
  for (int i : {0, 777, n - 1}) {
    double want = 0, mag = 0;
    for (int j = 0; j < n; ++j) {
      double dx = hp[j].x - hp[i].x, dy = hp[j].y - hp[i].y, dz = hp[j].z - hp[i].z;
      double sr = mp.sigma / std::sqrt(dx * dx + dy * dy + dz * dz + 0.25);
      double u = c * mp.eps * (std::pow(sr, mp.n_rep) - std::pow(sr, mp.n_att));
      want += u;
      mag += std::fabs(u);
    }
    want *= 0.5;
    float got = read_back(energy + i);
    if (!(std::fabs(got - want) <= 1e-3 * 0.5 * mag + 1e-4))
      fail("wrong energy at %d: %f vs %f\n", i, got, want);
  }
  time_kernel("fp64_mie_potential_pairs", reps, launch);
  free_device({pos, energy});
  printf("ok\n");
  return 0;
}
