// tiny_once_normalize: blind set, HEALTHY (a tiny kernel launched once).
// One launch of one 256-thread block that normalises a 256-element vector (block reduction of squares,
// then a scale), as a setup step would. It lasts a few microseconds, mostly launch latency, and runs
// once: there is nothing in it worth changing, and one launch is no launch-overhead problem.
// Usage: ./tiny_once_normalize [reps]
#include "../kernels/example_common.cuh"

__global__ void tiny_once_normalize(float* __restrict__ v) {
  __shared__ float part[8];
  float x = v[threadIdx.x];
  float s = x * x;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = s;
  __syncthreads();
  float total = 0;
  for (int w = 0; w < 8; ++w) total += part[w];
  v[threadIdx.x] = x * rsqrtf(total);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  float* v = device_alloc<float>(256);
  fill_random<<<1, 256>>>(v, 256, 131, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    tiny_once_normalize<<<1, 256>>>(v);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> h(256);
  CK(cudaMemcpy(h.data(), v, 256 * sizeof(float), cudaMemcpyDeviceToHost));
  double norm = 0;
  for (float x : h) norm += double(x) * x;
  if (!(fabs(norm - 1.0) < 1e-3)) fail("wrong result %f\n", norm);
  time_kernel("tiny_once_normalize", reps, launch);
  free_device({v});
  printf("ok\n");
  return 0;
}
