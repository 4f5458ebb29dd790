// healthy_row_sumsq: blind set 3, HEALTHY control (a DRAM-bound reduction near its ceiling).
// The squared L2 norm of each row of a [32,768 x 8,192] float matrix (1 GiB), as a norm-clipping or
// RMSNorm statistics pass: one 256-thread block per row, each thread eight independent 16-byte loads,
// warp shuffles and one shared-memory step, one float written per row. It streams the matrix once
// with wide loads and plenty in flight: DRAM-bound near the bandwidth ceiling, nothing above minor.
// Usage: ./healthy_row_sumsq [reps]
#include "../kernels/example_common.cuh"

constexpr int kCols = 8192, kThreads = 256;

__global__ void healthy_row_sumsq(const float4* __restrict__ m, float* __restrict__ out) {
  const float4* row = m + (size_t)blockIdx.x * (kCols / 4);
  float4 v[kCols / 4 / kThreads];
#pragma unroll
  for (int k = 0; k < kCols / 4 / kThreads; ++k) v[k] = row[k * kThreads + threadIdx.x];
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < kCols / 4 / kThreads; ++k)
    s += v[k].x * v[k].x + v[k].y * v[k].y + v[k].z * v[k].z + v[k].w * v[k].w;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  __shared__ float part[kThreads / 32];
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.0f;
    for (int w = 0; w < kThreads / 32; ++w) t += part[w];
    out[blockIdx.x] = t;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int rows = 32768;
  float* m = device_alloc<float>(size_t(rows) * kCols);
  float* out = device_alloc<float>(rows);
  fill_random<<<4096, 256>>>(m, size_t(rows) * kCols, 332, -1.0f, 1.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    healthy_row_sumsq<<<rows, kThreads>>>((const float4*)m, out);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> h(kCols);
  for (int r : {0, 20000, rows - 1}) {
    CK(cudaMemcpy(h.data(), m + size_t(r) * kCols, kCols * sizeof(float), cudaMemcpyDeviceToHost));
    double want = 0;
    for (float x : h) want += double(x) * x;
    float got = read_back(out + r);
    if (!(fabs(got - want) <= 1e-4 * want)) fail("wrong result at row %d: %f vs %f\n", r, got, want);
  }
  time_kernel("healthy_row_sumsq", reps, launch);
  free_device({m, out});
  printf("ok\n");
  return 0;
}
