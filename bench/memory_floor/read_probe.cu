// Probe, not a candidate (bench/memory_floor): the pure-read microbenchmark
// of reduce_sum's input. BLOCKS_PER_SM * 132 blocks of 512 threads read
// all n floats once (16-byte loads, UNROLL per thread in flight, grid-stride
// tiles, HINT=1: an L2 evict_first policy), combine them with integer xor
// (no floating-point work, no reduction across threads, no second phase)
// and store only when the xor is an impossible value: the time is that of
// the reads alone, the achievable read bandwidth at this size. Its output is
// left untouched (its CHECK fails; only its time matters).
#ifndef BLOCKS_PER_SM
#define BLOCKS_PER_SM 2
#endif
#ifndef UNROLL
#define UNROLL 8
#endif
#ifndef HINT
#define HINT 0
#endif
constexpr int kThreads = 512;

__global__ void __launch_bounds__(kThreads) read_probe_kernel(const int4* x, long long vectors, float* y) {
#if HINT == 1
  unsigned long long policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
#endif
  int acc = 0;
  const long long tile = static_cast<long long>(kThreads) * UNROLL;
  for (long long base = blockIdx.x * tile + threadIdx.x; base + (UNROLL - 1) * kThreads < vectors;
       base += static_cast<long long>(gridDim.x) * tile) {
    int4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
#if HINT == 1
      asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.s32 {%0,%1,%2,%3}, [%4], %5;"
                   : "=r"(v[u].x), "=r"(v[u].y), "=r"(v[u].z), "=r"(v[u].w)
                   : "l"(x + base + u * kThreads), "l"(policy));
#else
      v[u] = x[base + u * kThreads];
#endif
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  if (acc == 0x7fffffff) y[0] = static_cast<float>(acc);
}

extern "C" void reduce_sum(const float* x, float* y, int n, cudaStream_t stream) {
  read_probe_kernel<<<132 * BLOCKS_PER_SM, kThreads, 0, stream>>>(reinterpret_cast<const int4*>(x), n / 4, y);
}
