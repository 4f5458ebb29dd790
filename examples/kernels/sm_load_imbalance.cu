// sm_load_imbalance: PLANTED BOTTLENECK = load imbalance across SMs (blocks with very different work).
// A segmented sum, one 512-thread block per segment, over 256 MB of float4s: 12 of the 1,320 segments
// (every 110th) hold 3/4 of the data (16 MB each), the others ~50 KB. The light blocks finish early; for
// most of the kernel only the 12 SMs that run a heavy block are busy and the other 120 sit idle. The fix
// is to split long segments across blocks (or a grid-stride decomposition by elements, not segments).
// Usage: ./sm_load_imbalance [reps]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call)                                                                             \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

// Non-zero pseudo-random values in [lo, hi) (lo > 0), generated on the device.
__global__ void fill_random(float* p, size_t n, unsigned seed, float lo, float hi) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed * 0x9e3779b9u;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    p[i] = lo + (hi - lo) * ((h >> 8) * (1.0f / 16777216.0f));
  }
}

// Times `launch` reps times with CUDA events (after the first, profiled launch) and prints the median.
template <class F>
static void time_kernel(const char* name, int reps, F launch) {
  if (reps <= 0) return;
  std::vector<float> t(reps);
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&t[r], a, b));
  }
  std::sort(t.begin(), t.end());
  printf("TIME %s median_us=%.2f min_us=%.2f reps=%d\n", name, t[reps / 2] * 1e3f, t[0] * 1e3f, reps);
}

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
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  const int segs = 1320;
  const long long total = 1LL << 24, heavy_len = 1LL << 20;  // float4s: 256 MB; heavy segment 16 MB
  const int heavy = (segs + 109) / 110;
  const long long light_len = (total - heavy * heavy_len) / (segs - heavy);
  std::vector<long long> off(segs + 1, 0);
  for (int b = 0; b < segs; ++b) off[b + 1] = off[b] + (b % 110 == 0 ? heavy_len : light_len);
  off[segs] = total;  // the last segment takes the remainder
  float4* x;
  long long* seg;
  float* out;
  CK(cudaMalloc(&x, total * sizeof(float4)));
  CK(cudaMalloc(&seg, (segs + 1) * sizeof(long long)));
  CK(cudaMalloc(&out, segs * sizeof(float)));
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
    if (!(h[b] > 0.45 * len && h[b] < 1.55 * len)) {
      fprintf(stderr, "wrong result %d\n", b);
      return 1;
    }
  }
  time_kernel("sm_load_imbalance", reps, launch);
  CK(cudaFree(x));
  CK(cudaFree(seg));
  CK(cudaFree(out));
  printf("ok\n");
  return 0;
}
