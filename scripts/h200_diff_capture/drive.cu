// Capture driver for issue 14 (kopt diff and sweeps) and issue 13 (tuning
// spaces, bench/tuning_capture/run.sh): runs many compiled task candidates
// (docs/harness-protocol.md §2 .so files) in ONE process, so that one ncu
// process profiles them all.
//
//   drive PLAN [--time | --cold-time | --cold-time-clean]
//
// PLAN lines: "LABEL LIB.so SPEC LAUNCHES" (SPEC: the selfcheck spec format of
// examples/tasks/tools/selfcheck.cu: "seed S", "tensor DTYPE ROLE ELEMENTS KIND P1 P2",
// "scalar TYPE VALUE"; other lines ignored). Per line, in order: a NEW stream (so the
// rows of ncu's raw page can be grouped per item by their Stream column, in order of
// first appearance), inputs drawn from the seed (kept on the device while consecutive
// lines name the same SPEC), outputs set to 0xFF, LAUNCHES calls (each followed by a
// device sync). With --time: no profiling intent; 3 warm-up calls then the mean of 20
// calls by CUDA events, "TIME LABEL US" per line. With --cold-time: 3 warm-up calls,
// then 20 calls each after a 256 MiB L2 flush and timed alone by events; "TIME LABEL
// US" with their median, "SPREAD LABEL MIN_US MAX_US". --cold-time-clean: the same, but
// the flush READS a 256 MiB buffer (kopt bench and --cold-time flush with a memset, which
// leaves L2 full of dirty lines that the timed call then writes back as it evicts them;
// after a read the L2 holds clean lines only): the difference is that write-back's cost.
// A line "reference LIB SPEC RTOL ATOL" runs LIB once on SPEC's inputs and keeps its
// f32 outputs: every later item on the same SPEC is checked after its first call,
// "CHECK LABEL ok|fail WORST" (WORST: the largest |a - b| / (atol + rtol |b|); a NaN
// or an untouched 0xFF output fails).
// Prints "ITEM INDEX LABEL ok|error" per line. Exit 0 when every item ran.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using LaunchFunction = void (*)(void* const*, const void* const*, cudaStream_t);

struct Tensor {
  std::string dtype, role, kind;
  size_t elements = 0;
  double p1 = 0, p2 = 0;
  size_t Bytes() const { return elements * (dtype == "f32" || dtype == "i32" ? 4 : dtype == "f64" ? 8 : 2); }
};

struct Scalar {
  std::string type;
  double value = 0;
  unsigned char bytes[8] = {};
};

static void Fill(const Tensor& t, uint64_t seed, std::vector<unsigned char>& host) {
  host.assign(t.Bytes(), 0);
  const size_t chunk = 1 << 20;
  const size_t chunks = (t.elements + chunk - 1) / chunk;
  auto work = [&](size_t first, size_t step) {
    for (size_t c = first; c < chunks; c += step) {
      std::mt19937_64 engine(seed * 1000003u + c);
      std::normal_distribution<double> normal(t.p1, t.p2);
      std::uniform_real_distribution<double> uniform(t.p1, t.p2);
      std::student_t_distribution<double> student(t.p1 > 0 ? t.p1 : 3.0);
      for (size_t i = c * chunk; i < std::min(t.elements, (c + 1) * chunk); ++i) {
        double v = t.kind == "normal"    ? normal(engine)
                   : t.kind == "uniform" ? uniform(engine)
                                         : student(engine) * t.p2;
        if (t.dtype == "f32") {
          float f = static_cast<float>(v);
          std::memcpy(&host[i * 4], &f, 4);
        } else if (t.dtype == "bf16") {
          __nv_bfloat16 b = __float2bfloat16(static_cast<float>(v));
          std::memcpy(&host[i * 2], &b, 2);
        } else if (t.dtype == "f16") {
          __half h = __float2half(static_cast<float>(v));
          std::memcpy(&host[i * 2], &h, 2);
        }
      }
    }
  };
  std::vector<std::thread> threads;
  const unsigned count = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  for (unsigned k = 0; k < count; ++k) threads.emplace_back(work, k, count);
  for (auto& thread : threads) thread.join();
}

struct Inputs {
  std::string spec_path;
  std::vector<Tensor> tensors;
  std::vector<Scalar> scalars;
  std::vector<void*> pointers;
  std::vector<std::vector<float>> expected;  // per tensor: the reference's f32 output (empty: none)
  double rtol = 0, atol = 0;
};

static void FreeInputs(Inputs& inputs) {
  for (void* p : inputs.pointers) cudaFree(p);
  inputs = Inputs{};
}

