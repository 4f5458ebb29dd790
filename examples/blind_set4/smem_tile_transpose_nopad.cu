// smem_tile_transpose_nopad: blind set 4, other cause (shared-memory bank conflicts).
// An out-of-place transpose of an 8,192 x 8,192 float matrix through 32 x 32 shared-memory tiles
// (32 x 8 threads, four rows per thread), the textbook kernel minus its padding column: the tile is read
// back column-wise, tile[threadIdx.x][threadIdx.y + j], so the 32 lanes of a warp hit 32 words 128 bytes
// apart, all in one bank: 32-way conflicts on every shared load (32 wavefronts instead of 1). Global loads
// and stores are both coalesced. Declaring the tile [32][33] removes the conflicts.
// Usage: ./smem_tile_transpose_nopad [reps]
#include "../kernels/example_common.cuh"

constexpr int kTile = 32, kRows = 8;

__global__ void smem_tile_transpose_nopad(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kTile][kTile];
  int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kRows) tile[threadIdx.y + j][threadIdx.x] = in[size_t(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kRows) out[size_t(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 8192;
  float* in = device_alloc<float>(size_t(n) * n);
  float* out = device_alloc<float>(size_t(n) * n);
  fill_random<<<2048, 256>>>(in, size_t(n) * n, 427, 0.01f, 1.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    smem_tile_transpose_nopad<<<dim3(n / kTile, n / kTile), dim3(kTile, kRows)>>>(in, out, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int r : {0, 31, 4097, n - 1})
    for (int c : {0, 1, 5000, n - 1}) {
      float got = read_back(out + size_t(r) * n + c), want = read_back(in + size_t(c) * n + r);
      if (got != want) fail("wrong element (%d, %d): %f vs %f\n", r, c, got, want);
    }
  time_kernel("smem_tile_transpose_nopad", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
