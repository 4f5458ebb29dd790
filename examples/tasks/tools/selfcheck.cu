// A stand-alone GPU check of one compiled candidate against the compiled
// reference of an example task; a development aid for examples/tasks and
// tests/adversarial, not the harness (`kopt bench` is). Driven by
// selfcheck.py, which builds the .so files as docs/harness-protocol.md §2
// says and writes the spec file.
//
//   selfcheck CANDIDATE.so REFERENCE.so SPEC
//
// SPEC lines: "seed S", "tol RTOL ATOL" (for f32 outputs), "time 0|1",
// "tensor DTYPE ROLE ELEMENTS [KIND P1 P2]" (KIND normal|uniform|heavy_tailed),
// "scalar TYPE VALUE". Runs the candidate on NaN-poisoned outputs, syncs
// the device, checks CUDA errors, compares inputs before/after, runs the
// reference on its own buffers, compares outputs, optionally times both
// (CUDA events on the stream, mean of 20 calls after 3 warm-ups). Prints
// one line "RESULT key=value ..."; exit 0 when the outputs pass.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cmath>
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
  std::vector<unsigned char> host;  // initial contents (inputs)
  void* candidate = nullptr;
  void* reference = nullptr;
  size_t Bytes() const { return elements * (dtype == "f32" || dtype == "i32" ? 4 : dtype == "f64" ? 8 : 2); }
};

struct Scalar {
  std::string type;
  double value = 0;
  unsigned char bytes[8] = {};
};

static void Fail(const char* what, cudaError_t error) {
  std::printf("RESULT ok=0 failure=%s cuda=%s\n", what, cudaGetErrorName(error));
  std::exit(3);
}

static void Fill(Tensor& t, uint64_t seed) {
  t.host.resize(t.Bytes());
  const size_t chunk = 1 << 20;
  const size_t chunks = (t.elements + chunk - 1) / chunk;
  auto work = [&](size_t first_chunk, size_t step) {
    for (size_t c = first_chunk; c < chunks; c += step) {
      std::mt19937_64 engine(seed * 1000003u + c);
      std::normal_distribution<double> normal(t.p1, t.p2);
      std::uniform_real_distribution<double> uniform(t.p1, t.p2);
      std::student_t_distribution<double> student(t.p1);
      for (size_t i = c * chunk; i < std::min(t.elements, (c + 1) * chunk); ++i) {
        double v = t.kind == "normal"    ? normal(engine)
                   : t.kind == "uniform" ? uniform(engine)
                                         : student(engine) * t.p2;
        if (t.dtype == "f32") {
          float f = static_cast<float>(v);
          std::memcpy(&t.host[i * 4], &f, 4);
        } else if (t.dtype == "bf16") {
          __nv_bfloat16 b = __float2bfloat16(static_cast<float>(v));
          std::memcpy(&t.host[i * 2], &b, 2);
        } else if (t.dtype == "f16") {
          __half h = __float2half(static_cast<float>(v));
          std::memcpy(&t.host[i * 2], &h, 2);
        }
      }
    }
  };
  std::vector<std::thread> threads;
  const unsigned count = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned k = 0; k < count; ++k) threads.emplace_back(work, k, count);
  for (auto& thread : threads) thread.join();
}

static LaunchFunction Load(const char* path) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::printf("RESULT ok=0 failure=load_error detail=%s\n", dlerror());
    std::exit(3);
  }
  return reinterpret_cast<LaunchFunction>(dlsym(handle, "kopt_launch"));
}

