// int_im2col_divmod: blind set, kind 1 (integer/index arithmetic dominates).
// An im2col gather for a 3x3 convolution: one thread per column-matrix element, whose (n, c, kh, kw, oh,
// ow) coordinates come from five run-time unsigned divisions and modulos by the layer dimensions passed
// as arguments. Each division by a run-time divisor is an I2F/MUFU.RCP/F2I/IMAD sequence, so index math is
// most of the instruction mix, for one 4-byte load and store per thread. The fix: a 2-D/3-D grid over the
// output, precomputed magic-number divisors (fast division), or one thread per output row.
// Usage: ./int_im2col_divmod [reps]
#include "../kernels/example_common.cuh"

__global__ void int_im2col_divmod(const float* __restrict__ in, float* __restrict__ col, unsigned N,
                                  unsigned C, unsigned H, unsigned W, unsigned K, unsigned total) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= total) return;
  unsigned OH = H - K + 1, OW = W - K + 1;
  unsigned ow = t % OW, r = t / OW;
  unsigned oh = r % OH;
  r /= OH;
  unsigned kw = r % K;
  r /= K;
  unsigned kh = r % K;
  r /= K;
  unsigned c = r % C, n = r / C;
  col[t] = in[((n * C + c) * H + oh + kh) * W + ow + kw];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const unsigned N = 8, C = 64, H = 58, W = 58, K = 3;
  const unsigned total = N * C * K * K * (H - K + 1) * (W - K + 1);  // 14.45 M
  float* in = device_alloc<float>(size_t(N) * C * H * W);
  float* col = device_alloc<float>(total);
  fill_random<<<4096, 256>>>(in, size_t(N) * C * H * W, 104, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    int_im2col_divmod<<<(total + 255) / 256, 256>>>(in, col, N, C, H, W, K, total);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float a = read_back(col + 1), b = read_back(in + 1);
  if (a != b) fail("wrong result %f %f\n", a, b);
  time_kernel("int_im2col_divmod", reps, launch);
  free_device({in, col});
  printf("ok\n");
  return 0;
}
