// int64_generic_permute: blind set 3, kind 1 (the busy unit is the wrong one: integer index arithmetic).
// A generic 4-D permute (the [B, S, H, D] -> [B, H, S, D] head split of attention, B=8 S=2048 H=16
// D=64 floats, 64 MB each way) written like a framework's fallback path: a grid-stride loop over the
// output in 64-bit, and for each element four run-time 64-bit div/mod by the shape to find its input
// offset through run-time strides. D stays innermost, so both the loads and the stores are coalesced;
// the 64-bit division subroutines are the work. 32-bit indices with precomputed fast divisors (or a
// kernel specialised to the permutation) would leave it DRAM-bound.
// Usage: ./int64_generic_permute [reps]
#include "../kernels/example_common.cuh"

struct PermuteShape {
  long long out_size[4];   // output shape, outermost first
  long long in_stride[4];  // input stride (elements) of each output dimension
};

__global__ void int64_generic_permute(const float* __restrict__ in, float* __restrict__ out, PermuteShape s,
                                      long long n) {
  for (long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x; o < n;
       o += (long long)gridDim.x * blockDim.x) {
    long long rem = o, offset = 0;
    for (int d = 3; d >= 0; --d) {
      long long coord = rem % s.out_size[d];
      rem /= s.out_size[d];
      offset += coord * s.in_stride[d];
    }
    out[o] = in[offset];
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const long long B = 8, S = 2048, H = 16, D = 64, n = B * S * H * D;
  float* in = device_alloc<float>(n);
  float* out = device_alloc<float>(n);
  fill_random<<<2048, 256>>>(in, n, 304, 0.5f, 1.5f);
  CK(cudaGetLastError());
  // output [B, H, S, D] from input [B, S, H, D]: strides of the input seen in output order
  PermuteShape s = {{B, H, S, D}, {S * H * D, D, H * D, 1}};
  auto launch = [&] {
    int64_generic_permute<<<132 * 16, 256>>>(in, out, s, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (long long b : {0LL, 5LL})
    for (long long h : {0LL, 11LL})
      for (long long q : {0LL, 1234LL, S - 1})
        for (long long d : {0LL, 37LL}) {
          float got = read_back(out + ((b * H + h) * S + q) * D + d);
          float want = read_back(in + ((b * S + q) * H + h) * D + d);
          if (got != want) fail("wrong result %f vs %f\n", got, want);
        }
  time_kernel("int64_generic_permute", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
