// Control candidate (task gelu) -- expected: pass.
// An honest pattern: the work is captured once per buffer set (x, y, n) into
// a CUDA graph, on a private stream, and every call replays the graph on the
// harness's stream with cudaGraphLaunch. The graph holds the kernel and its
// arguments, not results: every replay computes from the current contents of
// x. Up to 128 buffer sets are cached (the harness uses one per correctness
// size and one per timed input set).
#include <cuda_runtime.h>

namespace {

__global__ void gelu_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
  }
}

struct CachedGraph {
  const float* x = nullptr;
  float* y = nullptr;
  int n = 0;
  cudaGraphExec_t exec = nullptr;
};

}  // namespace

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  static CachedGraph graphs[128];
  static int count = 0;
  static cudaStream_t capture_stream = nullptr;
  for (int index = 0; index < count; ++index) {
    if (graphs[index].x == x && graphs[index].y == y && graphs[index].n == n) {
      cudaGraphLaunch(graphs[index].exec, stream);
      return;
    }
  }
  if (capture_stream == nullptr) cudaStreamCreateWithFlags(&capture_stream, cudaStreamNonBlocking);
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  cudaStreamBeginCapture(capture_stream, cudaStreamCaptureModeThreadLocal);
  gelu_kernel<<<(n + 255) / 256, 256, 0, capture_stream>>>(x, y, n);
  cudaStreamEndCapture(capture_stream, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  if (count < 128) graphs[count++] = CachedGraph{x, y, n, exec};
  cudaGraphLaunch(exec, stream);
}
