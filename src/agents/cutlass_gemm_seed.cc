#include "agents/cutlass_gemm_seed.h"

#include <fmt/format.h>

#include <map>

namespace kopt::agents {
namespace {

// Replaces every @KEY@ of `text` by its value.
std::string Fill(std::string text, const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values) {
    std::string marker = "@" + key + "@";
    for (size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at + value.size())) {
      text.replace(at, marker.size(), value);
    }
  }
  return text;
}

std::string Dimension(const ShapeDimension& dimension) {
  return dimension.scalar.empty() ? std::to_string(dimension.literal) : dimension.scalar;
}

// In C++ code: a scalar parameter, or the literal as int64_t.
std::string DimensionCode(const ShapeDimension& dimension) {
  return dimension.scalar.empty() ? fmt::format("int64_t{{{}}}", dimension.literal)
                                  : fmt::format("static_cast<int64_t>({})", dimension.scalar);
}

std::string CutlassType(DataType dtype) {
  switch (dtype) {
    case DataType::kF16: return "cutlass::half_t";
    case DataType::kBF16: return "cutlass::bfloat16_t";
    default: return "float";
  }
}

std::string ActivationType(GemmActivation activation) {
  switch (activation) {
    case GemmActivation::kRelu: return "cutlass::epilogue::thread::ReLu";
    case GemmActivation::kGelu: return "cutlass::epilogue::thread::GELU";
    case GemmActivation::kNone: return "cutlass::epilogue::thread::Identity";
  }
  return "cutlass::epilogue::thread::Identity";
}

// The entry point's definition line (EntryPrototype without its ';').
std::string EntryDefinition(const TaskSpec& task) {
  std::string prototype = EntryPrototype(task);
  if (!prototype.empty() && prototype.back() == ';') prototype.pop_back();
  return prototype;
}

// The knobs, one `kopt:tune` line each (`name values role default`).
struct Knob {
  std::string name;
  std::string values;
  std::string role;
  int64_t value = 0;  // default
};

std::string KnobLines(const std::vector<Knob>& knobs, const std::vector<std::string>& restrictions) {
  std::string text;
  for (const Knob& knob : knobs) {
    text += fmt::format("// kopt:tune {} values={} role={}\n", knob.name, knob.values, knob.role);
  }
  for (const std::string& restriction : restrictions) text += "// kopt:restrict " + restriction + "\n";
  text += "#define NDEBUG 1  // CUTLASS's device asserts break the wgmma pipeline (ptxas C7510)\n";
  for (const Knob& knob : knobs) {
    text += fmt::format("#ifndef {0}\n#define {0} {1}\n#endif\n", knob.name, knob.value);
  }
  return text;
}

// The fallback kernel and the operands' addressing, shared by both families.
constexpr const char* kCommon = R"(
namespace kopt_gemm {

// The operation's epilogue on one f32 value, unfolded: post_scale * act(alpha * acc + bias_scale * bias).
__device__ __forceinline__ float Epilogue(float acc, float bias) {
  float value = @ALPHA@f * acc + @BIAS_SCALE@f * bias;
  @ACTIVATION_CODE@
  return @POST_SCALE@f * value;
}

// One thread per output element: the path for sizes and alignments the
// CUTLASS kernel does not take (odd leading dimensions, tiny problems).
__global__ void FallbackKernel(const @A_TYPE@* a, const @B_TYPE@* b, @D_TYPE@* d, const @BIAS_TYPE@* bias,
                               int64_t m_size, int64_t n_size, int64_t k_size, int64_t a_row, int64_t a_col,
                               int64_t b_row, int64_t b_col) {
  const int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t m = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  const int64_t l = blockIdx.z;
  if (m >= m_size || n >= n_size) return;
  a += l * m_size * k_size;
  b += l * k_size * n_size;
  d += l * m_size * n_size;
  float acc = 0.0f;
  for (int64_t k = 0; k < k_size; ++k) {
    acc = fmaf(static_cast<float>(a[m * a_row + k * a_col]), static_cast<float>(b[k * b_row + n * b_col]), acc);
  }
  const float bias_value = bias != nullptr ? static_cast<float>(bias[n]) : 0.0f;
  d[m * n_size + n] = static_cast<@D_TYPE@>(Epilogue(acc, bias_value));
}

void RunFallback(const @A_TYPE@* a, const @B_TYPE@* b, @D_TYPE@* d, const @BIAS_TYPE@* bias, int64_t m,
                 int64_t n, int64_t k, int64_t batch, cudaStream_t stream) {
  const dim3 threads(16, 16);
  const dim3 blocks(static_cast<unsigned>((n + 15) / 16), static_cast<unsigned>((m + 15) / 16),
                    static_cast<unsigned>(batch));
  FallbackKernel<<<blocks, threads, 0, stream>>>(a, b, d, bias, m, n, k, @A_ROW@, @A_COL@, @B_ROW@, @B_COL@);
}

// A device buffer that grows and is kept (the CUTLASS kernels' workspace).
void* Workspace(size_t bytes) {
  static void* buffer = nullptr;
  static size_t size = 0;
  if (bytes > size) {
    if (buffer != nullptr) cudaFree(buffer);
    buffer = nullptr;
    size = 0;
    if (cudaMalloc(&buffer, bytes) != cudaSuccess) return nullptr;
    size = bytes;
  }
  return buffer;
}

}  // namespace kopt_gemm
)";

