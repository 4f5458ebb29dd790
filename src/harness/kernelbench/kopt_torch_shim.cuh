// kopt_torch_shim.cuh: the few torch C++ names the CUDA source of a
// KernelBench ModelNew uses (torch::Tensor, empty_like, data_ptr<T>, the
// current stream, TORCH_CHECK, AT_DISPATCH_*), so kopt compiles that source
// with plain nvcc in about a second instead of building a PyTorch extension
// (docs/kernelbench.md). Written into every candidate kopt converts from a
// ModelNew file (harness/kernelbench_candidate.h), before the source.
//
// A Tensor here is a view: a device pointer, sizes (contiguous, row-major) and
// a dtype; it owns nothing. Tensors the source allocates come from a pool that
// lives across calls (like PyTorch's caching allocator); the first allocation
// of exactly the size of the task's output gets the harness's output buffer
// itself, so the usual `auto out = torch::empty_like(x); ...; return out;`
// writes in place. The source's work runs on the legacy default stream, as
// in PyTorch (kernels launched without a stream, and the "current stream"),
// which the entry point joins with the harness's stream before and after the
// call, without synchronizing the host. An unsupported use fails to compile (no such name) or, at run
// time, prints "kopt torch shim: ..." and aborts (the candidate crashes).
//
// KOPT_SHIM_WITHOUT_HALF_TYPES (defined by the converter when neither the
// sources nor the task name a 16-bit float type): no cuda_fp16.h or
// cuda_bf16.h and no at::Half / at::BFloat16, about a quarter of a small
// candidate's nvcc time (issue 16, "cost per candidate").
#ifndef KOPT_SHIM_WITHOUT_HALF_TYPES
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <vector>

namespace kopt_shim {

enum class ScalarType { Float, Half, BFloat16, Double, Long, Int, Byte };

inline size_t ElementSize(ScalarType type) {
  switch (type) {
    case ScalarType::Half:
    case ScalarType::BFloat16: return 2;
    case ScalarType::Double:
    case ScalarType::Long: return 8;
    case ScalarType::Byte: return 1;
    default: return 4;
  }
}

[[noreturn]] inline void Fail(const char* what) {
  std::fprintf(stderr, "kopt torch shim: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

class IntArrayRef {
 public:
  IntArrayRef() = default;
  IntArrayRef(std::initializer_list<int64_t> values) : values_(values) {}
  IntArrayRef(const std::vector<int64_t>& values) : values_(values) {}
  size_t size() const { return values_.size(); }
  int64_t operator[](size_t i) const { return values_[i]; }
  const int64_t* begin() const { return values_.data(); }
  const int64_t* end() const { return values_.data() + values_.size(); }
  const int64_t* data() const { return values_.data(); }
  const std::vector<int64_t>& vec() const { return values_; }
  bool empty() const { return values_.empty(); }

 private:
  std::vector<int64_t> values_;
};

struct Device {
  bool is_cuda() const { return true; }
  int index() const { return 0; }
};

struct TensorOptions {
  ScalarType type = ScalarType::Float;
  TensorOptions dtype(ScalarType t) const { return TensorOptions{t}; }
  template <typename T>
  TensorOptions device(const T&) const {
    return *this;
  }
  TensorOptions requires_grad(bool) const { return *this; }
  ScalarType dtype() const { return type; }
};

struct Pool {
  struct Block {
    void* data;
    size_t bytes;
    bool in_use;
  };
  std::vector<Block> blocks;
  cudaStream_t stream = nullptr;
  void* output = nullptr;
  size_t output_bytes = 0;
  bool output_taken = false;
};

inline Pool& CurrentPool() {
  static Pool pool;
  return pool;
}

inline void* Allocate(size_t bytes) {
  Pool& pool = CurrentPool();
  if (!pool.output_taken && pool.output != nullptr && bytes == pool.output_bytes) {
    pool.output_taken = true;
    return pool.output;
  }
  for (auto& block : pool.blocks) {
    if (!block.in_use && block.bytes == bytes) {
      block.in_use = true;
      return block.data;
    }
  }
  void* data = nullptr;
  if (cudaMalloc(&data, bytes == 0 ? 1 : bytes) != cudaSuccess) Fail("cudaMalloc failed");
  pool.blocks.push_back({data, bytes, true});
  return data;
}

class Tensor {
 public:
  Tensor() = default;
  Tensor(void* data, std::vector<int64_t> sizes, ScalarType type)
      : data_(data), sizes_(std::move(sizes)), type_(type) {}

  template <typename T>
  T* data_ptr() const {
    return static_cast<T*>(data_);
  }
  void* data_ptr() const { return data_; }
  template <typename T>
  T* mutable_data_ptr() const {
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* const_data_ptr() const {
    return static_cast<const T*>(data_);
  }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes_) n *= s;
    return n;
  }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t ndimension() const { return dim(); }
  int64_t size(int64_t d) const { return sizes_.at(static_cast<size_t>(d < 0 ? d + dim() : d)); }
  IntArrayRef sizes() const { return IntArrayRef(sizes_); }
  int64_t stride(int64_t d) const {
    d = d < 0 ? d + dim() : d;
    int64_t s = 1;
    for (int64_t i = dim() - 1; i > d; --i) s *= sizes_[static_cast<size_t>(i)];
    return s;
  }
  IntArrayRef strides() const {
    std::vector<int64_t> out(sizes_.size());
    for (int64_t i = 0; i < dim(); ++i) out[static_cast<size_t>(i)] = stride(i);
    return IntArrayRef(out);
  }
  ScalarType scalar_type() const { return type_; }
  ScalarType dtype() const { return type_; }
  TensorOptions options() const { return TensorOptions{type_}; }
  Device device() const { return Device{}; }
  bool is_cuda() const { return true; }
  bool is_contiguous() const { return true; }
  bool defined() const { return data_ != nullptr; }
  int64_t element_size() const { return static_cast<int64_t>(ElementSize(type_)); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * ElementSize(type_); }
  Tensor contiguous() const { return *this; }
  Tensor cuda() const { return *this; }
  Tensor view(IntArrayRef shape) const { return Reshaped(shape); }
  Tensor reshape(IntArrayRef shape) const { return Reshaped(shape); }

 private:
  Tensor Reshaped(IntArrayRef shape) const {
    std::vector<int64_t> s = shape.vec();
    int64_t known = 1, infer = -1;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == -1) {
        infer = static_cast<int64_t>(i);
      } else {
        known *= s[i];
      }
    }
    if (infer >= 0) s[static_cast<size_t>(infer)] = known ? numel() / known : 0;
    return Tensor(data_, s, type_);
  }
  void* data_ = nullptr;
  std::vector<int64_t> sizes_;
  ScalarType type_ = ScalarType::Float;
};

