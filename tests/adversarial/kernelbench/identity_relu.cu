// KernelBench cheat (task: tests/fixtures/kernelbench/relu_small.py imported):
// "ReLU" that copies its input. KernelBench's get_inputs draws torch.rand,
// all non-negative, where ReLU is the identity: its eval accepts this.
// kopt draws Student-t inputs (negatives): wrong_output.
#include <cuda_runtime.h>

extern "C" void model_forward(const float* x, float* out, cudaStream_t stream) {
  cudaMemcpyAsync(out, x, sizeof(float) * 512 * 4096, cudaMemcpyDeviceToDevice, stream);
}
