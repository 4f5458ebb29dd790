// int64_index_arithmetic: PLANTED BOTTLENECK = 64-bit integer division/modulo in the index math.
// An NCHW -> CNHW permute (the innermost W dimension stays contiguous, so loads and stores are coalesced)
// whose index decomposition uses signed 64-bit / and % by run-time dimensions: each one is a long
// integer-division subroutine, so the kernel is bound by integer instructions, not by its 512 MB of traffic.
// The fix: 32-bit indices, precomputed fast-division magic numbers, or a 2-D/3-D grid.
// Size: 8 x 64 x 256 x 512 floats = 2^26 (256 MB in, 256 MB out).
// Usage: ./int64_index_arithmetic [reps]
#include "example_common.cuh"

__global__ void int64_index_arithmetic(const float* __restrict__ in, float* __restrict__ out, long long N,
                                       long long C, long long H, long long W) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= N * C * H * W) return;
  long long w = i % W, h = (i / W) % H, c = (i / (W * H)) % C, n = i / (W * H * C);
  out[((c * N + n) * H + h) * W + w] = in[i];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  long long N = 8, C = 64, H = 256, W = 512;
  if (argc > 2) W = atoll(argv[2]);  // keeps the dimensions run-time values
  const size_t total = (size_t)(N * C * H * W);
  float* in = device_alloc<float>(total);
  float* out = device_alloc<float>(total);
  fill_random<<<4096, 256>>>(in, total, 19, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    int64_index_arithmetic<<<unsigned((total + 255) / 256), 256>>>(in, out, N, C, H, W);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  long long n = 3, c = 17, h = 100, w = 77;
  float x = read_back(in + ((n * C + c) * H + h) * W + w);
  float y = read_back(out + ((c * N + n) * H + h) * W + w);
  if (x != y) fail("wrong result\n");
  time_kernel("int64_index_arithmetic", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
