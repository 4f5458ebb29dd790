// barrier_pcr_tridiagonal_batch: blind set 7, kind 1 (barrier-bound).
// Implicit diffusion / ADI line solves (CFD, option pricing PDEs): 4,096 independent tridiagonal systems of
// 1,024 unknowns solved by parallel cyclic reduction, one 1,024-thread block per system, one thread per
// equation, the four diagonals in shared memory. Each of the 10 reduction levels reads the neighbours at
// stride s, does two divisions and ~20 FMAs, then the whole block synchronizes twice (before overwriting and
// after): 20 __syncthreads per system with a few dozen instructions between them, so the 32 warps of a
// block mostly wait on each other; global traffic is 84 MB (20 us). The divisions are second-order.
// Usage: ./barrier_pcr_tridiagonal_batch [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kN = 1024;

__global__ void __launch_bounds__(kN)
    barrier_pcr_tridiagonal_batch(const float* __restrict__ a_in, const float* __restrict__ b_in,
                                  const float* __restrict__ c_in, const float* __restrict__ d_in,
                                  float* __restrict__ x_out) {
  __shared__ float a[kN], b[kN], c[kN], d[kN];
  const int i = threadIdx.x;
  const size_t base = size_t(blockIdx.x) * kN;
  a[i] = i > 0 ? a_in[base + i] : 0.0f;
  b[i] = b_in[base + i];
  c[i] = i < kN - 1 ? c_in[base + i] : 0.0f;
  d[i] = d_in[base + i];
  __syncthreads();
  for (int s = 1; s < kN; s <<= 1) {
    float ai = a[i], bi = b[i], ci = c[i], di = d[i];
    float na = 0.0f, nb = bi, nc = 0.0f, nd = di;
    if (i - s >= 0) {
      float k1 = ai / b[i - s];
      na = -a[i - s] * k1;
      nb -= c[i - s] * k1;
      nd -= d[i - s] * k1;
    }
    if (i + s < kN) {
      float k2 = ci / b[i + s];
      nc = -c[i + s] * k2;
      nb -= a[i + s] * k2;
      nd -= d[i + s] * k2;
    }
    __syncthreads();
    a[i] = na;
    b[i] = nb;
    c[i] = nc;
    d[i] = nd;
    __syncthreads();
  }
  x_out[base + i] = d[i] / b[i];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int systems = 4096;
  const size_t n = size_t(systems) * kN;
  float *a = device_alloc<float>(n), *b = device_alloc<float>(n), *c = device_alloc<float>(n),
        *d = device_alloc<float>(n), *x = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(a, n, 707, -1.0f, -0.2f);
  fill_random<<<1024, 256>>>(b, n, 708, 3.0f, 4.0f);  // diagonally dominant
  fill_random<<<1024, 256>>>(c, n, 709, -1.0f, -0.2f);
  fill_random<<<1024, 256>>>(d, n, 710, 0.1f, 1.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    barrier_pcr_tridiagonal_batch<<<systems, kN>>>(a, b, c, d, x);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> ha(kN), hb(kN), hc(kN), hd(kN), hx(kN);
  for (int sys : {0, 1777, systems - 1}) {
    size_t o = size_t(sys) * kN;
    CK(cudaMemcpy(ha.data(), a + o, kN * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hb.data(), b + o, kN * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hc.data(), c + o, kN * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hd.data(), d + o, kN * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hx.data(), x + o, kN * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < kN; ++i) {  // residual of the original system
      double r = double(hb[i]) * hx[i] - hd[i];
      if (i > 0) r += double(ha[i]) * hx[i - 1];
      if (i < kN - 1) r += double(hc[i]) * hx[i + 1];
      if (!(std::fabs(r) <= 1e-4)) fail("residual %g in system %d row %d\n", r, sys, i);
    }
  }
  time_kernel("barrier_pcr_tridiagonal_batch", reps, launch);
  free_device({a, b, c, d, x});
  printf("ok\n");
  return 0;
}
