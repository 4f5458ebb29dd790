// fp32_gemm_no_tensor_cores: PLANTED BOTTLENECK = matrix multiply on the FP32 FMA pipe, not tensor cores.
// C = A * B with fp16 inputs and fp32 accumulation (M = N = K = 2048), a classic shared-memory tiled SGEMM
// (64x64 block tile, 4x4 outputs per thread): the inputs are converted to float and multiplied with FFMA.
// The same product on tensor cores (HMMA, or HGMMA/wgmma on Hopper) has roughly 15x the peak rate.
// Usage: ./fp32_gemm_no_tensor_cores [reps]
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
#include <cuda_fp16.h>

#define BM 64
#define BN 64
#define BK 16
__global__ void __launch_bounds__(256)
    fp32_gemm_no_tensor_cores(const __half* __restrict__ A, const __half* __restrict__ B,
                              float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(16) float As[BK][BM + 4];  // A tile, transposed
  __shared__ __align__(16) float Bs[BK][BN];
  int tx = threadIdx.x % 16, ty = threadIdx.x / 16, row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = threadIdx.x; e < BM * BK; e += 256)
      As[e % BK][e / BK] = __half2float(A[(size_t)(row0 + e / BK) * K + k0 + e % BK]);
    for (int e = threadIdx.x; e < BK * BN; e += 256)
      Bs[e / BN][e % BN] = __half2float(B[(size_t)(k0 + e / BN) * N + col0 + e % BN]);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float4 a = *(const float4*)&As[k][ty * 4], b = *(const float4*)&Bs[k][tx * 4];
      float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) C[(size_t)(row0 + ty * 4 + i) * N + col0 + tx * 4 + j] = acc[i][j];
}

__global__ void to_half(const float* f, __half* h, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    h[i] = __float2half(f[i]);
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  const int M = 2048, N = 2048, K = 2048;
  float *tmp, *C;
  __half *A, *B;
  CK(cudaMalloc(&tmp, (size_t)M * K * sizeof(float)));
  CK(cudaMalloc(&A, (size_t)M * K * sizeof(__half)));
  CK(cudaMalloc(&B, (size_t)K * N * sizeof(__half)));
  CK(cudaMalloc(&C, (size_t)M * N * sizeof(float)));
  fill_random<<<1024, 256>>>(tmp, (size_t)M * K, 11, 0.5f, 1.5f);
  CK(cudaGetLastError());
  to_half<<<1024, 256>>>(tmp, A, (size_t)M * K);
  CK(cudaGetLastError());
  fill_random<<<1024, 256>>>(tmp, (size_t)K * N, 12, 0.5f, 1.5f);
  CK(cudaGetLastError());
  to_half<<<1024, 256>>>(tmp, B, (size_t)K * N);
  CK(cudaGetLastError());
  auto launch = [&] {
    fp32_gemm_no_tensor_cores<<<dim3(N / BN, M / BM), 256>>>(A, B, C, M, N, K);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<__half> hA((size_t)M * K), hB((size_t)K * N);
  std::vector<float> hC((size_t)M * N);
  CK(cudaMemcpy(hA.data(), A, hA.size() * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hB.data(), B, hB.size() * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hC.data(), C, hC.size() * 4, cudaMemcpyDeviceToHost));
  for (int t = 0; t < 8; ++t) {
    int r = (t * 977) % M, c = (t * 1291 + 5) % N;
    double ref = 0;
    for (int k = 0; k < K; ++k)
      ref += (double)__half2float(hA[(size_t)r * K + k]) * __half2float(hB[(size_t)k * N + c]);
    if (fabs(ref - hC[(size_t)r * N + c]) > 1e-3 * fabs(ref)) {
      fprintf(stderr, "wrong result\n");
      return 1;
    }
  }
  time_kernel("fp32_gemm_no_tensor_cores", reps, launch);
  CK(cudaFree(tmp));
  CK(cudaFree(A));
  CK(cudaFree(B));
  CK(cudaFree(C));
  printf("ok\n");
  return 0;
}
