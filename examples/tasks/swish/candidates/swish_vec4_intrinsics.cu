// Swish candidate: the same float4 grid-stride kernel as swish_vec4_ieee.cu
// with the fast paths: __expf (ex2.approx, within 2 + floor(|1.173 x|) ulp)
// and __fdividef (rcp.approx and a multiply, within 2 ulp), fewer
// instructions per element at the same DRAM-bound speed. The "intrinsics"
// side of the matched-speed A/B (issue 15); task.toml's tolerance admits it.
__device__ __forceinline__ float swish_one(float v) {
  return __fdividef(v, 1.0f + __expf(-v));
}

__global__ void swish_vec4_intrinsics_kernel(const float* x, float* y, int n) {
  const int vectors = n / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  float4* y4 = reinterpret_cast<float4*>(y);
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < vectors; i += stride) {
    const float4 v = x4[i];
    y4[i] = make_float4(swish_one(v.x), swish_one(v.y), swish_one(v.z), swish_one(v.w));
  }
  for (int i = vectors * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    y[i] = swish_one(x[i]);
  }
}

extern "C" void swish(const float* x, float* y, int n, cudaStream_t stream) {
  const int threads = 256;
  int blocks = (n / 4 + threads - 1) / threads;
  if (blocks > 132 * 16) blocks = 132 * 16;
  if (blocks < 1) blocks = 1;
  swish_vec4_intrinsics_kernel<<<blocks, threads, 0, stream>>>(x, y, n);
}
