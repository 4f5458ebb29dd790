// healthy_tiled_transpose: blind set, HEALTHY (a correct shared-memory transpose).
// out = in^T for an 8192 x 8192 float matrix (256 MB each way): 32x32 tiles staged in shared memory with
// one column of padding (no bank conflicts), 32x8 threads per block each moving four elements, both
// global reads and writes coalesced. It is DRAM-bound and should run close to a copy; nothing above minor.
// Usage: ./healthy_tiled_transpose [reps]
#include "../kernels/example_common.cuh"

constexpr int kTile = 32, kRows = 8;

__global__ void healthy_tiled_transpose(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 8192;
  float* in = device_alloc<float>(size_t(n) * n);
  float* out = device_alloc<float>(size_t(n) * n);
  fill_random<<<4096, 256>>>(in, size_t(n) * n, 135, 0.5f, 1.5f);
  CK(cudaGetLastError());
  dim3 grid(n / kTile, n / kTile), block(kTile, kRows);
  auto launch = [&] {
    healthy_tiled_transpose<<<grid, block>>>(in, out, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float a = read_back(in + size_t(123) * n + 4567), b = read_back(out + size_t(4567) * n + 123);
  if (a != b) fail("wrong result\n");
  time_kernel("healthy_tiled_transpose", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
