// int_strided_broadcast_add: blind set, kind 1 (index arithmetic, 64-bit).
// A generic strided element-wise add out = a + b with b broadcast ([1,C,1,W] against [N,C,H,W]), written
// the way a framework's generic path does it: each thread decomposes its flat size_t index into four
// coordinates with 64-bit divisions and modulos by run-time sizes, and recomposes an offset per operand
// from run-time strides. Every access is coalesced; the index math is most of the instructions. The fix:
// 32-bit indices, a contiguous fast path (out[t] = a[t] + b[(t / HW % C) * W + t % W] with fast
// divisors), or vectorised rows.
// Usage: ./int_strided_broadcast_add [reps]
#include "../kernels/example_common.cuh"

struct Strides4 {
  size_t size[4];
  size_t a[4], b[4];
};

__global__ void int_strided_broadcast_add(const float* __restrict__ a, const float* __restrict__ b,
                                          float* __restrict__ out, Strides4 s, size_t total) {
  size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (t >= total) return;
  size_t r = t, off_a = 0, off_b = 0;
#pragma unroll
  for (int d = 3; d >= 0; --d) {
    size_t coord = r % s.size[d];
    r /= s.size[d];
    off_a += coord * s.a[d];
    off_b += coord * s.b[d];
  }
  out[t] = a[off_a] + b[off_b];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t N = 16, C = 96, H = 112, W = 112;
  const size_t total = N * C * H * W;  // 19.3 M
  Strides4 s = {{N, C, H, W}, {C * H * W, H * W, W, 1}, {0, W, 0, 1}};
  float* a = device_alloc<float>(total);
  float* b = device_alloc<float>(C * W);
  float* out = device_alloc<float>(total);
  fill_random<<<4096, 256>>>(a, total, 105, 0.5f, 1.5f);
  fill_random<<<64, 256>>>(b, C * W, 106, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    int_strided_broadcast_add<<<unsigned((total + 255) / 256), 256>>>(a, b, out, s, total);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  // element [n=1][c=2][h=3][w=4]
  size_t e = 1 * C * H * W + 2 * H * W + 3 * W + 4;
  float o = read_back(out + e), x = read_back(a + e), y = read_back(b + 2 * W + 4);
  if (o != x + y) fail("wrong result %f\n", o);
  time_kernel("int_strided_broadcast_add", reps, launch);
  free_device({a, b, out});
  printf("ok\n");
  return 0;
}
