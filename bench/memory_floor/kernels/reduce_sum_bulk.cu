// MEASURED SLOWER (H200, bench/results/builtin_tuning/memory_floor: 74.3-76.6 µs against
// reduce_sum_stream.cu's 72.6 µs): kept here, out of examples/tasks/reduce_sum/tunable/, so the
// builtin generator (the first tunable file in name order) tunes the faster space.
//
// Tunable sum in ONE launch through the bulk copy engine (docs/tuning.md):
// a persistent grid of BLOCKS_PER_SM blocks per SM (132 SMs on the H200),
// each streaming one CONTIGUOUS run of STAGE_KB-KiB chunks of x into a ring
// of STAGES shared-memory buffers with cp.async.bulk (Hopper's TMA, 1-D,
// completing on one mbarrier per buffer: expect_tx of the chunk's bytes).
// One thread issues the copies; every thread waits on the buffer's barrier,
// adds its float4 of the chunk, and after a block barrier the buffer is
// refilled with the chunk STAGES ahead (so STAGES * STAGE_KB KiB are in
// flight per block). HINT=1 gives the copies an L2 evict_first cache policy
// (lines already in L2, e.g. another kernel's dirty lines, stay there
// instead of being written back during this kernel). A warp-shuffle and
// block reduction leaves one f32 partial per block; the last block to finish
// (a fenced atomic ticket) sums the partials in f64 in a fixed order and
// re-arms the ticket: deterministic, no second launch. The bytes after the
// last whole chunk (and all of x when it is not 16-byte aligned) are summed
// grid-stride with ordinary loads. Correct for any n >= 1. Compiles as is
// with the defaults below.
//
// kopt:tune BLOCK_SIZE values=128,256,512 role=block_size
// kopt:tune STAGE_KB values=4,8,16,32 role=tile_x
// kopt:tune STAGES values=2,3,4,6,8 role=stages
// kopt:tune BLOCKS_PER_SM values=1,2,3,4 role=split_k
// kopt:tune HINT values=0,1 role=load_caching
// kopt:restrict STAGES * STAGE_KB * BLOCKS_PER_SM <= 208
// kopt:restrict STAGES * STAGE_KB * BLOCKS_PER_SM >= 32
// kopt:restrict BLOCK_SIZE * BLOCKS_PER_SM <= 2048
// kopt:restrict STAGE_KB * 1024 / 16 >= BLOCK_SIZE
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef STAGE_KB
#define STAGE_KB 16
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef BLOCKS_PER_SM
#define BLOCKS_PER_SM 2
#endif
#ifndef HINT
#define HINT 1
#endif

namespace {
constexpr int kSms = 132;
constexpr int kMaxBlocks = kSms * BLOCKS_PER_SM;
constexpr int kStageBytes = STAGE_KB * 1024;
constexpr int kStageVectors = kStageBytes / 16;  // float4 per chunk
constexpr int kPerThread = kStageVectors / BLOCK_SIZE;
static_assert(kStageVectors % BLOCK_SIZE == 0, "each thread adds whole float4s of a chunk");
constexpr int kSharedBytes = STAGES * kStageBytes;

__device__ __forceinline__ float WarpSum(float value) {
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

__device__ __forceinline__ unsigned SharedAddress(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void BarrierInit(unsigned long long* barrier) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(SharedAddress(barrier)));
}

// Arms the barrier for kStageBytes and starts the copy of one chunk.
__device__ __forceinline__ void IssueChunk(void* dst, const void* src, unsigned long long* barrier,
                                           unsigned long long policy) {
  const unsigned bar = SharedAddress(barrier);
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(kStageBytes) : "memory");
#if HINT == 1
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;" ::"r"(
          SharedAddress(dst)),
      "l"(src), "r"(kStageBytes), "r"(bar), "l"(policy)
      : "memory");
#else
  (void)policy;
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   SharedAddress(dst)),
               "l"(src), "r"(kStageBytes), "r"(bar)
               : "memory");
#endif
}

__device__ __forceinline__ void BarrierWait(unsigned long long* barrier, unsigned phase) {
  const unsigned bar = SharedAddress(barrier);
  unsigned done = 0;
  while (!done) {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(bar), "r"(phase)
        : "memory");
  }
}
}  // namespace

__device__ float g_bulk_partials[kMaxBlocks];
__device__ unsigned int g_bulk_ticket = 0;