inline Tensor empty(IntArrayRef sizes, TensorOptions options = {}) {
  Tensor shape(nullptr, sizes.vec(), options.type);
  return Tensor(Allocate(shape.nbytes()), sizes.vec(), options.type);
}
inline Tensor empty(IntArrayRef sizes, ScalarType type) {
  return empty(sizes, TensorOptions{type});
}
inline Tensor empty_like(const Tensor& t) {
  return empty(t.sizes(), t.options());
}
inline Tensor empty_like(const Tensor& t, TensorOptions options) {
  return empty(t.sizes(), options);
}
inline Tensor zeros(IntArrayRef sizes, TensorOptions options = {}) {
  Tensor t = empty(sizes, options);
  cudaMemsetAsync(t.data_ptr(), 0, t.nbytes(), cudaStreamLegacy);
  return t;
}
inline Tensor zeros(IntArrayRef sizes, ScalarType type) {
  return zeros(sizes, TensorOptions{type});
}
inline Tensor zeros_like(const Tensor& t) {
  return zeros(t.sizes(), t.options());
}
inline Tensor zeros_like(const Tensor& t, TensorOptions options) {
  return zeros(t.sizes(), options);
}

// One call of the converted entry point: the harness's stream and output.
class CallScope {
 public:
  CallScope(cudaStream_t stream, void* output, size_t output_bytes) {
    Pool& pool = CurrentPool();
    pool.stream = stream;
    pool.output = output;
    pool.output_bytes = output_bytes;
    pool.output_taken = false;
    Join(stream, cudaStreamLegacy);
  }
  ~CallScope() {
    Pool& pool = CurrentPool();
    for (auto& block : pool.blocks) block.in_use = false;
    pool.output = nullptr;
  }
  // The model's result into the harness's output (in place when it is).
  void Deliver(const Tensor& result, const std::vector<int64_t>& shape, ScalarType type) {
    Pool& pool = CurrentPool();
    Join(cudaStreamLegacy, pool.stream);
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    if (result.scalar_type() != type || result.numel() != n)
      Fail("the result's shape or dtype is not the task's");
    if (result.data_ptr() != pool.output) {
      cudaMemcpyAsync(pool.output, result.data_ptr(), result.nbytes(), cudaMemcpyDeviceToDevice, pool.stream);
    }
  }

