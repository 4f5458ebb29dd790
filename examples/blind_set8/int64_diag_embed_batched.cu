// int64_diag_embed_batched: blind set 8, kind 1 (64-bit integer index arithmetic dominating the mix).
// torch.diag_embed as a generic elementwise kernel: out[b][i][j] = (i == j + offset) ? v[b][j] : 0 for 256
// batches of 256-long vectors, written per output element with int64_t indices decomposed by run-time sizes
// (two 64-bit / and two %, the 64-bit division subroutine each) for 16.8 M fp32 outputs (67 MB written, 256
// KB read). The division sequences, not the stores, limit it; 32-bit indices or a 2D grid would remove them.
// Usage: ./int64_diag_embed_batched [reps]
#include <cstdint>

#include "../kernels/example_common.cuh"

__global__ void int64_diag_embed_batched(const float* __restrict__ v, float* __restrict__ out, int64_t batch,
                                         int64_t n, int64_t offset) {
  int64_t total = batch * n * n;
  for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < total;
       idx += (int64_t)gridDim.x * blockDim.x) {
    int64_t j = idx % n;
    int64_t i = (idx / n) % n;
    int64_t b = idx / (n * n);
    out[idx] = (i == j + offset) ? v[b * n + j] : 0.0f;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int64_t batch = 256, n = 256, offset = 0;
  float* v = device_alloc<float>(batch * n);
  float* out = device_alloc<float>(batch * n * n);
  fill_random<<<256, 256>>>(v, batch * n, 831, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    int64_diag_embed_batched<<<(unsigned)(batch * n * n / 256), 256>>>(v, out, batch, n, offset);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int64_t b : {0, 77, 255})
    for (int64_t i : {0, 100, 255})
      for (int64_t j : {0, 100, 255}) {
        float got = read_back(out + (b * n + i) * n + j);
        float want = i == j ? read_back(v + b * n + j) : 0.0f;
        if (got != want) fail("wrong element (%lld,%lld,%lld)\n", (long long)b, (long long)i, (long long)j);
      }
  time_kernel("int64_diag_embed_batched", reps, launch);
  free_device({v, out});
  printf("ok\n");
  return 0;
}
