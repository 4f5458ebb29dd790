// mufu_logistic_loss: blind set 2, kind 1 (special-function and IEEE-division work is all there is).
// Per element, 12 rounds of a logistic-loss gradient on register data: log1pf(expf(-z)) and
// 1 / (1 + expf(z)) with full-accuracy expf/log1pf and IEEE division (no fast math). The data is read
// once; the time goes to MUFU.EX2/LG2/RCP and the division's slow-path sequences. __expf, __logf and
// __fdividef (or -use_fast_math where the tolerance allows) would cut it several-fold.
// Usage: ./mufu_logistic_loss [reps]
#include "../kernels/example_common.cuh"

__global__ void mufu_logistic_loss(const float* __restrict__ z, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = z[i], acc = 0.0f;
#pragma unroll 4
  for (int r = 0; r < 12; ++r) {
    float loss = log1pf(expf(-v));
    float grad = 1.0f / (1.0f + expf(v));
    acc += loss / (1.0f + grad);
    v = v * 0.75f + grad;
  }
  out[i] = acc;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 24;
  float* z = device_alloc<float>(n);
  float* out = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(z, n, 202, 0.1f, 3.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    mufu_logistic_loss<<<(n + 255) / 256, 256>>>(z, out, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float h = read_back(out + 5);
  if (!(h > 0.0f && h < 20.0f)) fail("wrong result %f\n", h);
  time_kernel("mufu_logistic_loss", reps, launch);
  free_device({z, out});
  printf("ok\n");
  return 0;
}