static double TimeCalls(LaunchFunction launch, void* const* tensors, const void* const* scalars,
                        cudaStream_t stream) {
  for (int i = 0; i < 3; ++i) launch(tensors, scalars, stream);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, stream);
  const int calls = 20;
  for (int i = 0; i < calls; ++i) launch(tensors, scalars, stream);
  cudaEventRecord(stop, stream);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaError_t error = cudaDeviceSynchronize();
  if (error != cudaSuccess) Fail("timing_error", error);
  return ms * 1000.0 / calls;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: selfcheck CANDIDATE.so REFERENCE.so SPEC\n");
    return 2;
  }
  std::ifstream spec(argv[3]);
  std::vector<Tensor> tensors;
  std::vector<Scalar> scalars;
  uint64_t seed = 1;
  double rtol = 1e-4, atol = 1e-5;
  int time_it = 0;
  for (std::string line; std::getline(spec, line);) {
    std::istringstream in(line);
    std::string key;
    in >> key;
    if (key == "seed") in >> seed;
    if (key == "tol") in >> rtol >> atol;
    if (key == "time") in >> time_it;
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
  LaunchFunction candidate = Load(argv[1]);
  LaunchFunction reference = Load(argv[2]);
  cudaStream_t stream;
  cudaError_t error = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (error != cudaSuccess) Fail("device_unavailable", error);
  std::vector<void*> candidate_pointers, reference_pointers;
  std::vector<const void*> scalar_pointers;
  for (auto& s : scalars) scalar_pointers.push_back(s.bytes);
  for (size_t k = 0; k < tensors.size(); ++k) {
    Tensor& t = tensors[k];
    if (cudaMalloc(&t.candidate, t.Bytes()) != cudaSuccess ||
        cudaMalloc(&t.reference, t.Bytes()) != cudaSuccess) {
      Fail("harness_out_of_memory", cudaErrorMemoryAllocation);
    }
    if (t.role == "output") {
      cudaMemset(t.candidate, 0xFF, t.Bytes());
      cudaMemset(t.reference, 0xFF, t.Bytes());
    } else {
      Fill(t, seed * 31 + k);
      cudaMemcpy(t.candidate, t.host.data(), t.Bytes(), cudaMemcpyHostToDevice);
      cudaMemcpy(t.reference, t.host.data(), t.Bytes(), cudaMemcpyHostToDevice);
    }
    candidate_pointers.push_back(t.candidate);
    reference_pointers.push_back(t.reference);
  }
  cudaDeviceSynchronize();

  candidate(candidate_pointers.data(), scalar_pointers.data(), stream);
  error = cudaGetLastError();
  if (error != cudaSuccess) Fail("launch_error", error);
  error = cudaDeviceSynchronize();
  if (error != cudaSuccess) Fail("execution_error", error);
  for (auto& t : tensors) {
    if (t.role != "input") continue;
    std::vector<unsigned char> after(t.Bytes());
    cudaMemcpy(after.data(), t.candidate, t.Bytes(), cudaMemcpyDeviceToHost);
    if (after != t.host) {
      std::printf("RESULT ok=0 failure=input_mutated\n");
      return 3;
    }
  }
  reference(reference_pointers.data(), scalar_pointers.data(), stream);
  error = cudaDeviceSynchronize();
  if (error != cudaSuccess) Fail("reference_error", error);

  bool ok = true;
  double max_abs = 0, max_rel = 0;
  size_t mismatches = 0, unwritten = 0, nans = 0;
  for (auto& t : tensors) {
    if (t.role == "input" || t.dtype != "f32") continue;
    std::vector<float> got(t.elements), want(t.elements);
    cudaMemcpy(got.data(), t.candidate, t.Bytes(), cudaMemcpyDeviceToHost);
    cudaMemcpy(want.data(), t.reference, t.Bytes(), cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < t.elements; ++i) {
      uint32_t bits;
      std::memcpy(&bits, &got[i], 4);
      if (bits == 0xFFFFFFFFu) ++unwritten;
      if (std::isnan(got[i])) ++nans;
      const double g = got[i], w = want[i];
      if (std::isnan(w)) {
        if (!std::isnan(g)) ++mismatches;
        continue;
      }
      const double diff = std::fabs(g - w);
      if (!(diff <= atol + rtol * std::fabs(w))) ++mismatches;
      if (std::isfinite(diff)) {
        max_abs = std::max(max_abs, diff);
        if (w != 0) max_rel = std::max(max_rel, diff / std::fabs(w));
      }
    }
  }
  ok = mismatches == 0;
  double candidate_us = 0, reference_us = 0;
  if (time_it && ok) {
    candidate_us = TimeCalls(candidate, candidate_pointers.data(), scalar_pointers.data(), stream);
    reference_us = TimeCalls(reference, reference_pointers.data(), scalar_pointers.data(), stream);
  }
  std::printf(
      "RESULT ok=%d max_abs=%.3g max_rel=%.3g mismatches=%zu unwritten=%zu nan=%zu candidate_us=%.1f "
      "reference_us=%.1f\n",
      ok ? 1 : 0, max_abs, max_rel, mismatches, unwritten, nans, candidate_us, reference_us);
  return ok ? 0 : 1;
}