constexpr const char* kSm90 = R"(
#include <cutlass/cutlass.h>
#include <cute/tensor.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/epilogue/thread/activation.h>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/gemm/kernel/tile_scheduler.hpp>
#include <cutlass/util/packed_stride.hpp>
@COMMON@
namespace kopt_gemm {
using namespace cute;

using ElementA = @A_CUTLASS@;
using ElementB = @B_CUTLASS@;
using ElementD = @D_CUTLASS@;
using ElementBias = @BIAS_CUTLASS@;
using ElementAccumulator = float;
using ElementCompute = float;
using LayoutA = @LAYOUT_A@;
using LayoutB = @LAYOUT_B@;
using LayoutD = cutlass::layout::RowMajor;
constexpr int kAlignmentA = 16 / sizeof(ElementA);
constexpr int kAlignmentB = 16 / sizeof(ElementB);
constexpr int kAlignmentD = 16 / sizeof(ElementD);
#define KOPT_GEMM_HAS_BIAS @HAS_BIAS@
template <class T>
using ActivationFn = @ACTIVATION@<T>;

using TileShape = Shape<Int<TILE_M>, Int<TILE_N>, Int<TILE_K>>;
using ClusterShape = Shape<Int<CLUSTER_M>, Int<CLUSTER_N>, _1>;
#if SCHEDULE == 2
using KernelSchedule = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecializedCooperative;
#else
using KernelSchedule = cutlass::gemm::KernelTmaWarpSpecializedPingpong;
using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecialized;
#endif
#if SCHEDULER == 1
using TileScheduler = cutlass::gemm::StreamKScheduler;
#else
using TileScheduler = cutlass::gemm::PersistentScheduler;
#endif

#if KOPT_GEMM_HAS_BIAS
using FusionOperation = cutlass::epilogue::fusion::LinCombPerColBiasEltAct<ActivationFn, ElementD, ElementCompute,
                                                                           ElementBias, void, ElementCompute>;
#else
using FusionOperation =
    cutlass::epilogue::fusion::LinCombEltAct<ActivationFn, ElementD, ElementCompute, void, ElementCompute>;
#endif

using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, ElementAccumulator, ElementCompute, void, LayoutD, kAlignmentD,
    ElementD, LayoutD, kAlignmentD, EpilogueSchedule, FusionOperation>::CollectiveOp;

#if STAGES == 0
using Stages = cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
    sizeof(typename CollectiveEpilogue::SharedStorage))>;
#else
using Stages = cutlass::gemm::collective::StageCount<STAGES>;
#endif

using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementA, LayoutA, kAlignmentA, ElementB, LayoutB,
    kAlignmentB, ElementAccumulator, TileShape, ClusterShape, Stages, KernelSchedule>::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, CollectiveMainloop,
                                                        CollectiveEpilogue, TileScheduler>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;

bool Aligned(const void* pointer) { return reinterpret_cast<uintptr_t>(pointer) % 16 == 0; }

