// timeline_mix: a small program whose CUPTI timeline has every record kind kopt reads, for the
// timeline parser's fixture (tests/fixtures/timeline/): host-to-device and device-to-host copies, a
// memset, a template kernel (a mangled name with template arguments), 300 short launches of one kernel
// back to back, a longer kernel every 100 of them, and two streams whose kernels overlap.
// Usage: ./timeline_mix
#include <cstdio>
#include <cstdlib>

#define CK(call)                                                                         \
  do {                                                                                   \
    cudaError_t error_ = (call);                                                         \
    if (error_ != cudaSuccess) {                                                         \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(error_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

__global__ void short_scale(float* data, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

template <int kRepeats>
__global__ void long_polynomial(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = data[i];
  for (int r = 0; r < kRepeats; ++r) x = x * 0.999f + 0.001f;
  data[i] = x;
}

int main() {
  const int small_n = 4096, big_n = 1 << 22;
  float *small = nullptr, *big = nullptr;
  CK(cudaMalloc(&small, small_n * sizeof(float)));
  CK(cudaMalloc(&big, big_n * sizeof(float)));
  float* host = static_cast<float*>(std::malloc(big_n * sizeof(float)));
  for (int i = 0; i < big_n; ++i) host[i] = 1.0f;
  CK(cudaMemcpy(big, host, big_n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemset(small, 0, small_n * sizeof(float)));
  for (int step = 0; step < 300; ++step) {
    short_scale<<<small_n / 256, 256>>>(small, small_n, 1.0001f);
    if (step % 100 == 99) long_polynomial<256><<<big_n / 256, 256>>>(big, big_n);
  }
  CK(cudaGetLastError());
  cudaStream_t streams[2];
  for (cudaStream_t& stream : streams) CK(cudaStreamCreate(&stream));
  for (int round = 0; round < 4; ++round) {
    long_polynomial<64><<<big_n / 512, 256, 0, streams[0]>>>(big, big_n / 2);
    long_polynomial<64><<<big_n / 512, 256, 0, streams[1]>>>(big + big_n / 2, big_n / 2);
  }
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(host, big, big_n * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("ok %.4f\n", host[7]);
  for (cudaStream_t stream : streams) CK(cudaStreamDestroy(stream));
  CK(cudaFree(small));
  CK(cudaFree(big));
  std::free(host);
  return 0;
}
