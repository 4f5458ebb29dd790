// accidental_fp64: PLANTED BOTTLENECK = accidental FP64 in float code.
// The data is float, but the literals 0.5, 0.25, 1.1 and 0.01 are doubles: x * 0.5 is computed in double,
// so sin() resolves to the double-precision sin (a long DFMA polynomial plus range reduction), and every
// update converts float <-> double (F2F). Writing 0.5f, sinf()/__sinf() keeps it in FP32.
// Size: 2^25 floats in and out (128 MB each), 8 sin() per element; the cost is the FP64 math.
// Usage: ./accidental_fp64 [reps]
#include "example_common.cuh"

__global__ void accidental_fp64(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i], acc = 0.0f;
  for (int k = 0; k < 8; ++k) {
    acc += sin(x * 0.5) * 0.25;  // double literals: promoted to double, double sin()
    x = x * 1.1 + 0.01;          // float -> double -> float on every step
  }
  out[i] = acc;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 25;
  float* in = device_alloc<float>(n);
  float* out = device_alloc<float>(n);
  fill_random<<<4096, 256>>>(in, n, 15, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    accidental_fp64<<<(n + 255) / 256, 256>>>(in, out, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float x = read_back(in + 9);
  float y = read_back(out + 9);
  float acc = 0.0f;
  for (int k = 0; k < 8; ++k) {
    acc += sin(x * 0.5) * 0.25;
    x = x * 1.1 + 0.01;
  }
  if (fabsf(acc - y) > 1e-5f) fail("wrong result %f %f\n", acc, y);
  time_kernel("accidental_fp64", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
