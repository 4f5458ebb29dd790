// fp64_arrhenius_rates: blind set 7, kind 1 (the FP64 pipe used by float code).
// Combustion chemistry (reacting-flow CFD): the forward rate constant of 64 reactions in every cell of a
// 1 M-cell mesh, k = A (T / 300)^b exp(-Ea / (R T)), with float temperatures and coefficients, but written
// with the double literals of the reference mechanism (300.0, 8.314462618) and pow/exp on the promoted
// values: every rate is a double log/exp/pow chain (~100 FP64 instructions), 67 M rates against 4 MB read and
// 268 MB written (about 60 us of DRAM). The fp32 pipe sits idle; __expf/__logf in float (or log-space
// precomputation) would move it to the float and MUFU pipes, several times faster (FP64 has half the
// FP32 lanes and no MUFU shortcut).
// Usage: ./fp64_arrhenius_rates [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kReactions = 64;
__constant__ float c_A[kReactions], c_b[kReactions], c_Ea[kReactions];

__global__ void fp64_arrhenius_rates(const float* __restrict__ temperature, float* __restrict__ rates,
                                     int cells) {
  int cell = blockIdx.x * blockDim.x + threadIdx.x;
  if (cell >= cells) return;
  float T = temperature[cell];
  for (int r = 0; r < kReactions; ++r) {
    // the reference mechanism's double constants promote the whole expression
    float k = c_A[r] * pow(T / 300.0, c_b[r]) * exp(-c_Ea[r] / (8.314462618 * T));
    rates[size_t(r) * cells + cell] = k;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int cells = 1 << 20;
  float hA[kReactions], hb[kReactions], hEa[kReactions];
  for (int r = 0; r < kReactions; ++r) {
    hA[r] = 1e3f * (1 + r % 7);
    hb[r] = -0.5f + 0.03f * r;
    hEa[r] = 2e4f + 1500.0f * r;
  }
  CK(cudaMemcpyToSymbol(c_A, hA, sizeof(hA)));
  CK(cudaMemcpyToSymbol(c_b, hb, sizeof(hb)));
  CK(cudaMemcpyToSymbol(c_Ea, hEa, sizeof(hEa)));
  float* T = device_alloc<float>(cells);
  float* rates = device_alloc<float>(size_t(kReactions) * cells);
  fill_random<<<1024, 256>>>(T, cells, 701, 800.0f, 2400.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    fp64_arrhenius_rates<<<cells / 256, 256>>>(T, rates, cells);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int cell : {0, 12345, cells - 1})
    for (int r : {0, 31, 63}) {
      double t = read_back(T + cell);
      double want = hA[r] * std::pow(t / 300.0, (double)hb[r]) * std::exp(-hEa[r] / (8.314462618 * t));
      float got = read_back(rates + size_t(r) * cells + cell);
      if (!(std::fabs(got - want) <= 1e-4 * std::fabs(want) + 1e-30))
        fail("wrong rate %d,%d: %g vs %g\n", cell, r, got, want);
    }
  time_kernel("fp64_arrhenius_rates", reps, launch);
  free_device({T, rates});
  printf("ok\n");
  return 0;
}