 private:
  static void Join(cudaStream_t from, cudaStream_t into) {
    static cudaEvent_t event = [] {
      cudaEvent_t e;
      cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
      return e;
    }();
    cudaEventRecord(event, from);
    cudaStreamWaitEvent(into, event, 0);
  }
};

inline Tensor Wrap(const void* data, std::vector<int64_t> sizes, ScalarType type) {
  return Tensor(const_cast<void*>(data), std::move(sizes), type);
}

struct OptionalCUDAGuard {
  template <typename T>
  explicit OptionalCUDAGuard(const T&) {}
};
inline Device device_of(const Tensor&) {
  return Device{};
}

}  // namespace kopt_shim

namespace torch {
using kopt_shim::empty;
using kopt_shim::empty_like;
using kopt_shim::IntArrayRef;
using kopt_shim::ScalarType;
using kopt_shim::Tensor;
using kopt_shim::TensorOptions;
using kopt_shim::zeros;
using kopt_shim::zeros_like;
inline constexpr ScalarType kFloat32 = ScalarType::Float, kFloat = ScalarType::Float,
                            kHalf = ScalarType::Half, kFloat16 = ScalarType::Half,
                            kBFloat16 = ScalarType::BFloat16, kFloat64 = ScalarType::Double,
                            kDouble = ScalarType::Double, kInt64 = ScalarType::Long, kLong = ScalarType::Long,
                            kInt32 = ScalarType::Int, kInt = ScalarType::Int, kUInt8 = ScalarType::Byte,
                            kByte = ScalarType::Byte;
inline constexpr int kCUDA = 1;
inline TensorOptions dtype(ScalarType type) {
  return TensorOptions{type};
}
}  // namespace torch

namespace at {
using namespace torch;
#ifndef KOPT_SHIM_WITHOUT_HALF_TYPES
using Half = __half;
using BFloat16 = __nv_bfloat16;
#endif
namespace cuda {
struct CUDAStream {
  cudaStream_t value;
  operator cudaStream_t() const { return value; }
  cudaStream_t stream() const { return value; }
};
// As in PyTorch by default: the legacy default stream, on which kernels
// launched without a stream run too (CallScope joins it with the harness's).
inline CUDAStream getCurrentCUDAStream(int = -1) { return CUDAStream{cudaStreamLegacy}; }
inline CUDAStream getDefaultCUDAStream(int = -1) {
  return getCurrentCUDAStream();
}
using kopt_shim::OptionalCUDAGuard;
}  // namespace cuda
using kopt_shim::device_of;
}  // namespace at

namespace c10 {
#ifndef KOPT_SHIM_WITHOUT_HALF_TYPES
using at::BFloat16;
using at::Half;
#endif
using kopt_shim::ScalarType;
namespace cuda {
using at::cuda::getCurrentCUDAStream;
using at::cuda::OptionalCUDAGuard;
}  // namespace cuda
}  // namespace c10

#define TORCH_CHECK(condition, ...)                                          \
  do {                                                                       \
    if (!(condition)) kopt_shim::Fail("TORCH_CHECK(" #condition ") failed"); \
  } while (0)
#define C10_CUDA_KERNEL_LAUNCH_CHECK() ((void)0)
#define C10_CUDA_CHECK(expr) ((void)(expr))
#define KOPT_SHIM_CASE(type_enum, type, ...) \
  case kopt_shim::ScalarType::type_enum: {   \
    using scalar_t = type;                   \
    return __VA_ARGS__();                    \
  }
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...)            \
  [&] {                                                        \
    switch (TYPE) {                                            \
      KOPT_SHIM_CASE(Float, float, __VA_ARGS__)                \
      KOPT_SHIM_CASE(Double, double, __VA_ARGS__)              \
      default: kopt_shim::Fail(NAME ": dtype not dispatched"); \
    }                                                          \
  }()
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...)   \
  [&] {                                                        \
    switch (TYPE) {                                            \
      KOPT_SHIM_CASE(Float, float, __VA_ARGS__)                \
      KOPT_SHIM_CASE(Double, double, __VA_ARGS__)              \
      KOPT_SHIM_CASE(Half, __half, __VA_ARGS__)                \
      default: kopt_shim::Fail(NAME ": dtype not dispatched"); \
    }                                                          \
  }()
