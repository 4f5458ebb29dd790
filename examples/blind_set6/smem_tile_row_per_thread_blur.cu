// smem_tile_row_per_thread_blur: blind set 6, other cause (shared-memory bank conflicts).
// Separable 5-tap binomial blur of an 8192 x 8192 float image in independent 32 x 32 tiles (a denoiser's
// pre-filter), one warp per tile, written "lane owns a row" for the horizontal pass: lane l reads and
// writes tile[l][x] for x = 0..31, so the 32 lanes hit 32 words 32 apart, all in one bank: every shared
// load and store of the horizontal pass is a 32-way conflict (about 64 conflicted accesses, 2,048
// wavefronts, per tile against 8 KB of coalesced global traffic per tile, 512 MB in all). The vertical pass
// (lane owns a column) is conflict-free. Padding the tile to [32][33], or transposing the roles, is the fix.
// Usage: ./smem_tile_row_per_thread_blur [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kT = 32, kWarps = 4;

__host__ __device__ inline float tap(int d) {
  return (d == 0 ? 6.0f : (d == 1 || d == -1) ? 4.0f : 1.0f) / 16.0f;
}

__global__ void smem_tile_row_per_thread_blur(const float* __restrict__ in, float* __restrict__ out, int width) {
  __shared__ float tile[kWarps][kT][kT];
  __shared__ float tmp[kWarps][kT][kT];
  int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  int t = blockIdx.x * kWarps + w, tiles_x = width / kT;
  size_t origin = size_t(t / tiles_x) * kT * width + size_t(t % tiles_x) * kT;
  for (int r = 0; r < kT; ++r) tile[w][r][lane] = in[origin + size_t(r) * width + lane];
  __syncwarp();
  for (int x = 0; x < kT; ++x) {  // horizontal: lane owns row `lane`
    float s = 0.0f;
    for (int d = -2; d <= 2; ++d) s += tap(d) * tile[w][lane][min(max(x + d, 0), kT - 1)];
    tmp[w][lane][x] = s;
  }
  __syncwarp();
  for (int y = 0; y < kT; ++y) {  // vertical: lane owns column `lane`
    float s = 0.0f;
    for (int d = -2; d <= 2; ++d) s += tap(d) * tmp[w][min(max(y + d, 0), kT - 1)][lane];
    out[origin + size_t(y) * width + lane] = s;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int width = 8192;
  const size_t n = size_t(width) * width;
  float* in = device_alloc<float>(n);
  float* out = device_alloc<float>(n);
  fill_random<<<2048, 256>>>(in, n, 611, 0.0f + 1e-3f, 1.0f);
  CK(cudaGetLastError());
  const int tiles = (width / kT) * (width / kT);
  auto launch = [&] {
    smem_tile_row_per_thread_blur<<<tiles / kWarps, kWarps * 32>>>(in, out, width);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> src(kT * kT), tmp(kT * kT);
  for (int t : {0, 300, tiles - 1}) {
    size_t origin = size_t(t / (width / kT)) * kT * width + size_t(t % (width / kT)) * kT;
    for (int r = 0; r < kT; ++r) CK(cudaMemcpy(&src[r * kT], in + origin + size_t(r) * width, kT * 4, cudaMemcpyDeviceToHost));
    for (int r = 0; r < kT; ++r)
      for (int x = 0; x < kT; ++x) {
        float s = 0;
        for (int d = -2; d <= 2; ++d) s += tap(d) * src[r * kT + std::min(std::max(x + d, 0), kT - 1)];
        tmp[r * kT + x] = s;
      }
    for (int y : {0, 1, 17, 31})
      for (int x : {0, 2, 31}) {
        float want = 0;
        for (int d = -2; d <= 2; ++d) want += tap(d) * tmp[std::min(std::max(y + d, 0), kT - 1) * kT + x];
        float got = read_back(out + origin + size_t(y) * width + x);
        if (!(std::fabs(got - want) <= 1e-5f)) fail("wrong blur at tile %d (%d,%d): %f vs %f\n", t, y, x, got, want);
      }
  }
  time_kernel("smem_tile_row_per_thread_blur", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
