// calibrate_bench.cu: the microbenchmarks behind `kopt calibrate` (built with nvcc and run on the GPU;
// kopt embeds this file and parses what it prints). Like the Empirical Roofline Toolkit it measures what
// the GPU achieves, not what the datasheet promises, at a range of sizes and occupancies:
//   copy   float4 grid-stride copy, bytes moved = 2 x buffer size, 1 MiB .. 1 GiB buffers,
//          grids of 1/2/4/8 blocks of 256 threads per SM, with L2 cold
//          (flushed before each launch, as ncu's default --cache-control all does) and, at 4 blocks/SM
//          up to 4x the L2 size, hot (the previous launch's data left in L2);
//   read   float4 grid-stride sum (one store per thread), 4 blocks/SM, cold;
//   fma    chains of 8 independent FFMA per thread, 2 FLOP each, total 2^26 .. 2^40 FLOP, all grids;
//   memcpy cudaMemcpyDeviceToDevice of 1 MiB .. 1 GiB, cold (and hot up to 4x the L2 size).
// Each point is the median and the minimum of 9 launches (5 from 256 MiB up; 3 with --quick) timed with CUDA
// events around the launch alone (event, launch, event on one stream, the stream otherwise idle).
//
// Output (stdout), line-oriented CSV, version 1:
//   kopt-calibrate-bench,1
//   device,<name>,<sm count>,<cc major>.<cc minor>,<sm clock kHz>,<memory clock kHz>,<bus width bits>,<l2
//   bytes> point,<op>,<work>,<work unit>,<blocks per SM>,<threads per block>,<cold|hot>,<median ns>,<min ns>
// where op is copy|read|fma|memcpy, work the bytes moved (copy, read, memcpy: bytes read + written) or
// FLOP (fma), and blocks per SM 0 for memcpy. Errors go to stderr with a non-zero exit status.
// Usage: calibrate_bench [--quick] [--ncu]
//   --quick  fewer points (cold copy and fma at 4 blocks/SM only, 3 repetitions)
//   --ncu    one launch of each copy size at 4 blocks/SM, no timing and nothing printed, to be
//            profiled under ncu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                \
  do {                                                                             \
    cudaError_t e_ = (call);                                                       \
    if (e_ != cudaSuccess) {                                                       \
      fprintf(stderr, "calibrate_bench: %s: %s\n", #call, cudaGetErrorString(e_)); \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

__global__ void calibrate_copy(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i];
}

__global__ void calibrate_read(const float4* __restrict__ in, float* __restrict__ out, size_t n4) {
  float acc = 0.0f;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
       i += (size_t)gridDim.x * blockDim.x) {
    float4 v = in[i];
    acc += (v.x + v.y) + (v.z + v.w);
  }
  out[blockIdx.x * (size_t)blockDim.x + threadIdx.x] = acc;
}

__global__ void calibrate_fma(float* __restrict__ out, long long iterations, float a, float b) {
  float x[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) x[k] = threadIdx.x * 1e-3f + k;
  for (long long i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = fmaf(x[k], a, b);
  }
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 8; ++k) s += x[k];
  out[blockIdx.x * (size_t)blockDim.x + threadIdx.x] = s;
}

__global__ void calibrate_flush(float4* __restrict__ p, size_t n4, float v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
    p[i] = make_float4(v, v, v, v);
}

namespace {

struct Device {
  int sms = 0;
  size_t l2 = 0;
};

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
  }
  template <class F>
  double Ns(F launch) {
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms * 1e6;
  }
};

