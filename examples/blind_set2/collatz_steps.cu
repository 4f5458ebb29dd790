// collatz_steps: blind set 2, warp divergence.
// Counts Collatz steps (n -> n/2 or 3n+1 until 1) for 4 M consecutive starting values, one per thread:
// the iteration count varies from a few to several hundred between neighbouring threads, so a warp runs
// as long as its longest lane while most lanes sit masked off, and the two branches of each step split
// the warp too. Few active threads per instruction is the limiter; sorting work by expected length or
// giving each lane a queue of values balances it.
// Usage: ./collatz_steps [reps]
#include "../kernels/example_common.cuh"

__global__ void collatz_steps(unsigned* __restrict__ steps, unsigned first, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long v = first + unsigned(i);
  unsigned count = 0;
  while (v != 1) {
    if (v & 1) v = 3 * v + 1;
    else v >>= 1;
    ++count;
  }
  steps[i] = count;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 22;
  const unsigned first = 1000001;
  unsigned* steps = device_alloc<unsigned>(n);
  auto launch = [&] {
    collatz_steps<<<(n + 255) / 256, 256>>>(steps, first, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  unsigned long long v = first + 12345;
  unsigned count = 0;
  while (v != 1) v = (v & 1) ? 3 * v + 1 : v >> 1, ++count;
  if (read_back(steps + 12345) != count) fail("wrong result\n");
  time_kernel("collatz_steps", reps, launch);
  free_device({steps});
  printf("ok\n");
  return 0;
}
