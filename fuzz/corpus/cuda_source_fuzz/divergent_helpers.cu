/* block comment with "quotes" and 'c' */
__device__ __forceinline__ double twice(double x) { return x * 2.0; }
__global__ void __cluster_dims__(2, 1, 1) branchy(int* out, unsigned n) {
  unsigned lane = threadIdx.x & 31u;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (lane % 2 == 0) { out[i] = (int)twice(sinf(i) / 3); } else { out[i] = i % n; }
  while (i < n) { atomicAdd(&out[0], 1); i += gridDim.x * blockDim.x; }
}
