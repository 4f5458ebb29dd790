// FAKE_RUNNER: fast
// The golden tests of the static policy (tests/golden/cases/bench_policy_*):
// does the work on a host thread that outlives the call. Screened out as
// `threads` unless --allow threads.
#include <thread>

__global__ void saxpy_kernel(const float* x, const float* y, float* z, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = a * x[i] + y[i];
}

extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {
  std::thread([=] { saxpy_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, z, n, a); }).detach();
}
