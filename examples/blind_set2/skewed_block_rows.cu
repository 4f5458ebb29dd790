// skewed_block_rows: blind set 2, kind 6 (load imbalance across SMs).
// Row sums of a matrix whose rows have very different lengths, one block of 256 threads per row: the
// first 66 rows hold 262,144 values each, the other 4,030 rows 1,024. The blocks of the long rows run
// for milliseconds while the SMs that took short rows sit idle long before the end: the work, not the
// code, is uneven. Split long rows over several blocks (or balance rows by length).
// Usage: ./skewed_block_rows [reps]
#include "../kernels/example_common.cuh"

__global__ void skewed_block_rows(const float* __restrict__ values, const long long* __restrict__ row_start,
                                  float* __restrict__ sums) {
  __shared__ float partial[256];
  const long long begin = row_start[blockIdx.x], end = row_start[blockIdx.x + 1];
  float acc = 0.0f;
  for (long long k = begin + threadIdx.x; k < end; k += blockDim.x) acc += values[k];
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int half = 128; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int rows = 4096, long_rows = 66;
  std::vector<long long> start(rows + 1, 0);
  for (int r = 0; r < rows; ++r) start[r + 1] = start[r] + (r < long_rows ? 262144 : 1024);
  const long long total = start[rows];
  float* values = device_alloc<float>(total);
  long long* row_start = device_alloc<long long>(rows + 1);
  float* sums = device_alloc<float>(rows);
  fill_random<<<1024, 256>>>(values, total, 205, 0.5f, 1.5f);
  CK(cudaMemcpy(row_start, start.data(), (rows + 1) * sizeof(long long), cudaMemcpyHostToDevice));
  auto launch = [&] {
    skewed_block_rows<<<rows, 256>>>(values, row_start, sums);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float s0 = read_back(sums), s9 = read_back(sums + 900);
  if (!(s0 > 0.8f * 262144 && s0 < 1.2f * 262144 && s9 > 0.8f * 1024 && s9 < 1.2f * 1024)) fail("wrong %f %f\n", s0, s9);
  time_kernel("skewed_block_rows", reps, launch);
  free_device({values, row_start, sums});
  printf("ok\n");
  return 0;
}
