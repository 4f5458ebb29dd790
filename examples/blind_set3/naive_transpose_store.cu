// naive_transpose_store: blind set 3, other (uncoalesced stores).
// Out-of-place transpose of a [6,144 x 8,192] float matrix (201 MB) written the direct way: a 32 x 8
// thread block reads a row segment (consecutive lanes, consecutive columns: coalesced) and writes it as
// a column of the output (consecutive lanes 24 KB apart: one 32-byte sector per 4-byte store). The
// stores move eight times the bytes they need. Staging a 32 x 32 tile through (padded) shared memory so
// that both sides are row-contiguous is the fix.
// Usage: ./naive_transpose_store [reps]
#include "../kernels/example_common.cuh"

__global__ void naive_transpose_store(const float* __restrict__ in, float* __restrict__ out, int rows,
                                      int cols) {
  int c = blockIdx.x * 32 + threadIdx.x;
  for (int r = blockIdx.y * 32 + threadIdx.y; r < blockIdx.y * 32 + 32; r += 8)
    out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int rows = 6144, cols = 8192;
  float* in = device_alloc<float>(size_t(rows) * cols);
  float* out = device_alloc<float>(size_t(rows) * cols);
  fill_random<<<2048, 256>>>(in, size_t(rows) * cols, 328, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    naive_transpose_store<<<dim3(cols / 32, rows / 32), dim3(32, 8)>>>(in, out, rows, cols);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int r : {0, 31, 3000, rows - 1})
    for (int c : {0, 33, 5000, cols - 1})
      if (read_back(out + size_t(c) * rows + r) != read_back(in + size_t(r) * cols + c))
        fail("wrong result at (%d, %d)\n", r, c);
  time_kernel("naive_transpose_store", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
