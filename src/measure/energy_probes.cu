// The calibration kernels of `kopt calibrate --energy` (measure/energy_calibration.h):
// each probe exercises one or two terms of the energy model
// (hw/energy_coefficients.h) as purely as a kernel can, so the fit can tell
// the terms apart. One probe is compiled per build: calibration prepends
// `#define KOPT_ENERGY_PROBE <n>` (the numbers below) and measures the build
// as the reference of a task with the signature
//   energy_probe(const float* x, float* y, int n, int iterations, cudaStream_t)
// (x: n floats, y: n floats). Every probe writes y so nothing is dead code;
// the values are meaningless.
//
// Sizes are set by the calibration (n, iterations) so that one launch takes
// about 0.3-3 ms on an H200.

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#ifndef KOPT_ENERGY_PROBE
#define KOPT_ENERGY_PROBE 1
#endif

namespace {

constexpr int kThreads = 256;

int BlocksFor(long long threads) { return static_cast<int>((threads + kThreads - 1) / kThreads); }

// 1: idle_spin: SMs resident but sleeping (the static term: time with almost no activity).
__global__ void IdleSpin(float* y, int n, int iterations) {
  for (int i = 0; i < iterations; ++i) __nanosleep(1000);
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index < n) y[index] = 0.0f;
}

// 2: fp32_fma: eight independent FFMA chains per thread (the FMA pipe).
__global__ void Fp32Fma(const float* x, float* y, int n, int iterations) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= n) return;
  float seed = x[index];
  float a[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) a[k] = seed + k;
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < 8; ++k) a[k] = fmaf(a[k], 0.9999f, 0.0001f);
  }
  float sum = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) sum += a[k];
  y[index] = sum;
}

// 3: fp64_fma: four independent DFMA chains per thread (the FP64 pipe).
__global__ void Fp64Fma(const float* x, float* y, int n, int iterations) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= n) return;
  double seed = x[index];
  double a[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) a[k] = seed + k;
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < 4; ++k) a[k] = fma(a[k], 0.9999, 0.0001);
  }
  y[index] = static_cast<float>(a[0] + a[1] + a[2] + a[3]);
}

// 4: int_alu: xor/add/shift chains (the ALU pipe: LOP3, IADD3, SHF).
__global__ void IntAlu(const float* x, float* y, int n, int iterations) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= n) return;
  uint32_t seed = __float_as_uint(x[index]);
  uint32_t a[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) a[k] = seed + k;
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < 8; ++k) a[k] = (a[k] ^ (a[k] >> 3)) + 0x9e3779b9u;
  }
  uint32_t sum = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) sum ^= a[k];
  y[index] = __uint_as_float(sum & 0x3fffffffu);
}

// 5: int_mad: IMAD chains (integer multiply-add runs on the FMA pipe).
__global__ void IntMad(const float* x, float* y, int n, int iterations) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= n) return;
  uint32_t seed = __float_as_uint(x[index]);
  uint32_t a[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) a[k] = seed + k;
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < 8; ++k) a[k] = a[k] * 1664525u + 1013904223u;
  }
  uint32_t sum = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) sum += a[k];
  y[index] = __uint_as_float(sum & 0x3fffffffu);
}

// 6: mufu: hardware transcendentals (the XU pipe: MUFU.EX2, MUFU.SIN).
__global__ void Mufu(const float* x, float* y, int n, int iterations) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= n) return;
  float seed = x[index];
  float a[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) a[k] = seed + 0.1f * k;
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < 4; ++k) a[k] = __sinf(exp2f(a[k]) );
  }
  y[index] = a[0] + a[1] + a[2] + a[3];
}

// 7: dram_copy: a float4 copy far larger than L2 (DRAM read + write, L2, L1).
__global__ void DramCopy(const float4* x, float4* y, long long count) {
  long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) y[i] = x[i];
}

// 8: dram_read: a float4 read far larger than L2 with a tiny result (DRAM reads).
__global__ void DramRead(const float4* x, float* y, long long count) {
  long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  float sum = 0;
  for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
    float4 v = x[i];
    sum += v.x + v.y + v.z + v.w;
  }
  if (sum == 1234.5f) y[0] = sum;  // practically never: keeps the loads
}