// False when the CUTLASS kernel cannot take this problem (the caller falls back).
bool RunCutlass(const ElementA* a, const ElementB* b, ElementD* d, const ElementBias* bias, int m, int n, int k,
                int batch, cudaStream_t stream) {
  if (!Aligned(a) || !Aligned(b) || !Aligned(d) || (bias != nullptr && !Aligned(bias)) ||
      @LEAD_A@ % kAlignmentA != 0 || @LEAD_B@ % kAlignmentB != 0 || n % kAlignmentD != 0) {
    return false;
  }
  typename Gemm::Arguments arguments;
  arguments.mode = batch > 1 ? cutlass::gemm::GemmUniversalMode::kBatched : cutlass::gemm::GemmUniversalMode::kGemm;
  arguments.problem_shape = {m, n, k, batch};
  arguments.mainloop.ptr_A = a;
  arguments.mainloop.dA = cutlass::make_cute_packed_stride(typename GemmKernel::StrideA{}, {m, k, batch});
  arguments.mainloop.ptr_B = b;
  arguments.mainloop.dB = cutlass::make_cute_packed_stride(typename GemmKernel::StrideB{}, {n, k, batch});
  arguments.epilogue.thread.alpha = @EPILOGUE_ALPHA@f;
  arguments.epilogue.thread.beta = 0.0f;
#if KOPT_GEMM_HAS_BIAS
  arguments.epilogue.thread.bias_ptr = bias;
#endif
  arguments.epilogue.ptr_D = d;
  arguments.epilogue.dD = cutlass::make_cute_packed_stride(typename GemmKernel::StrideD{}, {m, n, batch});
  static int device = -1;
  static int sm_count = 0;
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) return false;
  if (current != device) {
    sm_count = cutlass::KernelHardwareInfo::query_device_multiprocessor_count(current);
    device = current;
  }
  arguments.hw_info.device_id = current;
  arguments.hw_info.sm_count = sm_count;
  arguments.scheduler.max_swizzle_size = SWIZZLE;
  arguments.scheduler.raster_order = static_cast<decltype(arguments.scheduler.raster_order)>(RASTER);
#if SCHEDULER == 1
  arguments.scheduler.splits = SPLIT;
  if (SPLIT > 1) arguments.scheduler.decomposition_mode = decltype(arguments.scheduler.decomposition_mode)::SplitK;
#endif
  Gemm gemm;
  if (gemm.can_implement(arguments) != cutlass::Status::kSuccess) return false;
  size_t bytes = Gemm::get_workspace_size(arguments);
  void* workspace = bytes > 0 ? Workspace(bytes) : nullptr;
  if (bytes > 0 && workspace == nullptr) return false;
  if (gemm.initialize(arguments, workspace, stream) != cutlass::Status::kSuccess) return false;
  return gemm.run(stream) == cutlass::Status::kSuccess;
}

}  // namespace kopt_gemm

@ENTRY@ {
  const int64_t kopt_m = @M@, kopt_n = @N@, kopt_k = @K@, kopt_batch = @BATCH@;
  if (kopt_m <= 0 || kopt_n <= 0 || kopt_batch <= 0) return;
  const bool fits = kopt_m < (int64_t{1} << 31) && kopt_n < (int64_t{1} << 31) && kopt_k < (int64_t{1} << 31) &&
                    kopt_k > 0;
  if (fits && kopt_gemm::RunCutlass(reinterpret_cast<const kopt_gemm::ElementA*>(@A@),
                                    reinterpret_cast<const kopt_gemm::ElementB*>(@B@),
                                    reinterpret_cast<kopt_gemm::ElementD*>(@D@),
                                    reinterpret_cast<const kopt_gemm::ElementBias*>(@BIAS@),
                                    static_cast<int>(kopt_m), static_cast<int>(kopt_n), static_cast<int>(kopt_k),
                                    static_cast<int>(kopt_batch), stream)) {
    return;
  }
  kopt_gemm::RunFallback(@A@, @B@, @D@, @BIAS@, kopt_m, kopt_n, kopt_k, kopt_batch, stream);
}
)";

