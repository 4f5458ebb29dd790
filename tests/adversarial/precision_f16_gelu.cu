// Adversarial candidate (task gelu) -- expected: precision_loss (or
// wrong_output).
// Rounds each input to __half, evaluates erf on the rounded value, rounds
// erf to __half, does the remaining multiply-adds in f16 arithmetic and
// widens the result ("half precision is enough for an activation"). The
// relative error is ~1e-3: it fails the task's f32 tolerance (rtol 1e-5,
// atol 2e-6) and passes the f16 one (rtol 1e-2, atol 1e-3).
__global__ void gelu_half_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const __half v = __float2half(x[i]);
    const __half e = __float2half(erff(__half2float(v) * 0.70710678118654752440f));
    const __half one = __float2half(1.0f);
    const __half half_v = __hmul(__float2half(0.5f), v);
    y[i] = __half2float(__hmul(half_v, __hadd(one, e)));
  }
}

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  gelu_half_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
