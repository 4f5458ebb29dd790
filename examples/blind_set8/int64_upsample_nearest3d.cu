// int64_upsample_nearest3d: blind set 8, kind 1 (64-bit integer index arithmetic dominating the mix).
// The nearest-neighbour 3D upsampling of a volumetric U-Net decoder (F.interpolate(mode="nearest") port):
// every output element of [N][C][2D][2H][2W] (2 x 32 x 64 x 96 x 96, 37.7 M fp32) decomposes its int64_t
// linear index by the run-time output sizes (four 64-bit / and four %) and maps back with three 64-bit
// (o * in) / out divisions: about eleven 64-bit division sequences per 4-byte element, against 151 MB written
// and 19 MB read (~40 us of DRAM time). The integer pipe, not memory, sets its time.
// Usage: ./int64_upsample_nearest3d [reps]
#include <cstdint>

#include "../kernels/example_common.cuh"

__global__ void int64_upsample_nearest3d(const float* __restrict__ in, float* __restrict__ out, int64_t nc,
                                         int64_t di, int64_t hi, int64_t wi, int64_t dout, int64_t hout,
                                         int64_t wout) {
  int64_t total = nc * dout * hout * wout;
  int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (idx >= total) return;
  int64_t x = idx % wout;
  int64_t y = (idx / wout) % hout;
  int64_t z = (idx / (wout * hout)) % dout;
  int64_t c = idx / (wout * hout * dout);
  int64_t sx = x * wi / wout, sy = y * hi / hout, sz = z * di / dout;
  out[idx] = in[((c * di + sz) * hi + sy) * wi + sx];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int64_t nc = 2 * 32, di = 32, hi = 48, wi = 48, dout = 64, hout = 96, wout = 96;
  const int64_t n_in = nc * di * hi * wi, n_out = nc * dout * hout * wout;
  float* in = device_alloc<float>(n_in);
  float* out = device_alloc<float>(n_out);
  fill_random<<<1024, 256>>>(in, n_in, 841, -1.0f, 1.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    int64_upsample_nearest3d<<<(unsigned)((n_out + 255) / 256), 256>>>(in, out, nc, di, hi, wi, dout, hout,
                                                                       wout);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int64_t idx : {int64_t(0), int64_t(123457), int64_t(20000003), n_out - 1}) {
    int64_t x = idx % wout, y = (idx / wout) % hout, z = (idx / (wout * hout)) % dout,
            c = idx / (wout * hout * dout);
    float want = read_back(in + ((c * di + z / 2) * hi + y / 2) * wi + x / 2);
    if (read_back(out + idx) != want) fail("wrong element %lld\n", (long long)idx);
  }
  time_kernel("int64_upsample_nearest3d", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