constexpr const char* kSm80F32 = R"(
#include <cutlass/cutlass.h>
#include <cutlass/epilogue/thread/activation.h>
#include <cutlass/epilogue/thread/linear_combination_generic.h>
#include <cutlass/gemm/device/gemm_universal.h>
#include <cutlass/gemm/threadblock/threadblock_swizzle.h>
@COMMON@
namespace kopt_gemm {

template <class T>
using ActivationFn = @ACTIVATION@<T>;
using EpilogueOp = cutlass::epilogue::thread::LinearCombinationGeneric<ActivationFn, float, 1, float, float>;
#if F32_PATH == 1
// 3xTF32: each f32 operand split into a TF32 high part and a TF32 low part,
// three tensor-core products summed in f32 (f32-level error).
using OperatorClass = cutlass::arch::OpClassTensorOp;
using InstructionShape = cutlass::gemm::GemmShape<16, 8, 8>;
using MathOperator = cutlass::arch::OpMultiplyAddFastF32;
#else
using OperatorClass = cutlass::arch::OpClassSimt;
using InstructionShape = cutlass::gemm::GemmShape<1, 1, 1>;
using MathOperator = cutlass::arch::OpMultiplyAdd;
#endif
using Gemm = cutlass::gemm::device::GemmUniversal<
    float, @LAYOUT_A@, float, @LAYOUT_B@, float, cutlass::layout::RowMajor, float, OperatorClass,
    cutlass::arch::Sm80, cutlass::gemm::GemmShape<BLOCK_M, BLOCK_N, BLOCK_K>,
    cutlass::gemm::GemmShape<BLOCK_M / WARPS_M, BLOCK_N / WARPS_N, BLOCK_K>, InstructionShape, EpilogueOp,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<SWIZZLE>, STAGES, ALIGN, ALIGN, MathOperator>;

// False when the CUTLASS kernel cannot take this problem (the caller falls back).
bool RunCutlass(const float* a, const float* b, float* d, const float* bias, int m, int n, int k, int batch,
                cudaStream_t stream) {
  const int split = batch > 1 ? 1 : SPLIT;
  const cutlass::gemm::GemmUniversalMode mode =
      batch > 1 ? cutlass::gemm::GemmUniversalMode::kBatched : cutlass::gemm::GemmUniversalMode::kGemm;
  // The bias is the epilogue's source C with a leading dimension of 0 (one row for every row).
  const float* source = bias != nullptr ? bias : d;
  const float beta = bias != nullptr ? @EPILOGUE_BETA@f : 0.0f;
  typename Gemm::Arguments arguments(
      mode, {m, n, k}, batch > 1 ? batch : split, {@EPILOGUE_ALPHA@f, beta}, a, b, source, d,
      static_cast<int64_t>(m) * k, static_cast<int64_t>(k) * n, 0, static_cast<int64_t>(m) * n, @LEAD_A@, @LEAD_B@,
      bias != nullptr ? 0 : n, n);
  Gemm gemm;
  if (gemm.can_implement(arguments) != cutlass::Status::kSuccess) return false;
  size_t bytes = Gemm::get_workspace_size(arguments);
  void* workspace = bytes > 0 ? Workspace(bytes) : nullptr;
  if (bytes > 0 && workspace == nullptr) return false;
  if (bytes > 0 && cudaMemsetAsync(workspace, 0, bytes, stream) != cudaSuccess) return false;
  if (gemm.initialize(arguments, workspace, stream) != cutlass::Status::kSuccess) return false;
  return gemm.run(stream) == cutlass::Status::kSuccess;
}

}  // namespace kopt_gemm

@ENTRY@ {
  const int64_t kopt_m = @M@, kopt_n = @N@, kopt_k = @K@, kopt_batch = @BATCH@;
  if (kopt_m <= 0 || kopt_n <= 0 || kopt_batch <= 0) return;
  const bool fits = kopt_m < (int64_t{1} << 31) && kopt_n < (int64_t{1} << 31) && kopt_k < (int64_t{1} << 31) &&
                    kopt_k > 0 && kopt_batch < 65536;
  if (fits && kopt_gemm::RunCutlass(@A@, @B@, @D@, @BIAS@, static_cast<int>(kopt_m), static_cast<int>(kopt_n),
                                    static_cast<int>(kopt_k), static_cast<int>(kopt_batch), stream)) {
    return;
  }
  kopt_gemm::RunFallback(@A@, @B@, @D@, @BIAS@, kopt_m, kopt_n, kopt_k, kopt_batch, stream);
}
)";

std::string ActivationCode(GemmActivation activation) {
  switch (activation) {
    case GemmActivation::kRelu: return "value = fmaxf(value, 0.0f);";
    case GemmActivation::kGelu: return "value = 0.5f * value * (1.0f + erff(value * 0.70710678118654752f));";
    case GemmActivation::kNone: return "";
  }
  return "";
}

std::string FloatLiteral(double value) {
  return fmt::format("{:.9g}", value).find_first_of(".e") == std::string::npos
             ? fmt::format("{:.9g}.0", value)
             : fmt::format("{:.9g}", value);
}

}  // namespace

