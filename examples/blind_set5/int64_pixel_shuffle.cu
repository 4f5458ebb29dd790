// int64_pixel_shuffle: blind set 5, kind 1 (64-bit index arithmetic dominating).
// The depth-to-space step of a super-resolution network (PyTorch's pixel_shuffle, upscale r = 2) written
// generically: one thread per output element over 8 x 16 x 512 x 512 floats (134 MB out, 134 MB in), the
// output index split into (n, c, y, x) with size_t % and / by run-time sizes, then y % r, x % r, y / r, x /
// r: seven 64-bit divisions or remainders per 4-byte element. Loads and stores are coalesced enough (two
// input planes per warp) and the bytes are 268 MB, but the division subroutines are far more instructions
// than the memory needs; 32-bit indices, a 2D grid over (y, x) and r as a compile-time constant remove them.
// Usage: ./int64_pixel_shuffle [reps]
#include "../kernels/example_common.cuh"

__global__ void int64_pixel_shuffle(const float* __restrict__ in, float* __restrict__ out, size_t N, size_t C,
                                    size_t H, size_t W, size_t r) {
  const size_t Wo = W * r, Ho = H * r, total = N * C * Ho * Wo;
  for (size_t o = blockIdx.x * (size_t)blockDim.x + threadIdx.x; o < total;
       o += (size_t)gridDim.x * blockDim.x) {
    size_t x = o % Wo, t = o / Wo;
    size_t y = t % Ho;
    t /= Ho;
    size_t c = t % C, n = t / C;
    size_t ci = c * r * r + (y % r) * r + (x % r);
    out[o] = in[((n * C * r * r + ci) * H + y / r) * W + x / r];
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t N = 8, C = 16, H = 512, W = 512, r = 2;  // output C x 512 x 512 from input 4C x 256 x 256
  const size_t h_in = H / r, w_in = W / r, total = N * C * H * W;
  float* in = device_alloc<float>(total);
  float* out = device_alloc<float>(total);
  fill_random<<<2048, 256>>>(in, total, 501, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    int blocks = int((total + 255) / 256);
    int64_pixel_shuffle<<<blocks, 256>>>(in, out, N, C, h_in, w_in, r);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (size_t o : {size_t(0), size_t(1), size_t(513), size_t(123456789) % total, total - 1}) {
    size_t x = o % W, y = (o / W) % H, c = (o / W / H) % C, n = o / W / H / C;
    size_t ci = c * r * r + (y % r) * r + (x % r);
    float want = read_back(in + ((n * C * r * r + ci) * h_in + y / r) * w_in + x / r);
    float got = read_back(out + o);
    if (got != want) fail("wrong value at %zu: %f vs %f\n", o, got, want);
  }
  time_kernel("int64_pixel_shuffle", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
