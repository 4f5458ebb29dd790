// atomic_grad_norm_per_layer: blind set 6, kind 6 (atomic contention).
// Per-layer gradient norms for layer-wise adaptive clipping (LAMB/LARS-style optimizer), computed as one
// float atomicAdd of g * g per gradient element into its layer's accumulator: 16 M parameters in 48 layers
// laid out contiguously, so every lane of a warp and nearly every resident warp of the grid add into the
// same one or two addresses at a time. 16.8 M same-address float atomics serialize at one L2 slice, far
// longer than the 64 MB of coalesced reads take; work per thread is uniform (no imbalance). A block
// reduction with one atomic per block and layer (or a segmented reduction) is the fix.
// Usage: ./atomic_grad_norm_per_layer [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kLayers = 48, kChunk = 1 << 16;

__global__ void atomic_grad_norm_per_layer(const float* __restrict__ grad, const unsigned char* __restrict__ chunk_layer,
                                           float* __restrict__ sq_norm, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float g = grad[i];
    atomicAdd(&sq_norm[chunk_layer[i / kChunk]], g * g);
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 24, chunks = n / kChunk;
  std::vector<unsigned char> hl(chunks);
  for (int c = 0; c < chunks; ++c) hl[c] = (unsigned char)(c * kLayers / chunks);  // 48 layers of 5-6 chunks
  float* grad = device_alloc<float>(n);
  unsigned char* chunk_layer = device_alloc<unsigned char>(chunks);
  float* sq = device_alloc<float>(kLayers);
  fill_random<<<2048, 256>>>(grad, n, 661, 1e-3f, 0.01f);
  CK(cudaGetLastError());
  CK(cudaMemcpy(chunk_layer, hl.data(), chunks, cudaMemcpyHostToDevice));
  const int blocks = sm_count() * 8;
  auto launch = [&] {
    CK(cudaMemset(sq, 0, sizeof(float) * kLayers));
    atomic_grad_norm_per_layer<<<blocks, 256>>>(grad, chunk_layer, sq, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hg(n), got(kLayers);
  CK(cudaMemcpy(hg.data(), grad, size_t(n) * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(got.data(), sq, kLayers * 4, cudaMemcpyDeviceToHost));
  std::vector<double> want(kLayers, 0.0);
  for (int i = 0; i < n; ++i) want[hl[i / kChunk]] += double(hg[i]) * hg[i];
  for (int l = 0; l < kLayers; ++l)
    if (!(std::fabs(got[l] - want[l]) <= 1e-3 * want[l])) fail("wrong norm of layer %d: %g vs %g\n", l, got[l], want[l]);
  time_kernel("atomic_grad_norm_per_layer", reps, launch);
  free_device({grad, chunk_layer, sq});
  printf("ok\n");
  return 0;
}