std::string_view CutlassGemmFamilyName(CutlassGemmFamily family) {
  switch (family) {
    case CutlassGemmFamily::kSm90TmaWgmma: return "sm90_tma_wgmma";
    case CutlassGemmFamily::kSm80F32: return "sm80_f32";
  }
  return "unknown";
}

namespace {

// The CUTLASS family for the operation's types, or why none fits this run.
Result<CutlassGemmFamily> FamilyFor(const GemmOperation& operation, const CutlassSeedOptions& options) {
  bool sixteen_bit = operation.input_type == DataType::kF16 || operation.input_type == DataType::kBF16;
  if (sixteen_bit) {
    if (options.architecture != "sm_90a") {
      return InvalidInput(fmt::format(
          "the CUTLASS GEMM path for {} inputs targets sm_90a (TMA + wgmma); this run compiles for {}",
          DataTypeName(operation.input_type), options.architecture));
    }
    if (!operation.bias.empty() && (operation.post_scale != 1.0 || operation.bias_scale != 1.0)) {
      return InvalidInput(
          "the sm90 epilogue adds the bias unscaled: a bias_scale or a post_scale with a bias is not fused");
    }
    return CutlassGemmFamily::kSm90TmaWgmma;
  }
  if (operation.output_type != DataType::kF32 ||
      (!operation.bias.empty() && operation.bias_type != DataType::kF32)) {
    return InvalidInput("the CUTLASS f32 GEMM path writes f32 and reads an f32 bias");
  }
  return CutlassGemmFamily::kSm80F32;
}

// The tunable space: CUTLASS's template parameters as knobs, and the restrictions that prune it.
struct SeedSpace {
  std::vector<Knob> knobs;
  std::vector<std::string> restrictions;
};

// TMA + wgmma for 16-bit inputs: tiles, cluster, stages, schedule, stream-K / split-K, raster.
SeedSpace Sm90Space(const GemmOperation& operation, const CutlassSeedOptions& options) {
  const std::string m = Dimension(operation.m);
  const std::string n = Dimension(operation.n);
  const std::string k = Dimension(operation.k);
  const int in_bytes = DataTypeBytes(operation.input_type);
  SeedSpace space;
  std::vector<Knob>& knobs = space.knobs;
  std::vector<std::string>& restrictions = space.restrictions;
  const std::string waves = std::to_string(2 * options.sm_count);
  knobs = {{"TILE_M", "64,128,256", "tile_y", 128}, {"TILE_N", "64,128,256", "tile_x", 256},
           {"TILE_K", "32,64,128", "tile_k", 64},   {"CLUSTER_M", "1,2", "other", 2},
           {"CLUSTER_N", "1,2", "other", 1},        {"STAGES", "0,2,3,4,5,6,7", "stages", 0},
           {"SCHEDULE", "1,2", "other", 2},         {"SCHEDULER", "0,1", "other", 0},
           {"SPLIT", "1,2,4", "split_k", 1},        {"RASTER", "0,1,2", "other", 0},
           {"SWIZZLE", "1,2,4,8", "other", 1}};
  restrictions = {
      "TILE_M >= 64 * SCHEDULE",              // cooperative: two consumer warp groups of 64 rows
      "TILE_M * TILE_N <= 16384 * SCHEDULE",  // accumulators per consumer warp group
      "SCHEDULER <= SCHEDULE - 1",            // stream-K runs on the cooperative kernel
      "SPLIT <= 1 + 3 * SCHEDULER",           // split-K is the stream-K scheduler's mode
      fmt::format("STAGES * (TILE_M + TILE_N) * TILE_K * {} <= 184320", in_bytes),  // shared memory
      fmt::format("TILE_K * {} >= 64", in_bytes),  // at least one 64-byte swizzle row per k-tile
      // No tile beyond twice the problem (a 128-row tile stays for a 64-row problem: the cooperative
      // kernel and its stream-K / split-K are what a skinny problem needs).
      fmt::format("TILE_M <= 2 * {} + 64", m),
      fmt::format("TILE_N <= 2 * {} + 64", n),
      fmt::format("TILE_K <= {} + 31", k),
      fmt::format("(SPLIT - 1) * (SPLIT * TILE_K - {}) <= 0", k),  // each split keeps a k-tile
      fmt::format("(SPLIT - 1) * {} * {} <= (SPLIT - 1) * {} * TILE_M * TILE_N", m, n, waves),
  };
  return space;
}

// SIMT or 3xTF32 for f32: block and warp tiles, k-tile, stages, split-K, the f32 path, alignment.
SeedSpace Sm80Space(const GemmOperation& operation, const CutlassSeedOptions& options) {
  const std::string m = Dimension(operation.m);
  const std::string n = Dimension(operation.n);
  const std::string k = Dimension(operation.k);
  SeedSpace space;
  std::vector<Knob>& knobs = space.knobs;
  std::vector<std::string>& restrictions = space.restrictions;
  const std::string waves = std::to_string(2 * options.sm_count);
  knobs = {{"BLOCK_M", "32,64,128,256", "tile_y", 128},
           {"BLOCK_N", "32,64,128,256", "tile_x", 128},
           {"BLOCK_K", "8,16,32", "tile_k", 8},
           {"WARPS_M", "1,2,4", "other", 2},
           {"WARPS_N", "1,2,4", "other", 2},
           {"STAGES", "2,3,4,5,6", "stages", 4},
           {"SPLIT", "1,2,4,8", "split_k", 1},
           {"SWIZZLE", "1,2,4,8", "other", 1}};
  // The default starts on 3xTF32 where it is allowed (about three times the FFMA rate on Hopper's
  // tensor cores, f32-level error): a k-tile of 16 and, where the rows allow, 16-byte loads.
  if (options.allow_3xtf32) {
    knobs.push_back({"F32_PATH", "0,1", "other", 1});
    knobs[2].value = 16;  // BLOCK_K
  }
  std::string path = options.allow_3xtf32 ? "F32_PATH" : "0";
  // 16-byte operand loads where the main size's leading dimensions allow them (3xTF32 only: the
  // SIMT mainloop loads single elements); other sizes take the fallback kernel.
  const int64_t lead_a = operation.transpose_a ? operation.m_value : operation.k_value;
  const int64_t lead_b = operation.transpose_b ? operation.k_value : operation.n_value;
  const bool vectors = options.allow_3xtf32 && lead_a % 4 == 0 && lead_b % 4 == 0;
  knobs.push_back({"ALIGN", vectors ? "1,4" : "1", "vector_width", vectors ? 4 : 1});
  restrictions = {
      "BLOCK_M <= 64 * WARPS_M",  // warp tiles of 32 or 64 rows and columns
      "BLOCK_M >= 32 * WARPS_M",
      "BLOCK_N <= 64 * WARPS_N",
      "BLOCK_N >= 32 * WARPS_N",
      "WARPS_M * WARPS_N <= 8",
      fmt::format("(BLOCK_M / WARPS_M) * (BLOCK_N / WARPS_N) >= 2048 - 1024 * {}",
                  path),  // SIMT: 8x8 per lane
      fmt::format("BLOCK_K >= 8 + 8 * {}",
                  path),  // the tensor-core path's k-step is 8, its tile 16 or more
      fmt::format("BLOCK_K <= 16 + 16 * {}", path),  // SIMT: 8 or 16
      fmt::format("ALIGN <= 1 + 3 * {}", path),
      "STAGES * (BLOCK_M + BLOCK_N) * BLOCK_K * 4 <= 163840",
      fmt::format("BLOCK_M <= 2 * {} + 64", m),
      fmt::format("BLOCK_N <= 2 * {} + 64", n),
      fmt::format("(SPLIT - 1) * (SPLIT * BLOCK_K - {}) <= 0", k),
      fmt::format("(SPLIT - 1) * {} * {} <= (SPLIT - 1) * {} * BLOCK_M * BLOCK_N", m, n, waves),
  };
  if (operation.batch) restrictions.push_back("SPLIT == 1");
  return space;
}

// The values the family's template is filled with.
std::map<std::string, std::string> TemplateValues(const TaskSpec& task, const GemmOperation& operation) {
  // Addressing: leading dimensions of A and B as stored, and the fallback's element strides.
  std::map<std::string, std::string> values;
  values["A"] = operation.a;
  values["B"] = operation.b;
  values["D"] = operation.d;
  values["BIAS"] = operation.bias.empty() ? "static_cast<const float*>(nullptr)" : operation.bias;
  values["M"] = DimensionCode(operation.m);
  values["N"] = DimensionCode(operation.n);
  values["K"] = DimensionCode(operation.k);
  values["BATCH"] = operation.batch ? DimensionCode(*operation.batch) : "int64_t{1}";
  values["A_TYPE"] = std::string(DataTypeCName(operation.input_type));
  values["B_TYPE"] = std::string(DataTypeCName(operation.input_type));
  values["D_TYPE"] = std::string(DataTypeCName(operation.output_type));
  values["BIAS_TYPE"] =
      std::string(DataTypeCName(operation.bias.empty() ? DataType::kF32 : operation.bias_type));
  values["A_CUTLASS"] = CutlassType(operation.input_type);
  values["B_CUTLASS"] = CutlassType(operation.input_type);
  values["D_CUTLASS"] = CutlassType(operation.output_type);
  values["BIAS_CUTLASS"] = CutlassType(operation.bias.empty() ? DataType::kF32 : operation.bias_type);
  values["LAYOUT_A"] = operation.transpose_a ? "cutlass::layout::ColumnMajor" : "cutlass::layout::RowMajor";
  values["LAYOUT_B"] = operation.transpose_b ? "cutlass::layout::ColumnMajor" : "cutlass::layout::RowMajor";
  values["LEAD_A"] = operation.transpose_a ? "m" : "k";
  values["LEAD_B"] = operation.transpose_b ? "k" : "n";
  // The fallback's element strides (RunFallback's m, n, k): A(m, k) = a[m * A_ROW + k * A_COL], B(k, n)
  // likewise.
  values["A_ROW"] = operation.transpose_a ? "1" : "k";
  values["A_COL"] = operation.transpose_a ? "m" : "1";
  values["B_ROW"] = operation.transpose_b ? "1" : "n";
  values["B_COL"] = operation.transpose_b ? "k" : "1";
  values["HAS_BIAS"] = operation.bias.empty() ? "0" : "1";
  values["ACTIVATION"] = ActivationType(operation.activation);
  values["ACTIVATION_CODE"] = ActivationCode(operation.activation);
  values["ALPHA"] = FloatLiteral(operation.alpha);
  values["POST_SCALE"] = FloatLiteral(operation.post_scale);
  values["BIAS_SCALE"] = FloatLiteral(operation.bias_scale);
  // post_scale folds into alpha and the bias (identity or relu with a positive scale: GemmOperation's rule).
  values["EPILOGUE_ALPHA"] = FloatLiteral(operation.alpha * operation.post_scale);
  values["EPILOGUE_BETA"] = FloatLiteral(operation.bias_scale * operation.post_scale);
  values["ENTRY"] = EntryDefinition(task);

  return values;
}

}  // namespace

