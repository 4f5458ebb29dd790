// Adversarial candidate (task saxpy) -- expected: crash (or
// protocol_violation).
// Attack kind 1: a constructor ends the process with exit status 0 as soon as
// the harness loads the library, before any round runs, hoping the parent
// counts a clean exit as success.
// Caught by the parent's completeness rules: after the device event nothing
// came (no outputs, no timing, no done), and a verdict needs the outputs of
// every round, judged by the parent itself.
#include <cstdlib>

namespace {
__attribute__((constructor)) void LeaveEarly() {
  std::exit(0);
}
}  // namespace

__global__ void saxpy_kernel(const float* x, const float* y, float* z, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = a * x[i] + y[i];
}

extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {
  saxpy_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, z, n, a);
}
