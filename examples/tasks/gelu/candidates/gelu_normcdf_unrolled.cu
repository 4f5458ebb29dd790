// GELU candidate: x * Phi(x) with normcdff (accurate also where the
// reference's 1 + erf cancels, x << 0; the task's atol covers the
// reference's error there). Each thread handles two float4 per iteration
// (more loads in flight); scalar tail for n % 4. Correct for any n >= 1.
__device__ __forceinline__ float gelu_cdf(float v) {
  return v * normcdff(v);
}

__device__ __forceinline__ float4 gelu_cdf4(float4 v) {
  return make_float4(gelu_cdf(v.x), gelu_cdf(v.y), gelu_cdf(v.z), gelu_cdf(v.w));
}

__global__ void gelu_normcdf_kernel(const float* x, float* y, int n) {
  const int vectors = n / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  float4* y4 = reinterpret_cast<float4*>(y);
  const int stride = gridDim.x * blockDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + stride < vectors; i += 2 * stride) {
    const float4 a = x4[i];
    const float4 b = x4[i + stride];
    y4[i] = gelu_cdf4(a);
    y4[i + stride] = gelu_cdf4(b);
  }
  if (i < vectors) y4[i] = gelu_cdf4(x4[i]);
  for (int t = vectors * 4 + blockIdx.x * blockDim.x + threadIdx.x; t < n; t += stride) {
    y[t] = gelu_cdf(x[t]);
  }
}

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  const int threads = 256;
  int blocks = (n / 8 + threads - 1) / threads;
  if (blocks > 132 * 16) blocks = 132 * 16;
  if (blocks < 1) blocks = 1;
  gelu_normcdf_kernel<<<blocks, threads, 0, stream>>>(x, y, n);
}
