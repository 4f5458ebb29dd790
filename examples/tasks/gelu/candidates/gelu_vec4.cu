// GELU candidate: float4 loads/stores, a grid-stride loop over a grid of a
// few waves, the same erf formula as the reference (bitwise equal results).
// Scalar tail for n % 4; correct for any n >= 1.
__device__ __forceinline__ float gelu_erf(float v) {
  return 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
}

__global__ void gelu_vec4_kernel(const float* x, float* y, int n) {
  const int vectors = n / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  float4* y4 = reinterpret_cast<float4*>(y);
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < vectors; i += stride) {
    const float4 v = x4[i];
    y4[i] = make_float4(gelu_erf(v.x), gelu_erf(v.y), gelu_erf(v.z), gelu_erf(v.w));
  }
  for (int i = vectors * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    y[i] = gelu_erf(x[i]);
  }
}

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  const int threads = 256;
  int blocks = (n / 4 + threads - 1) / threads;
  if (blocks > 132 * 16) blocks = 132 * 16;
  if (blocks < 1) blocks = 1;
  gelu_vec4_kernel<<<blocks, threads, 0, stream>>>(x, y, n);
}