// Loads SPEC onto the device unless it is the one already there.
static bool PrepareInputs(const std::string& spec_path, Inputs& inputs) {
  if (inputs.spec_path == spec_path) return true;
  FreeInputs(inputs);
  std::ifstream spec(spec_path);
  if (!spec) return false;
  uint64_t seed = 1;
  for (std::string line; std::getline(spec, line);) {
    std::istringstream in(line);
    std::string key;
    in >> key;
    if (key == "seed") in >> seed;
    if (key == "tensor") {
      Tensor t;
      in >> t.dtype >> t.role >> t.elements >> t.kind >> t.p1 >> t.p2;
      inputs.tensors.push_back(t);
    }
    if (key == "scalar") {
      Scalar s;
      in >> s.type >> s.value;
      if (s.type == "i32") *reinterpret_cast<int*>(s.bytes) = static_cast<int>(s.value);
      if (s.type == "i64") *reinterpret_cast<int64_t*>(s.bytes) = static_cast<int64_t>(s.value);
      if (s.type == "f32") *reinterpret_cast<float*>(s.bytes) = static_cast<float>(s.value);
      if (s.type == "f64") *reinterpret_cast<double*>(s.bytes) = s.value;
      inputs.scalars.push_back(s);
    }
  }
  std::vector<unsigned char> host;
  for (size_t k = 0; k < inputs.tensors.size(); ++k) {
    void* p = nullptr;
    if (cudaMalloc(&p, inputs.tensors[k].Bytes()) != cudaSuccess) return false;
    if (inputs.tensors[k].role != "output") {
      Fill(inputs.tensors[k], seed * 31 + k, host);
      cudaMemcpy(p, host.data(), host.size(), cudaMemcpyHostToDevice);
    }
    inputs.pointers.push_back(p);
  }
  inputs.expected.assign(inputs.tensors.size(), {});
  inputs.spec_path = spec_path;
  return cudaDeviceSynchronize() == cudaSuccess;
}

static void ResetOutputs(const Inputs& inputs) {
  for (size_t k = 0; k < inputs.tensors.size(); ++k)
    if (inputs.tensors[k].role == "output") cudaMemset(inputs.pointers[k], 0xFF, inputs.tensors[k].Bytes());
  cudaDeviceSynchronize();
}

static std::vector<float> OutputOf(const Inputs& inputs, size_t k) {
  std::vector<float> host(inputs.tensors[k].elements);
  cudaMemcpy(host.data(), inputs.pointers[k], host.size() * 4, cudaMemcpyDeviceToHost);
  return host;
}

// The worst |a - b| / (atol + rtol |b|) over the f32 outputs (infinity for a NaN).
static double WorstError(const Inputs& inputs) {
  double worst = 0;
  for (size_t k = 0; k < inputs.tensors.size(); ++k) {
    if (inputs.expected[k].empty()) continue;
    std::vector<float> got = OutputOf(inputs, k);
    for (size_t i = 0; i < got.size(); ++i) {
      const double b = inputs.expected[k][i];
      const double allowed = inputs.atol + inputs.rtol * std::fabs(b);
      if (std::isnan(got[i])) return INFINITY;
      // An exact tolerance (transpose: rtol = atol = 0) allows only equal values.
      const double error = allowed > 0 ? std::fabs(got[i] - b) / allowed : (got[i] == b ? 0.0 : INFINITY);
      if (std::isnan(error)) return INFINITY;
      worst = std::max(worst, error);
    }
  }
  return worst;
}

static LaunchFunction Open(const std::string& lib, const std::string& label, int index) {
  void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::printf("ITEM %d %s error dlopen %s\n", index, label.c_str(), dlerror());
    return nullptr;
  }
  return reinterpret_cast<LaunchFunction>(dlsym(handle, "kopt_launch"));
}

enum class Timing { kNone, kWarm, kCold, kColdClean };

// Reads `count` int4 and stores nothing unless their xor is an impossible value: an L2
// flush that leaves only clean lines behind.
__global__ void ReadFlushKernel(const int4* p, size_t count, int* sink) {
  int acc = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const int4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7fffffff && sink != nullptr) *sink = acc;
}