// 9: l2_read: 8 MiB read again and again, bypassing L1 (__ldcg): L2 hits.
__global__ void L2Read(const float4* x, float* y, long long count, int iterations) {
  long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  float sum = 0;
  for (int pass = 0; pass < iterations; ++pass) {
    for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
      float4 v = __ldcg(&x[(i + pass) % count]);
      sum += v.x + v.y + v.z + v.w;
    }
  }
  if (sum == 1234.5f) y[0] = sum;
}

// 10: l1_read_vec4: each block reads its own 16 KiB again and again (__ldca, float4): L1 hits.
__global__ void L1ReadVector(const float4* x, float* y, int iterations) {
  const float4* slice = x + static_cast<long long>(blockIdx.x) * 1024;
  float sum = 0;
  for (int pass = 0; pass < iterations; ++pass) {
#pragma unroll 4
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) {
      float4 v = __ldca(&slice[(i + pass) & 1023]);
      sum += v.x + v.y + v.z + v.w;
    }
  }
  if (sum == 1234.5f) y[0] = sum;
}

// 11: l1_read_scalar: the same with 4-byte loads (four times the load instructions per byte).
__global__ void L1ReadScalar(const float* x, float* y, int iterations) {
  const float* slice = x + static_cast<long long>(blockIdx.x) * 4096;
  float sum = 0;
  for (int pass = 0; pass < iterations; ++pass) {
#pragma unroll 4
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) sum += __ldca(&slice[(i + pass) & 4095]);
  }
  if (sum == 1234.5f) y[0] = sum;
}

// 12: shared_read: conflict-free shared-memory loads.
__global__ void SharedRead(const float* x, float* y, int iterations) {
  __shared__ float tile[4096];
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) tile[i] = x[i];
  __syncthreads();
  float sum = 0;
  for (int pass = 0; pass < iterations; ++pass) {
#pragma unroll 8
    for (int k = 0; k < 16; ++k) sum += tile[(threadIdx.x + k * 256 + pass) & 4095];
  }
  if (sum == 1234.5f) y[0] = sum;
}

// 13: shared_conflict: 32-way bank conflicts (a wavefront per thread of a warp).
__global__ void SharedConflict(const float* x, float* y, int iterations) {
  __shared__ float tile[4096];
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) tile[i] = x[i];
  __syncthreads();
  float sum = 0;
  int lane = threadIdx.x & 31;
  for (int pass = 0; pass < iterations; ++pass) {
#pragma unroll 4
    for (int k = 0; k < 4; ++k) sum += tile[(lane * 32 + k + pass) & 4095];
  }
  if (sum == 1234.5f) y[0] = sum;
}

// 14: local_memory: a per-thread array indexed at run time lives in local memory (spill-like traffic).
__global__ void LocalMemory(const float* x, float* y, int n, int iterations) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= n) return;
  float buffer[64];
#pragma unroll
  for (int k = 0; k < 64; ++k) buffer[k] = x[index] + k;
  unsigned position = index;
  for (int i = 0; i < iterations; ++i) {
    position = position * 1664525u + 1013904223u;
    unsigned slot = (position >> 10) & 63;
    buffer[slot] = buffer[slot] * 0.5f + 1.0f;
  }
  y[index] = buffer[index & 63];
}

// 15-18: tensor cores through mma.sync from registers (no memory traffic in the loop).
__global__ void TensorBf16(float* y, int iterations) {
  uint32_t a[4] = {0x3f803f80u, 0x3f803f80u, 0x3f803f80u, 0x3f803f80u}, b[2] = {0x3c003c00u, 0x3c003c00u};
  float c[4] = {0, 0, 0, 0};
  for (int i = 0; i < iterations; ++i) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
  if (c[0] == 1234.5f) y[0] = c[0] + c[1] + c[2] + c[3];
}

__global__ void TensorTf32(float* y, int iterations) {
  uint32_t a[4] = {0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u}, b[2] = {0x3a800000u, 0x3a800000u};
  float c[4] = {0, 0, 0, 0};
  for (int i = 0; i < iterations; ++i) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
  if (c[0] == 1234.5f) y[0] = c[0] + c[1] + c[2] + c[3];
}

