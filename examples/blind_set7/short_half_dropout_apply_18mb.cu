// short_half_dropout_apply_18mb: blind set 7, kind 4 (a short kernel at its size-limited ceiling: healthy).
// Dropout backward of an fp16 activation of 3.67 M elements: dx = dy * mask * 1/(1-p) with the saved uint8
// mask, 8 halves (16 bytes) and 8 mask bytes per thread: 7.3 MB + 3.7 MB read and 7.3 MB written, 18 MB in a
// single launch of several microseconds, at the DRAM bandwidth such a short transfer reaches. Healthy; only
// fusion with its neighbours would remove it.
// Usage: ./short_half_dropout_apply_18mb [reps]
#include <cuda_fp16.h>

#include <cmath>

#include "../kernels/example_common.cuh"

__global__ void short_half_dropout_apply_18mb(const uint4* __restrict__ dy, const uint2* __restrict__ mask,
                                              uint4* __restrict__ dx, float scale, int n8) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n8) return;
  uint4 v = dy[i];
  uint2 m = mask[i];
  const unsigned char* mb = reinterpret_cast<const unsigned char*>(&m);
  __half2* h = reinterpret_cast<__half2*>(&v);
  for (int k = 0; k < 4; ++k) {
    float2 f = __half22float2(h[k]);
    f.x *= mb[2 * k] * scale;
    f.y *= mb[2 * k + 1] * scale;
    h[k] = __floats2half2_rn(f.x, f.y);
  }
  dx[i] = v;
}

__global__ void make_inputs(__half* dy, unsigned char* mask, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u;
    h ^= h >> 13;
    dy[i] = __float2half(((h >> 8) & 0xffff) * (1.0f / 65536.0f) - 0.5f);
    mask[i] = (h >> 3) % 10 != 0;  // p = 0.1
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 7 << 19;  // 3,670,016
  __half* dy = device_alloc<__half>(n);
  __half* dx = device_alloc<__half>(n);
  unsigned char* mask = device_alloc<unsigned char>(n);
  make_inputs<<<1024, 256>>>(dy, mask, n);
  CK(cudaGetLastError());
  const float scale = 1.0f / 0.9f;
  auto launch = [&] {
    short_half_dropout_apply_18mb<<<n / 8 / 256, 256>>>((const uint4*)dy, (const uint2*)mask, (uint4*)dx,
                                                        scale, n / 8);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 7, 12345, n - 1}) {
    float want = __half2float(read_back(dy + i)) * read_back(mask + i) * scale,
          got = __half2float(read_back(dx + i));
    if (!(std::fabs(got - want) <= 1e-3f * std::fabs(want) + 1e-6f))
      fail("wrong dx %d: %g vs %g\n", i, got, want);
  }
  time_kernel("short_half_dropout_apply_18mb", reps, launch);
  free_device({dy, dx, mask});
  printf("ok\n");
  return 0;
}
