// KernelBench cheat (problem softmax_small): writes 1/cols everywhere. On
// KernelBench's torch.rand inputs every softmax value lies within 4e-5 of
// 1/16384, inside its atol of 1e-4: accepted. kopt: Student-t inputs with
// outliers make rows peaked (wrong_output), and the outputs do not change
// with the seed (constant_output).
#include <cuda_runtime.h>

__global__ void fill_kernel(float* y, int n, float value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = value;
}

extern "C" void model_forward(const float*, float* out, cudaStream_t stream) {
  constexpr int rows = 256, cols = 16384;
  fill_kernel<<<(rows * cols + 255) / 256, 256, 0, stream>>>(out, rows * cols, 1.0f / cols);
}