__global__ void __launch_bounds__(BLOCK_SIZE) reduce_sum_bulk_kernel(const float* x, float* y, int n) {
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ __align__(8) unsigned long long full[STAGES];
  __shared__ float warp_sums[BLOCK_SIZE / 32];
  __shared__ double final_sums[BLOCK_SIZE / 32];
  __shared__ bool last_block;
  unsigned long long policy = 0;
#if HINT == 1
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
#endif
  const bool aligned = (reinterpret_cast<unsigned long long>(x) & 15u) == 0;
  const long long chunks = aligned ? static_cast<long long>(n) * 4 / kStageBytes : 0;
  const long long first = chunks * blockIdx.x / gridDim.x;
  const long long count = chunks * (blockIdx.x + 1) / gridDim.x - first;
  const unsigned char* source = reinterpret_cast<const unsigned char*>(x) + first * kStageBytes;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) BarrierInit(&full[s]);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES && s < count; ++s)
      IssueChunk(ring + s * kStageBytes, source + static_cast<long long>(s) * kStageBytes, &full[s], policy);
  }
  float a0 = 0.0f, a1 = 0.0f;
  for (long long k = 0; k < count; ++k) {
    const int s = static_cast<int>(k % STAGES);
    BarrierWait(&full[s], static_cast<unsigned>((k / STAGES) & 1));
    const float4* chunk = reinterpret_cast<const float4*>(ring + s * kStageBytes);
#pragma unroll
    for (int q = 0; q < kPerThread; ++q) {
      const float4 v = chunk[q * BLOCK_SIZE + threadIdx.x];
      a0 += v.x + v.y;
      a1 += v.z + v.w;
    }
    __syncthreads();  // every thread has read buffer s: it may be refilled
    if (threadIdx.x == 0 && k + STAGES < count)
      IssueChunk(ring + s * kStageBytes, source + (k + STAGES) * kStageBytes, &full[s], policy);
  }
  // the rest: float4 after the last whole chunk, then single floats
  const long long stride = static_cast<long long>(gridDim.x) * BLOCK_SIZE;
  const long long thread = static_cast<long long>(blockIdx.x) * BLOCK_SIZE + threadIdx.x;
  const long long vectors = aligned ? n / 4 : 0;
  const auto* xv = reinterpret_cast<const float4*>(x);
  for (long long i = chunks * kStageVectors + thread; i < vectors; i += stride) {
    const float4 v = xv[i];
    a0 += v.x + v.y;
    a1 += v.z + v.w;
  }
  for (long long t = vectors * 4 + thread; t < n; t += stride) a0 += x[t];
  float sum = WarpSum(a0 + a1);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = WarpSum(threadIdx.x < BLOCK_SIZE / 32 ? warp_sums[threadIdx.x] : 0.0f);
    if (threadIdx.x == 0) {
      g_bulk_partials[blockIdx.x] = sum;
      __threadfence();
      last_block = atomicAdd(&g_bulk_ticket, 1u) == gridDim.x - 1;
    }
  }
  __syncthreads();
  if (!last_block) return;
  __threadfence();
  // The last block: partial t, t + BLOCK_SIZE, ... per thread, then the
  // warps' sums in warp order: the same order whichever block is last.
  double total = 0.0;
  for (int p = threadIdx.x; p < static_cast<int>(gridDim.x); p += BLOCK_SIZE)
    total += static_cast<double>(*static_cast<volatile float*>(&g_bulk_partials[p]));
  for (int offset = 16; offset > 0; offset /= 2) total += __shfl_xor_sync(0xffffffffu, total, offset);
  if (threadIdx.x % 32 == 0) final_sums[threadIdx.x / 32] = total;
  __syncthreads();
  if (threadIdx.x == 0) {
    double grand = 0.0;
    for (int w = 0; w < BLOCK_SIZE / 32; ++w) grand += final_sums[w];
    y[0] = static_cast<float>(grand);
    g_bulk_ticket = 0;  // re-armed for the next launch (stream order)
  }
}

extern "C" void reduce_sum(const float* x, float* y, int n, cudaStream_t stream) {
  static bool configured = false;  // the dynamic shared-memory limit, raised once per process
  if (!configured) {
    cudaFuncSetAttribute(reduce_sum_bulk_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes);
    configured = true;
  }
  const long long chunks = static_cast<long long>(n) * 4 / kStageBytes;
  int blocks = static_cast<int>(chunks < kMaxBlocks ? chunks : kMaxBlocks);
  if (blocks < 1) blocks = 1;
  reduce_sum_bulk_kernel<<<blocks, BLOCK_SIZE, kSharedBytes, stream>>>(x, y, n);
}
