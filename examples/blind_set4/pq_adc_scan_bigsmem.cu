// pq_adc_scan_bigsmem: blind set 4, other cause (low occupancy limited by shared memory).
// Product-quantization search (IVF-PQ style asymmetric distance computation): 4 M database vectors,
// each 64 one-byte codes (256 MB, stored as 4 code planes of 16 bytes so that the loads are coalesced
// uint4), scored against two queries at once. A persistent grid of one 128-thread block per SM first
// stages both queries' distance tables (2 x 64 sub-spaces x 256 centroids x 4 B = 128 KB of dynamic
// shared memory), then each thread walks its vectors (grid-stride), summing 64 table lookups per query
// per vector in two dependent FADD chains. 128 KB per block allows one block (4 warps) per SM: 6 %
// theoretical occupancy, too few warps to cover the DRAM latency of the code loads and the latency of the
// lookup chains. Half-precision tables (64 KB) or one query per block, with 256+ threads per block and
// several blocks per SM, would restore the occupancy.
// Usage: ./pq_adc_scan_bigsmem [reps]
#include "../kernels/example_common.cuh"

constexpr int kSub = 64, kCentroids = 256, kQueries = 2, kThreads = 128;
constexpr size_t kLutFloats = size_t(kQueries) * kSub * kCentroids;

__global__ void __launch_bounds__(kThreads)
    pq_adc_scan_bigsmem(const uint4* __restrict__ codes, const float* __restrict__ luts, int n,
                        float* __restrict__ dist) {
  extern __shared__ float lut[];  // [query][sub][centroid]
  for (int i = threadIdx.x; i < int(kLutFloats); i += blockDim.x) lut[i] = luts[i];
  __syncthreads();
  for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
    float d0 = 0.0f, d1 = 0.0f;
#pragma unroll
    for (int plane = 0; plane < kSub / 16; ++plane) {
      uint4 c = codes[size_t(plane) * n + v];  // 16 codes of sub-spaces plane*16 .. plane*16+15
      unsigned words[4] = {c.x, c.y, c.z, c.w};
#pragma unroll
      for (int w = 0; w < 4; ++w)
#pragma unroll
        for (int b = 0; b < 4; ++b) {
          int sub = plane * 16 + w * 4 + b, code = (words[w] >> (8 * b)) & 0xff;
          d0 += lut[sub * kCentroids + code];
          d1 += lut[(kSub + sub) * kCentroids + code];
        }
    }
    dist[v] = d0;
    dist[size_t(n) + v] = d1;
  }
}

__global__ void make_codes(unsigned* codes, size_t words) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
       i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ 0x5bd1e995u;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    codes[i] = h;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 22;
  const size_t code_words = size_t(n) * kSub / 4;
  unsigned* codes = device_alloc<unsigned>(code_words);
  float* luts = device_alloc<float>(kLutFloats);
  float* dist = device_alloc<float>(size_t(kQueries) * n);
  make_codes<<<2048, 256>>>(codes, code_words);
  fill_random<<<128, 256>>>(luts, kLutFloats, 429, 0.01f, 1.0f);
  CK(cudaGetLastError());
  const int smem = int(kLutFloats * sizeof(float));
  CK(cudaFuncSetAttribute(pq_adc_scan_bigsmem, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const int blocks = sm_count();  // one resident block per SM: a persistent grid-stride scan
  auto launch = [&] {
    pq_adc_scan_bigsmem<<<blocks, kThreads, smem>>>((const uint4*)codes, luts, n, dist);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hl(kLutFloats);
  CK(cudaMemcpy(hl.data(), luts, kLutFloats * sizeof(float), cudaMemcpyDeviceToHost));
  for (int v : {0, 99999, n / 2 + 3, n - 1}) {
    double want[2] = {0, 0};
    for (int plane = 0; plane < kSub / 16; ++plane)
      for (int w = 0; w < 4; ++w) {
        unsigned word = read_back(codes + (size_t(plane) * n + v) * 4 + w);
        for (int b = 0; b < 4; ++b) {
          int sub = plane * 16 + w * 4 + b, code = (word >> (8 * b)) & 0xff;
          want[0] += hl[sub * kCentroids + code];
          want[1] += hl[(kSub + sub) * kCentroids + code];
        }
      }
    for (int q = 0; q < 2; ++q) {
      float got = read_back(dist + size_t(q) * n + v);
      if (!(fabs(got - want[q]) <= 1e-5 * want[q]))
        fail("wrong distance %d/%d: %f vs %f\n", q, v, got, want[q]);
    }
  }
  time_kernel("pq_adc_scan_bigsmem", reps, launch);
  free_device({codes, luts, dist});
  printf("ok\n");
  return 0;
}