// Median and minimum of `reps` timings; `before` runs untimed before each (the L2 flush, or nothing).
template <class F, class G>
void Point(const char* op, double work, const char* unit, int bps, int threads, bool cold, int reps, F launch,
           G before) {
  static Timer timer;
  std::vector<double> t;
  for (int r = 0; r < reps + 1; ++r) {  // one untimed warm-up
    before();
    double ns = timer.Ns(launch);
    if (r > 0) t.push_back(ns);
  }
  CHECK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  printf("point,%s,%.0f,%s,%d,%d,%s,%.0f,%.0f\n", op, work, unit, bps, threads, cold ? "cold" : "hot",
         t[t.size() / 2], t[0]);
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, ncu = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick")) {
      quick = true;
    } else if (!strcmp(argv[i], "--ncu")) {
      ncu = true;
    } else {
      fprintf(stderr, "calibrate_bench: unknown argument %s (expected --quick or --ncu)\n", argv[i]);
      return 2;
    }
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    fprintf(stderr, "calibrate_bench: no CUDA device\n");
    return 1;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int sm_clock = 0, mem_clock = 0, bus = 0;
  cudaDeviceGetAttribute(&sm_clock, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&mem_clock, cudaDevAttrMemoryClockRate, 0);
  cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, 0);
  Device dev{prop.multiProcessorCount, (size_t)prop.l2CacheSize};
  if (!ncu) {  // under ncu (--ncu) stdout is ncu's CSV: nothing of ours goes there
    printf("kopt-calibrate-bench,1\n");
    printf("device,%s,%d,%d.%d,%d,%d,%d,%zu\n", prop.name, dev.sms, prop.major, prop.minor, sm_clock,
           mem_clock, bus, dev.l2);
  }

  const size_t max_bytes = size_t(1) << 30;
  const size_t flush_bytes = std::max<size_t>(2 * dev.l2, size_t(64) << 20);  // evicts what L2 held
  float4 *in = nullptr, *out = nullptr, *flush = nullptr;
  float* sink = nullptr;
  CHECK(cudaMalloc(&in, max_bytes));
  CHECK(cudaMalloc(&out, max_bytes));
  CHECK(cudaMalloc(&flush, flush_bytes));
  CHECK(cudaMalloc(&sink, size_t(dev.sms) * 8 * 1024 * sizeof(float)));
  CHECK(cudaMemset(in, 0, max_bytes));
  CHECK(cudaMemset(out, 0, max_bytes));
  auto flush_l2 = [&] { calibrate_flush<<<dev.sms * 4, 512>>>(flush, flush_bytes / 16, 1.0f); };
  auto nothing = [] {};
  const int threads = 256;
  std::vector<size_t> sizes;
  for (size_t s = size_t(1) << 20; s <= max_bytes; s *= 2) sizes.push_back(s);

  if (ncu) {
    for (size_t s : sizes) calibrate_copy<<<dev.sms * 4, threads>>>(in, out, s / 16);
    CHECK(cudaDeviceSynchronize());
    return 0;
  }

  // Points: cold copies at every grid; hot copies only where the data fits in L2 a few times over (beyond
  // that hot and cold are the same); cold reads at 4 blocks/SM (the default occupancy of a streaming
  // kernel). Large transfers vary little between launches: fewer repetitions for them. The whole run
  // moves about 0.3 TB and takes a few seconds, most of it context creation and the FMA points.
  const int reps = quick ? 3 : 9, big_reps = quick ? 3 : 5;
  const size_t big = size_t(256) << 20;
  const size_t hot_limit = 4 * dev.l2, other_grid_limit = max_bytes;
  std::vector<int> grids = quick ? std::vector<int>{4} : std::vector<int>{1, 2, 4, 8};
  for (int bps : grids) {
    for (size_t s : sizes) {
      if (bps != 4 && s > other_grid_limit) continue;
      size_t n4 = s / 16;
      auto copy = [&] { calibrate_copy<<<dev.sms * bps, threads>>>(in, out, n4); };
      const int r = s >= big ? big_reps : reps;
      Point("copy", 2.0 * s, "byte", bps, threads, true, r, copy, flush_l2);
      if (quick || bps != 4) continue;
      if (s <= hot_limit) Point("copy", 2.0 * s, "byte", bps, threads, false, r, copy, nothing);
      auto read = [&] { calibrate_read<<<dev.sms * bps, threads>>>(in, sink, n4); };
      Point("read", 1.0 * s, "byte", bps, threads, true, r, read, flush_l2);
    }
  }
  for (int bps : grids) {
    const double threads_total = double(dev.sms) * bps * threads;
    for (int e = 26; e <= 40; e += quick ? 2 : 1) {
      long long iterations = std::max(1LL, (long long)((double)(1LL << e) / (threads_total * 16.0)));
      double flop = threads_total * 16.0 * iterations;
      auto fma = [&] { calibrate_fma<<<dev.sms * bps, threads>>>(sink, iterations, 0.999f, 0.001f); };
      Point("fma", flop, "flop", bps, threads, false, reps, fma, nothing);
    }
  }
  for (size_t s : sizes) {
    auto memcpy_d2d = [&] { CHECK(cudaMemcpyAsync(out, in, s, cudaMemcpyDeviceToDevice)); };
    const int r = s >= big ? big_reps : reps;
    Point("memcpy", 2.0 * s, "byte", 0, 0, true, r, memcpy_d2d, flush_l2);
    if (!quick && s <= hot_limit) Point("memcpy", 2.0 * s, "byte", 0, 0, false, r, memcpy_d2d, nothing);
  }
  CHECK(cudaDeviceSynchronize());
  cudaFree(in);
  cudaFree(out);
  cudaFree(flush);
  cudaFree(sink);
  return 0;
}
