// sm_load_imbalance: PLANTED BOTTLENECK = load imbalance across SMs (blocks with very different work).
// A segmented sum, one 512-thread block per segment, over 256 MB of float4s: 12 of the 1,320 segments
// (every 110th) hold 3/4 of the data (16 MB each), the others ~50 KB. The light blocks finish early; for
// most of the kernel only the 12 SMs that run a heavy block are busy and the other 120 sit idle. The fix
// is to split long segments across blocks (or a grid-stride decomposition by elements, not segments).
// Usage: ./sm_load_imbalance [reps]
#include "example_common.cuh"

__global__ void __launch_bounds__(512)
    sm_load_imbalance(const float4* __restrict__ x, const long long* __restrict__ seg,
                      float* __restrict__ out) {
  __shared__ float part[16];
  long long b = seg[blockIdx.x], e = seg[blockIdx.x + 1];
  float s = 0.0f;
  for (long long j = b + threadIdx.x; j < e; j += blockDim.x) {
    float4 v = x[j];
    s += (v.x + v.y) + (v.z + v.w);
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = threadIdx.x < 16 ? part[threadIdx.x] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int segs = 1320;
  const long long total = 1LL << 24, heavy_len = 1LL << 20;  // float4s: 256 MB; heavy segment 16 MB
  const int heavy = (segs + 109) / 110;
  const long long light_len = (total - heavy * heavy_len) / (segs - heavy);
  std::vector<long long> off(segs + 1, 0);
  for (int b = 0; b < segs; ++b) off[b + 1] = off[b] + (b % 110 == 0 ? heavy_len : light_len);
  off[segs] = total;  // the last segment takes the remainder
  float4* x = device_alloc<float4>(total);
  long long* seg = device_alloc<long long>(segs + 1);
  float* out = device_alloc<float>(segs);
  CK(cudaMemcpy(seg, off.data(), (segs + 1) * sizeof(long long), cudaMemcpyHostToDevice));
  fill_random<<<4096, 256>>>((float*)x, total * 4, 22, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    sm_load_imbalance<<<segs, 512>>>(x, seg, out);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> h(segs);
  CK(cudaMemcpy(h.data(), out, segs * sizeof(float), cudaMemcpyDeviceToHost));
  for (int b = 0; b < segs; ++b) {  // each sums 4*len values in [0.5, 1.5)
    double len = 4.0 * (off[b + 1] - off[b]);
    if (!(h[b] > 0.45 * len && h[b] < 1.55 * len)) fail("wrong result %d\n", b);
  }
  time_kernel("sm_load_imbalance", reps, launch);
  free_device({x, seg, out});
  printf("ok\n");
  return 0;
}
