// Adversarial candidate (task gelu) -- expected: unwritten_output (or
// wrong_output) at a variant size.
// float4-only GELU that assumes n is a multiple of 4 (true for the visible
// n = 33554432): no scalar tail. At the task's variants (n = 1000003, n = 5)
// the last n % 4 elements are never written and keep the NaN poison.
__global__ void gelu_vec4_only_kernel(const float4* x, float4* y, int vectors) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < vectors) {
    const float4 v = x[i];
    float4 r;
    r.x = 0.5f * v.x * (1.0f + erff(v.x * 0.70710678118654752440f));
    r.y = 0.5f * v.y * (1.0f + erff(v.y * 0.70710678118654752440f));
    r.z = 0.5f * v.z * (1.0f + erff(v.z * 0.70710678118654752440f));
    r.w = 0.5f * v.w * (1.0f + erff(v.w * 0.70710678118654752440f));
    y[i] = r;
  }
}

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  const int vectors = n / 4;
  gelu_vec4_only_kernel<<<(vectors + 255) / 256 + 1, 256, 0, stream>>>(reinterpret_cast<const float4*>(x),
                                                                       reinterpret_cast<float4*>(y), vectors);
}
