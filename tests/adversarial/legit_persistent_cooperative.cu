// Control candidate (task gelu) -- expected: pass.
// An honest pattern the runtime defences must keep passing (issue 30): a
// persistent cooperative kernel. One grid of exactly as many blocks as fit
// on the device at once (occupancy query, cached per device), launched with
// cudaLaunchCooperativeKernel on the harness stream; each block strides over
// the elements, the grid synchronizes once (cooperative_groups grid sync)
// between the two halves of the work. The host only enqueues.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__device__ __forceinline__ float Gelu(float v) {
  return 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
}

__global__ void gelu_persistent(const float* x, float* y, int n) {
  cg::grid_group grid = cg::this_grid();
  int half = n / 2;
  for (long long i = grid.thread_rank(); i < half; i += grid.size()) y[i] = Gelu(x[i]);
  grid.sync();
  for (long long i = half + grid.thread_rank(); i < n; i += grid.size()) y[i] = Gelu(x[i]);
}

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  static int blocks = 0;
  constexpr int kThreads = 256;
  if (blocks == 0) {
    int device = 0, sms = 0, per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gelu_persistent, kThreads, 0);
    blocks = sms * (per_sm > 0 ? per_sm : 1);
  }
  void* arguments[] = {const_cast<float**>(&x), &y, &n};
  cudaLaunchCooperativeKernel(reinterpret_cast<void*>(gelu_persistent), dim3(blocks), dim3(kThreads),
                              arguments, 0, stream);
}
