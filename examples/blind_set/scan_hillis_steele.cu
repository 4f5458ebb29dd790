// scan_hillis_steele: blind set, kind 1 (barrier-bound scan).
// Each 1024-thread block scans 64 consecutive 1024-element segments with a Hillis-Steele inclusive scan in
// shared memory: ten steps per segment, each with two __syncthreads (read, then write), and one addition
// per thread per step. The time goes to barriers, not to the additions or the loads. The fix: warp-shuffle
// scans within each warp and one barrier between the warp and block levels (or cub::BlockScan), and
// several elements per thread.
// Usage: ./scan_hillis_steele [reps]
#include "../kernels/example_common.cuh"

__global__ void __launch_bounds__(1024) scan_hillis_steele(const float* __restrict__ x, float* __restrict__ y,
                                                           int segments_per_block) {
  __shared__ float buf[1024];
  float carry = 0.0f;
  size_t base = (size_t)blockIdx.x * segments_per_block * 1024;
  for (int s = 0; s < segments_per_block; ++s) {
    size_t i = base + (size_t)s * 1024 + threadIdx.x;
    buf[threadIdx.x] = x[i];
    __syncthreads();
    for (int offset = 1; offset < 1024; offset <<= 1) {
      float v = threadIdx.x >= offset ? buf[threadIdx.x - offset] : 0.0f;
      __syncthreads();
      buf[threadIdx.x] += v;
      __syncthreads();
    }
    y[i] = buf[threadIdx.x] + carry;
    carry += buf[1023];
    __syncthreads();
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int blocks = 528, segments = 64;  // 4 blocks per SM on 132 SMs
  const size_t n = size_t(blocks) * segments * 1024;  // 34.6 M
  float* x = device_alloc<float>(n);
  float* y = device_alloc<float>(n);
  fill_random<<<4096, 256>>>(x, n, 107, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    scan_hillis_steele<<<blocks, 1024>>>(x, y, segments);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hx(4), hy(4);
  CK(cudaMemcpy(hx.data(), x, 4 * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hy.data(), y, 4 * sizeof(float), cudaMemcpyDeviceToHost));
  float want = hx[0] + hx[1] + hx[2] + hx[3];
  if (!(fabsf(hy[3] - want) < 1e-4f * want)) fail("wrong result %f vs %f\n", hy[3], want);
  time_kernel("scan_hillis_steele", reps, launch);
  free_device({x, y});
  printf("ok\n");
  return 0;
}
