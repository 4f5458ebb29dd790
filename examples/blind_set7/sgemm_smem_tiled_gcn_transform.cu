// sgemm_smem_tiled_gcn_transform: blind set 7, kind 5 (an FP32 SIMT GEMM that should use tensor cores).
// The feature transform of a graph convolutional network layer (H' = H W) on a 65,536-node graph, 512 -> 512
// features, written as the CUDA-guide shared-memory tiled SGEMM: 32 x 32 tiles of H and W in shared memory,
// one output per thread, two shared loads per FFMA. 34 GFLOP on the CUDA cores (the shared-memory/LSU pipe
// and the FMA pipe both busy, a fraction of the FP32 ceiling), when TF32 or bf16 tensor cores (cuBLAS) would
// do it several to ten times faster.
// Usage: ./sgemm_smem_tiled_gcn_transform [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kT = 32;

__global__ void sgemm_smem_tiled_gcn_transform(const float* __restrict__ H, const float* __restrict__ W,
                                               float* __restrict__ out, int nodes, int fin, int fout) {
  __shared__ float sh[kT][kT], sw[kT][kT + 1];
  int row = blockIdx.y * kT + threadIdx.y, col = blockIdx.x * kT + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < fin; k0 += kT) {
    sh[threadIdx.y][threadIdx.x] = H[size_t(row) * fin + k0 + threadIdx.x];
    sw[threadIdx.y][threadIdx.x] = W[size_t(k0 + threadIdx.y) * fout + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kT; ++k) acc += sh[threadIdx.y][k] * sw[k][threadIdx.x];
    __syncthreads();
  }
  out[size_t(row) * fout + col] = acc;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int nodes = 65536, fin = 512, fout = 512;
  float* H = device_alloc<float>(size_t(nodes) * fin);
  float* W = device_alloc<float>(size_t(fin) * fout);
  float* out = device_alloc<float>(size_t(nodes) * fout);
  fill_random<<<2048, 256>>>(H, size_t(nodes) * fin, 714, -1.0f, 1.0f);
  fill_random<<<256, 256>>>(W, size_t(fin) * fout, 715, -0.05f, 0.05f);
  CK(cudaGetLastError());
  auto launch = [&] {
    sgemm_smem_tiled_gcn_transform<<<dim3(fout / kT, nodes / kT), dim3(kT, kT)>>>(H, W, out, nodes, fin,
                                                                                  fout);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hw(size_t(fin) * fout), hrow(fin);
  CK(cudaMemcpy(hw.data(), W, hw.size() * 4, cudaMemcpyDeviceToHost));
  for (auto [r, c] : {std::pair{0, 0}, {30000, 511}, {nodes - 1, 77}}) {
    CK(cudaMemcpy(hrow.data(), H + size_t(r) * fin, fin * 4, cudaMemcpyDeviceToHost));
    double want = 0, mag = 0;
    for (int k = 0; k < fin; ++k)
      want += double(hrow[k]) * hw[size_t(k) * fout + c],
          mag += std::fabs(hrow[k] * hw[size_t(k) * fout + c]);
    float got = read_back(out + size_t(r) * fout + c);
    if (!(std::fabs(got - want) <= 1e-4 * mag + 1e-6))
      fail("wrong output (%d,%d): %g vs %g\n", r, c, got, want);
  }
  time_kernel("sgemm_smem_tiled_gcn_transform", reps, launch);
  free_device({H, W, out});
  printf("ok\n");
  return 0;
}