static void TimeCold(const std::string& label, const std::function<void()>& call, cudaStream_t stream,
                     bool clean) {
  static void* flush = nullptr;
  const size_t flush_bytes = 256u << 20;
  if (flush == nullptr) {
    cudaMalloc(&flush, flush_bytes);
    cudaMemset(flush, 1, flush_bytes);
    cudaDeviceSynchronize();
  }
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> times;
  for (int i = 0; i < 20; ++i) {
    if (clean) {
      // twice: the first pass writes back whatever the previous call left dirty
      for (int pass = 0; pass < 2; ++pass)
        ReadFlushKernel<<<132 * 8, 256, 0, stream>>>(static_cast<const int4*>(flush), flush_bytes / 16,
                                                     nullptr);
    } else {
      cudaMemsetAsync(flush, i, flush_bytes, stream);
    }
    cudaEventRecord(start, stream);
    call();
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    times.push_back(ms * 1000.0f);
  }
  std::sort(times.begin(), times.end());
  std::printf("TIME %s %.3f\nSPREAD %s %.3f %.3f\n", label.c_str(), (times[9] + times[10]) / 2, label.c_str(),
              times.front(), times.back());
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

static bool RunItem(int index, const std::string& label, const std::string& lib, Inputs& inputs, int launches,
                    Timing timing) {
  LaunchFunction launch = Open(lib, label, index);
  if (launch == nullptr) return false;
  cudaStream_t stream;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) return false;
  std::vector<const void*> scalar_pointers;
  for (auto& s : inputs.scalars) scalar_pointers.push_back(s.bytes);
  ResetOutputs(inputs);
  bool ok = true;
  auto call = [&] { launch(inputs.pointers.data(), scalar_pointers.data(), stream); };
  bool checks =
      std::any_of(inputs.expected.begin(), inputs.expected.end(), [](auto& e) { return !e.empty(); });
  if (checks) {
    call();
    ok = cudaDeviceSynchronize() == cudaSuccess;
    double worst = ok ? WorstError(inputs) : INFINITY;
    std::printf("CHECK %s %s %.3g\n", label.c_str(), ok && worst <= 1.0 ? "ok" : "fail", worst);
  }
  if (timing == Timing::kWarm) {
    for (int i = 0; i < 3; ++i) call();
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start, stream);
    const int calls = 20;
    for (int i = 0; i < calls; ++i) call();
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    ok = cudaDeviceSynchronize() == cudaSuccess;
    std::printf("TIME %s %.3f\n", label.c_str(), ms * 1000.0 / calls);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  } else if (timing == Timing::kCold || timing == Timing::kColdClean) {
    for (int i = 0; i < 3; ++i) call();
    TimeCold(label, call, stream, timing == Timing::kColdClean);
    ok = cudaDeviceSynchronize() == cudaSuccess;
  } else {
    for (int i = 0; i < launches && ok; ++i) {
      call();
      ok = cudaGetLastError() == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
    }
  }
  cudaStreamDestroy(stream);
  std::printf("ITEM %d %s %s\n", index, label.c_str(), ok ? "ok" : "error");
  std::fflush(stdout);
  return ok;
}

// "reference LIB SPEC RTOL ATOL": the expected f32 outputs of SPEC's inputs.
static bool RunReference(const std::string& lib, const std::string& spec, double rtol, double atol,
                         Inputs& inputs) {
  if (!PrepareInputs(spec, inputs)) return false;
  LaunchFunction launch = Open(lib, "reference", -1);
  if (launch == nullptr) return false;
  std::vector<const void*> scalar_pointers;
  for (auto& s : inputs.scalars) scalar_pointers.push_back(s.bytes);
  ResetOutputs(inputs);
  launch(inputs.pointers.data(), scalar_pointers.data(), 0);
  if (cudaDeviceSynchronize() != cudaSuccess) return false;
  for (size_t k = 0; k < inputs.tensors.size(); ++k)
    if (inputs.tensors[k].role == "output" && inputs.tensors[k].dtype == "f32")
      inputs.expected[k] = OutputOf(inputs, k);
  inputs.rtol = rtol;
  inputs.atol = atol;
  std::printf("REFERENCE %s ok\n", spec.c_str());
  return true;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: drive PLAN [--time | --cold-time | --cold-time-clean]\n");
    return 2;
  }
  const std::string mode = argc > 2 ? argv[2] : "";
  const Timing timing = mode == "--time"              ? Timing::kWarm
                        : mode == "--cold-time"       ? Timing::kCold
                        : mode == "--cold-time-clean" ? Timing::kColdClean
                                                      : Timing::kNone;
  std::ifstream plan(argv[1]);
  int index = 0, failures = 0;
  Inputs inputs;
  for (std::string line; std::getline(plan, line);) {
    std::istringstream in(line);
    std::string label, lib, spec;
    if (!(in >> label >> lib >> spec)) continue;
    if (label == "reference") {
      double rtol = 0, atol = 0;
      in >> rtol >> atol;
      if (!RunReference(lib, spec, rtol, atol, inputs)) {
        std::printf("REFERENCE %s error\n", spec.c_str());
        ++failures;
      }
      continue;
    }
    int launches = 1;
    in >> launches;
    if (!PrepareInputs(spec, inputs)) {
      std::printf("ITEM %d %s error inputs\n", index++, label.c_str());
      ++failures;
      continue;
    }
    if (!RunItem(index++, label, lib, inputs, launches, timing)) ++failures;
  }
  FreeInputs(inputs);
  return failures == 0 ? 0 : 1;
}
