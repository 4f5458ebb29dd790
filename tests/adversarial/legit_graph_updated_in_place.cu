// Control candidate (task gelu) -- expected: pass.
// An honest pattern the runtime defences must keep passing (issue 30): one
// CUDA graph, captured once on a private stream, whose kernel node is updated
// in place (cudaGraphExecKernelNodeSetParams) with each call's pointers and
// size before it is launched on the harness stream. The graph holds the
// kernel, not results: every launch computes from the current x.
#include <cuda_runtime.h>

__global__ void gelu_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
  }
}

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  static cudaGraphExec_t exec = nullptr;
  static cudaGraphNode_t node = nullptr;
  if (exec == nullptr) {
    cudaStream_t capture = nullptr;
    cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking);
    cudaGraph_t graph = nullptr;
    cudaStreamBeginCapture(capture, cudaStreamCaptureModeThreadLocal);
    gelu_kernel<<<(n + 255) / 256, 256, 0, capture>>>(x, y, n);
    cudaStreamEndCapture(capture, &graph);
    size_t count = 1;
    cudaGraphGetNodes(graph, &node, &count);
    cudaGraphInstantiate(&exec, graph, 0);
    cudaStreamDestroy(capture);
  }
  void* arguments[] = {const_cast<float**>(&x), &y, &n};
  cudaKernelNodeParams parameters = {};
  parameters.func = reinterpret_cast<void*>(gelu_kernel);
  parameters.gridDim = dim3((n + 255) / 256);
  parameters.blockDim = dim3(256);
  parameters.kernelParams = arguments;
  cudaGraphExecKernelNodeSetParams(exec, node, &parameters);
  cudaGraphLaunch(exec, stream);
}