__global__ void TensorInt8(float* y, int iterations) {
  uint32_t a[4] = {0x01010101u, 0x01010101u, 0x01010101u, 0x01010101u}, b[2] = {0x01010101u, 0x01010101u};
  int c[4] = {0, 0, 0, 0};
  for (int i = 0; i < iterations; ++i) {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
  if (c[0] == 12345) y[0] = static_cast<float>(c[0] + c[1] + c[2] + c[3]);
}

__global__ void TensorFp64(float* y, int iterations) {
  double a = 1.0, b = 0.001, c[2] = {0, 0};
  for (int i = 0; i < iterations; ++i) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(c[0]), "+d"(c[1])
                 : "d"(a), "d"(b));
  }
  if (c[0] == 1234.5) y[0] = static_cast<float>(c[0] + c[1]);
}

}  // namespace

extern "C" void energy_probe(const float* x, float* y, int n, int iterations, cudaStream_t stream) {
  int sm_count = 132;
  int device = 0;
  if (cudaGetDevice(&device) == cudaSuccess)
    cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  const int resident = sm_count * 8;  // blocks of 256 threads: 8 per SM fill an SM's 2048 threads
#if KOPT_ENERGY_PROBE == 1
  (void)x;
  IdleSpin<<<resident, kThreads, 0, stream>>>(y, n, iterations);
#elif KOPT_ENERGY_PROBE == 2
  Fp32Fma<<<BlocksFor(n), kThreads, 0, stream>>>(x, y, n, iterations);
#elif KOPT_ENERGY_PROBE == 3
  Fp64Fma<<<BlocksFor(n), kThreads, 0, stream>>>(x, y, n, iterations);
#elif KOPT_ENERGY_PROBE == 4
  IntAlu<<<BlocksFor(n), kThreads, 0, stream>>>(x, y, n, iterations);
#elif KOPT_ENERGY_PROBE == 5
  IntMad<<<BlocksFor(n), kThreads, 0, stream>>>(x, y, n, iterations);
#elif KOPT_ENERGY_PROBE == 6
  Mufu<<<BlocksFor(n), kThreads, 0, stream>>>(x, y, n, iterations);
#elif KOPT_ENERGY_PROBE == 7
  (void)iterations;
  DramCopy<<<resident, kThreads, 0, stream>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y),
                                              n / 4);
#elif KOPT_ENERGY_PROBE == 8
  (void)iterations;
  DramRead<<<resident, kThreads, 0, stream>>>(reinterpret_cast<const float4*>(x), y, n / 4);
#elif KOPT_ENERGY_PROBE == 9
  // 8 MiB of x: 524288 float4.
  L2Read<<<resident, kThreads, 0, stream>>>(reinterpret_cast<const float4*>(x), y, 524288, iterations);
#elif KOPT_ENERGY_PROBE == 10
  L1ReadVector<<<n / 4096, kThreads, 0, stream>>>(reinterpret_cast<const float4*>(x), y, iterations);
#elif KOPT_ENERGY_PROBE == 11
  L1ReadScalar<<<n / 4096, kThreads, 0, stream>>>(x, y, iterations);
#elif KOPT_ENERGY_PROBE == 12
  SharedRead<<<resident, kThreads, 0, stream>>>(x, y, iterations);
#elif KOPT_ENERGY_PROBE == 13
  SharedConflict<<<resident, kThreads, 0, stream>>>(x, y, iterations);
#elif KOPT_ENERGY_PROBE == 14
  LocalMemory<<<BlocksFor(n), kThreads, 0, stream>>>(x, y, n, iterations);
#elif KOPT_ENERGY_PROBE == 15
  (void)x;
  (void)n;
  TensorBf16<<<resident, kThreads, 0, stream>>>(y, iterations);
#elif KOPT_ENERGY_PROBE == 16
  (void)x;
  (void)n;
  TensorTf32<<<resident, kThreads, 0, stream>>>(y, iterations);
#elif KOPT_ENERGY_PROBE == 17
  (void)x;
  (void)n;
  TensorInt8<<<resident, kThreads, 0, stream>>>(y, iterations);
#elif KOPT_ENERGY_PROBE == 18
  (void)x;
  (void)n;
  TensorFp64<<<resident, kThreads, 0, stream>>>(y, iterations);
#else
#error "unknown KOPT_ENERGY_PROBE"
#endif
}