Result<CutlassGemmSeed> EmitCutlassGemmSeed(const TaskSpec& task, const GemmOperation& operation,
                                            const CutlassSeedOptions& options) {
  CutlassGemmSeed seed;
  KOPT_ASSIGN_OR_RETURN(seed.family, FamilyFor(operation, options));
  seed.file_name = fmt::format("cutlass_gemm_{}.cu", CutlassGemmFamilyName(seed.family));
  SeedSpace space = seed.family == CutlassGemmFamily::kSm90TmaWgmma ? Sm90Space(operation, options)
                                                                    : Sm80Space(operation, options);
  std::string header = fmt::format(
      "// kopt builtin generator, GEMM path ({}): {}.\n"
      "// Emitted by agents/cutlass_gemm_seed.cc for task {}; the knobs are CUTLASS's template\n"
      "// parameters, tuned by the builtin generator (docs/tuning.md \"GEMM tasks\").\n",
      CutlassGemmFamilyName(seed.family), operation.Describe(), task.name);
  std::string body = seed.family == CutlassGemmFamily::kSm90TmaWgmma ? kSm90 : kSm80F32;
  body = Fill(body, {{"COMMON", kCommon}});
  seed.source =
      header + KnobLines(space.knobs, space.restrictions) + Fill(body, TemplateValues(task, operation));
  seed.notes.push_back(fmt::format("builtin generator: {}; CUTLASS family {} ({} knobs)",
                                   operation.Describe(), CutlassGemmFamilyName(seed.family),
                                   space.knobs.size()));
  if (seed.family == CutlassGemmFamily::kSm80F32 && options.allow_3xtf32) {
    seed.notes.push_back(
        "builtin generator: F32_PATH=1 (3xTF32: f32 operands split into TF32 high and low parts, three "
        "tensor-core products; f32-level error) is a knob beside SIMT FFMA; every configuration is checked");
  }
  return seed;
}

}  // namespace kopt::agents
