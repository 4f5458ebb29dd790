// Capture driver for issue 14 (kopt diff and sweeps): runs many compiled task
// candidates (docs/harness-protocol.md §2 .so files) in ONE process, so that one
// ncu process profiles them all.
//
//   drive PLAN [--time]
//
// PLAN lines: "LABEL LIB.so SPEC LAUNCHES" (SPEC: the selfcheck spec format of
// examples/tasks/tools/selfcheck.cu: "seed S", "tensor DTYPE ROLE ELEMENTS KIND P1 P2",
// "scalar TYPE VALUE"; other lines ignored). Per line, in order: a NEW stream (so the
// rows of ncu's raw page can be grouped per item by their Stream column, in order of
// first appearance), inputs drawn from the seed, outputs set to 0xFF, LAUNCHES calls
// (each followed by a device sync), buffers freed. With --time: no profiling intent;
// 3 warm-up calls then the mean of 20 calls by CUDA events, "TIME LABEL US" per line.
// Prints "ITEM INDEX LABEL ok|error" per line. Exit 0 when every item ran.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
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
        double v = t.kind == "normal" ? normal(engine) : t.kind == "uniform" ? uniform(engine) : student(engine) * t.p2;
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

static bool RunItem(int index, const std::string& label, const std::string& lib, const std::string& spec_path,
                    int launches, bool time_it) {
  std::ifstream spec(spec_path);
  if (!spec) return false;
  std::vector<Tensor> tensors;
  std::vector<Scalar> scalars;
  uint64_t seed = 1;
  for (std::string line; std::getline(spec, line);) {
    std::istringstream in(line);
    std::string key;
    in >> key;
    if (key == "seed") in >> seed;
    if (key == "tensor") {
      Tensor t;
      in >> t.dtype >> t.role >> t.elements >> t.kind >> t.p1 >> t.p2;
      tensors.push_back(t);
    }
    if (key == "scalar") {
      Scalar s;
      in >> s.type >> s.value;
      if (s.type == "i32") *reinterpret_cast<int*>(s.bytes) = static_cast<int>(s.value);
      if (s.type == "i64") *reinterpret_cast<int64_t*>(s.bytes) = static_cast<int64_t>(s.value);
      if (s.type == "f32") *reinterpret_cast<float*>(s.bytes) = static_cast<float>(s.value);
      if (s.type == "f64") *reinterpret_cast<double*>(s.bytes) = s.value;
      scalars.push_back(s);
    }
  }
  void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::printf("ITEM %d %s error dlopen %s\n", index, label.c_str(), dlerror());
    return false;
  }
  auto launch = reinterpret_cast<LaunchFunction>(dlsym(handle, "kopt_launch"));
  if (launch == nullptr) return false;
  cudaStream_t stream;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) return false;
  std::vector<void*> pointers;
  std::vector<const void*> scalar_pointers;
  for (auto& s : scalars) scalar_pointers.push_back(s.bytes);
  std::vector<unsigned char> host;
  for (size_t k = 0; k < tensors.size(); ++k) {
    void* p = nullptr;
    if (cudaMalloc(&p, tensors[k].Bytes()) != cudaSuccess) return false;
    if (tensors[k].role == "output") {
      cudaMemset(p, 0xFF, tensors[k].Bytes());
    } else {
      Fill(tensors[k], seed * 31 + k, host);
      cudaMemcpy(p, host.data(), host.size(), cudaMemcpyHostToDevice);
    }
    pointers.push_back(p);
  }
  cudaDeviceSynchronize();
  bool ok = true;
  if (time_it) {
    for (int i = 0; i < 3; ++i) launch(pointers.data(), scalar_pointers.data(), stream);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start, stream);
    const int calls = 20;
    for (int i = 0; i < calls; ++i) launch(pointers.data(), scalar_pointers.data(), stream);
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    ok = cudaDeviceSynchronize() == cudaSuccess;
    std::printf("TIME %s %.3f\n", label.c_str(), ms * 1000.0 / calls);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  } else {
    for (int i = 0; i < launches && ok; ++i) {
      launch(pointers.data(), scalar_pointers.data(), stream);
      ok = cudaGetLastError() == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
    }
  }
  for (void* p : pointers) cudaFree(p);
  cudaStreamDestroy(stream);
  std::printf("ITEM %d %s %s\n", index, label.c_str(), ok ? "ok" : "error");
  std::fflush(stdout);
  return ok;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: drive PLAN [--time]\n");
    return 2;
  }
  const bool time_it = argc > 2 && std::string(argv[2]) == "--time";
  std::ifstream plan(argv[1]);
  int index = 0, failures = 0;
  for (std::string line; std::getline(plan, line);) {
    std::istringstream in(line);
    std::string label, lib, spec;
    int launches = 1;
    if (!(in >> label >> lib >> spec >> launches)) continue;
    if (!RunItem(index++, label, lib, spec, launches, time_it)) ++failures;
  }
  return failures == 0 ? 0 : 1;
}
