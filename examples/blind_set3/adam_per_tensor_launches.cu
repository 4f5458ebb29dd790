// adam_per_tensor_launches: blind set 3, kind 7 (launch overhead of many tiny launches).
// An optimizer step written as "for each parameter tensor: launch adam_step": a model of 2,400 small
// tensors (biases, norms and small projections of 1 K to 16 K floats each, about 21 M floats in all)
// updated by one launch per tensor (4 to 64 blocks of 256 threads), repeated for 4 optimizer steps.
// Each launch does a microsecond or two of element-wise work, so launch cost and the idle gaps between
// launches dominate. A multi-tensor ("foreach") kernel that walks a list of tensors in one
// launch, or a CUDA graph, is the fix.
// Usage: ./adam_per_tensor_launches [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

__global__ void adam_step(float* __restrict__ param, const float* __restrict__ grad, float* __restrict__ m,
                          float* __restrict__ v, int n, float lr, float beta1, float beta2, float eps,
                          float bc1, float bc2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float g = grad[i];
  float mi = beta1 * m[i] + (1.0f - beta1) * g;
  float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
  m[i] = mi;
  v[i] = vi;
  param[i] -= lr * (mi / bc1) / (sqrtf(vi / bc2) + eps);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int tensors = 2400, steps = 4;
  std::vector<size_t> offset(tensors + 1, 0);
  for (int t = 0; t < tensors; ++t) offset[t + 1] = offset[t] + 1024 * (1 + (t * 37) % 16);
  const size_t total = offset[tensors];
  float* param = device_alloc<float>(total);
  float* grad = device_alloc<float>(total);
  float* m = device_alloc<float>(total);
  float* v = device_alloc<float>(total);
  fill_random<<<1024, 256>>>(param, total, 335, -1.0f, 1.0f);
  fill_random<<<1024, 256>>>(grad, total, 336, -0.01f, 0.01f);
  CK(cudaMemset(m, 0, total * sizeof(float)));
  CK(cudaMemset(v, 0, total * sizeof(float)));
  CK(cudaGetLastError());
  std::vector<float> p0(1024), g0(1024);
  CK(cudaMemcpy(p0.data(), param, 1024 * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(g0.data(), grad, 1024 * sizeof(float), cudaMemcpyDeviceToHost));
  const float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
  int step = 0;
  auto optimizer_step = [&] {
    ++step;
    float bc1 = 1.0f - powf(beta1, float(step)), bc2 = 1.0f - powf(beta2, float(step));
    for (int t = 0; t < tensors; ++t) {
      int n = int(offset[t + 1] - offset[t]);
      size_t o = offset[t];
      adam_step<<<(n + 255) / 256, 256>>>(param + o, grad + o, m + o, v + o, n, lr, beta1, beta2, eps, bc1,
                                          bc2);
    }
    CK(cudaGetLastError());
  };
  for (int s = 0; s < steps; ++s) optimizer_step();
  CK(cudaDeviceSynchronize());
  // with a constant gradient, Adam's bias-corrected update is lr * g / (|g| + eps) every step
  std::vector<float> p1(1024);
  CK(cudaMemcpy(p1.data(), param, 1024 * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 1024; i += 101) {
    double want = p0[i] - steps * lr * g0[i] / (fabs(g0[i]) + eps);
    if (!(fabs(p1[i] - want) <= 1e-5)) fail("wrong result at %d: %f vs %f\n", i, p1[i], want);
  }
  time_kernel("adam_per_tensor_step", reps, optimizer_step);
  free_device({param, grad, m, v});
  printf("ok\n");
  return 0;
}
