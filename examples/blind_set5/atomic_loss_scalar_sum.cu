// atomic_loss_scalar_sum: blind set 5, kind 6 (atomic contention on one address).
// The mean binary cross-entropy of 8 M predictions (a click-through model's evaluation loop), written as
// "every thread adds its loss to the total": one float atomicAdd per sample into a single global scalar.
// All 8 M atomics target the same 4-byte word, so the L2 slice that owns it serializes them; the 64 MB
// of inputs and one logf per sample are nothing beside that. A block reduction (warp shuffles, then one
// atomic per block) or cub::DeviceReduce removes the contention.
// Usage: ./atomic_loss_scalar_sum [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

__global__ void atomic_loss_scalar_sum(const float* __restrict__ prob, const float* __restrict__ label,
                                       float* __restrict__ total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float p = prob[i], y = label[i];
  float loss = -(y * logf(p) + (1.0f - y) * logf(1.0f - p));
  atomicAdd(total, loss);
}

__global__ void make_labels(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = ((unsigned(i) * 2654435761u) >> 27) < 3 ? 1.0f : 0.0f;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 23;
  float* prob = device_alloc<float>(n);
  float* label = device_alloc<float>(n);
  float* total = device_alloc<float>(1);
  fill_random<<<2048, 256>>>(prob, n, 631, 0.02f, 0.98f);
  make_labels<<<n / 256, 256>>>(label, n);
  CK(cudaGetLastError());
  auto launch = [&] {
    CK(cudaMemsetAsync(total, 0, sizeof(float)));
    atomic_loss_scalar_sum<<<n / 256, 256>>>(prob, label, total, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hp(n), hy(n);
  CK(cudaMemcpy(hp.data(), prob, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hy.data(), label, n * 4, cudaMemcpyDeviceToHost));
  double want = 0;
  for (int i = 0; i < n; ++i)
    want += -(hy[i] * std::log(double(hp[i])) + (1.0 - hy[i]) * std::log(1.0 - hp[i]));
  // float atomics in arbitrary order round each add at the size of the total: a loose check
  float got = read_back(total);
  if (!(std::fabs(got - want) <= 5e-2 * want)) fail("wrong total loss: %f vs %f\n", got, want);
  time_kernel("atomic_loss_scalar_sum", reps, launch);
  free_device({prob, label, total});
  printf("ok\n");
  return 0;
}
