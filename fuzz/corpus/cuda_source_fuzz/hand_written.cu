#define TILE 32
#define PAD (TILE + 1)
// for (;;) { "x" }
__global__ void __launch_bounds__(128) k(float* out, const double* in, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int i = threadIdx.x % 32;
  do { out[i * n] = in[i] * 0.5; } while (i < n);
  if (i & 1) atomicAdd(out, 1.0f);
  const char* s = "unterminated \" ( [ {";
  tile[i][(((((((1)))))))] = 1 / n;
  for (int j = 0; j < n; ++j) { __syncthreads(); out[j] += tile[j][i] * tile[i][j]; }
