#include "agents/cutlass_gemm_seed.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <random>

#include "agents/builtin_generator.h"
#include "core/file_io.h"
#include "core/subprocess.h"
#include "harness/compiler.h"
#include "harness/cutlass_tree.h"
#include "harness/tuning_space.h"

namespace kopt::agents {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

// A GEMM task: A [M, K], B [K, N] of `dtype`, C [M, N] f32.
TaskSpec GemmTask(const std::string& dtype, int m, int n, int k) {
  std::string text = fmt::format(R"([task]
name = "g"
entry = "gemm"

[[scalar]]
name = "M"
type = "i32"
value = {}

[[scalar]]
name = "N"
type = "i32"
value = {}

[[scalar]]
name = "K"
type = "i32"
value = {}

[[tensor]]
name = "A"
dtype = "{}"
shape = ["M", "K"]
role = "input"

[[tensor]]
name = "B"
dtype = "{}"
shape = ["K", "N"]
role = "input"

[[tensor]]
name = "C"
dtype = "f32"
shape = ["M", "N"]
role = "output"
)",
                                 m, n, k, dtype, dtype);
  Result<TaskSpec> task = ParseTaskToml(text, "task.toml");
  EXPECT_TRUE(task.ok()) << task.status().message();
  return *task;
}

GemmOperation Operation(const TaskSpec& task) {
  Result<std::optional<GemmOperation>> operation = RecognizeGemm(task, "", "task.toml");
  EXPECT_TRUE(operation.ok() && operation->has_value());
  return **operation;
}

TuningSpace SpaceOf(const TaskSpec& task, const CutlassGemmSeed& seed) {
  Result<TuningSpace> space = TuningSpace::FromSource(seed.source, seed.file_name, TaskScalarValues(task));
  EXPECT_TRUE(space.ok()) << space.status().message();
  return *space;
}

int64_t ValueOf(const TuningSpace& space, const Configuration& configuration, std::string_view name) {
  return configuration[*space.declarations().Find(name)];
}

TEST(CutlassGemmSeedTest, Bf16TasksGetTheSm90TmaWgmmaFamily) {
  TaskSpec task = GemmTask("bf16", 4096, 4096, 4096);
  Result<CutlassGemmSeed> seed = EmitCutlassGemmSeed(task, Operation(task), CutlassSeedOptions{});
  ASSERT_TRUE(seed.ok()) << seed.status().message();
  EXPECT_EQ(seed->family, CutlassGemmFamily::kSm90TmaWgmma);
  EXPECT_EQ(seed->file_name, "cutlass_gemm_sm90_tma_wgmma.cu");
  EXPECT_THAT(seed->source, HasSubstr("cutlass::gemm::KernelTmaWarpSpecializedCooperative"));
  EXPECT_THAT(seed->source, HasSubstr("using ElementA = cutlass::bfloat16_t;"));
  EXPECT_THAT(seed->source, HasSubstr("cutlass::gemm::StreamKScheduler"));
  EXPECT_THAT(
      seed->source,
      HasSubstr("extern \"C\" void gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, "
                "int N, int K, cudaStream_t stream) {"));
  EXPECT_THAT(seed->source, Not(HasSubstr("@")));  // every placeholder filled
  TuningSpace space = SpaceOf(task, *seed);
  EXPECT_EQ(space.dimensions(), 11u);
  Configuration fallback = space.Default();
  EXPECT_EQ(space.Describe(fallback),
            "TILE_M=128 TILE_N=256 TILE_K=64 CLUSTER_M=2 CLUSTER_N=1 STAGES=0 SCHEDULE=2 SCHEDULER=0 SPLIT=1 "
            "RASTER=0 SWIZZLE=1");
  // The schedules' rules hold for every configuration the space keeps, and pruning removed most.
  std::vector<Configuration> valid = space.Enumerate(1u << 20);
  EXPECT_LT(valid.size(), space.CartesianSize() / 2);
  EXPECT_GT(valid.size(), 1000u);
  for (const Configuration& configuration : valid) {
    int64_t schedule = ValueOf(space, configuration, "SCHEDULE");
    if (schedule == 2) {
      EXPECT_GE(ValueOf(space, configuration, "TILE_M"), 128);
    } else {
      EXPECT_EQ(ValueOf(space, configuration, "SCHEDULER"), 0);
    }
    if (ValueOf(space, configuration, "SPLIT") > 1) {
      EXPECT_EQ(ValueOf(space, configuration, "SCHEDULER"), 1);
    }
    EXPECT_LE(ValueOf(space, configuration, "TILE_M") * ValueOf(space, configuration, "TILE_N"),
              16384 * schedule);
  }
  // 4096^2 fills many waves: no split-K is left to try.
  for (const Configuration& configuration : valid) EXPECT_EQ(ValueOf(space, configuration, "SPLIT"), 1);
}

TEST(CutlassGemmSeedTest, F32TasksGetTheSm80FamilyWithTf32Off) {
  TaskSpec task = GemmTask("f32", 2048, 2048, 2048);
  Result<CutlassGemmSeed> seed = EmitCutlassGemmSeed(task, Operation(task), CutlassSeedOptions{});
  ASSERT_TRUE(seed.ok()) << seed.status().message();
  EXPECT_EQ(seed->family, CutlassGemmFamily::kSm80F32);
  EXPECT_THAT(seed->source, HasSubstr("cutlass::arch::OpClassSimt"));
  EXPECT_THAT(seed->source, HasSubstr("cutlass::arch::OpMultiplyAddFastF32"));  // 3xTF32, never 1xTF32
  EXPECT_THAT(seed->source, Not(HasSubstr("OpMultiplyAddFastF16")));
  TuningSpace space = SpaceOf(task, *seed);
  EXPECT_EQ(
      space.Describe(space.Default()),
      "BLOCK_M=128 BLOCK_N=128 BLOCK_K=16 WARPS_M=2 WARPS_N=2 STAGES=4 SPLIT=1 SWIZZLE=1 F32_PATH=1 ALIGN=4");
  for (const Configuration& configuration : space.Enumerate(1u << 20)) {
    int64_t path = ValueOf(space, configuration, "F32_PATH");
    int64_t warp_m = ValueOf(space, configuration, "BLOCK_M") / ValueOf(space, configuration, "WARPS_M");
    int64_t warp_n = ValueOf(space, configuration, "BLOCK_N") / ValueOf(space, configuration, "WARPS_N");
    EXPECT_TRUE(warp_m == 32 || warp_m == 64);
    EXPECT_TRUE(warp_n == 32 || warp_n == 64);
    if (path == 0) {
      EXPECT_GE(warp_m * warp_n, 2048);
      EXPECT_EQ(ValueOf(space, configuration, "ALIGN"), 1);
    } else {
      EXPECT_GE(ValueOf(space, configuration, "BLOCK_K"), 16);
    }
  }
  CutlassSeedOptions simt_only;
  simt_only.allow_3xtf32 = false;
  Result<CutlassGemmSeed> strict = EmitCutlassGemmSeed(task, Operation(task), simt_only);
  ASSERT_TRUE(strict.ok());
  TuningSpace strict_space = SpaceOf(task, *strict);
  EXPECT_EQ(strict_space.dimensions(), 9u);  // no F32_PATH; ALIGN only 1
  EXPECT_EQ(strict_space.Describe(strict_space.Default()),
            "BLOCK_M=128 BLOCK_N=128 BLOCK_K=8 WARPS_M=2 WARPS_N=2 STAGES=4 SPLIT=1 SWIZZLE=1 ALIGN=1");
  // Leading dimensions that are not multiples of 4: no vector loads to try.
  TaskSpec odd = GemmTask("f32", 1000, 777, 333);
  Result<CutlassGemmSeed> unaligned = EmitCutlassGemmSeed(odd, Operation(odd), CutlassSeedOptions{});
  ASSERT_TRUE(unaligned.ok());
  EXPECT_THAT(unaligned->source, HasSubstr("// kopt:tune ALIGN values=1 role=vector_width"));
}

TEST(CutlassGemmSeedTest, TheProblemShapePrunesTilesAndSplits) {
  // A skinny problem: 64 x 64 output tiles, a long K: split-K is worth trying, big tiles are not.
  TaskSpec task = GemmTask("bf16", 64, 64, 8192);
  Result<CutlassGemmSeed> seed = EmitCutlassGemmSeed(task, Operation(task), CutlassSeedOptions{});
  ASSERT_TRUE(seed.ok());
  TuningSpace space = SpaceOf(task, *seed);
  bool split = false;
  for (const Configuration& configuration : space.Enumerate(1u << 20)) {
    EXPECT_LE(ValueOf(space, configuration, "TILE_N"), 2 * 64 + 64);
    split = split || ValueOf(space, configuration, "SPLIT") > 1;
  }
  EXPECT_TRUE(split);
}

// The pruning never empties a space: a 1 x 1 x 1 problem keeps configurations in every family.
TEST(CutlassGemmSeedTest, TinyProblemsKeepConfigurations) {
  for (const char* dtype : {"bf16", "f32"}) {
    for (bool tf32 : {true, false}) {
      TaskSpec task = GemmTask(dtype, 1, 1, 1);
      CutlassSeedOptions options;
      options.allow_3xtf32 = tf32;
      Result<CutlassGemmSeed> seed = EmitCutlassGemmSeed(task, Operation(task), options);
      ASSERT_TRUE(seed.ok()) << seed.status().message();
      Result<TuningSpace> space =
          TuningSpace::FromSource(seed->source, seed->file_name, TaskScalarValues(task));
      ASSERT_TRUE(space.ok()) << dtype << ": " << space.status().message();
      EXPECT_FALSE(space->Enumerate(1u << 20).empty());
    }
  }
}

TEST(CutlassGemmSeedTest, FusedEpilogueAndLayouts) {
  TaskSpec task = GemmTask("f32", 128, 64, 256);
  GemmOperation operation = Operation(task);
  operation.bias = "A";  // any input name: only the text is checked here
  operation.activation = GemmActivation::kRelu;
  operation.post_scale = 0.5;
  operation.transpose_b = true;
  Result<CutlassGemmSeed> seed = EmitCutlassGemmSeed(task, operation, CutlassSeedOptions{});
  ASSERT_TRUE(seed.ok());
  EXPECT_THAT(seed->source, HasSubstr("using ActivationFn = cutlass::epilogue::thread::ReLu<T>;"));
  EXPECT_THAT(seed->source,
              HasSubstr("float, cutlass::layout::RowMajor, float, cutlass::layout::ColumnMajor"));
  EXPECT_THAT(seed->source, HasSubstr("const float beta = bias != nullptr ? 0.5f : 0.0f;"));
  EXPECT_THAT(seed->source, HasSubstr("value = fmaxf(value, 0.0f);"));
}

TEST(CutlassGemmSeedTest, UncoveredOperationsAreRefused) {
  TaskSpec task = GemmTask("bf16", 256, 256, 256);
  CutlassSeedOptions ampere;
  ampere.architecture = "sm_80";
  Result<CutlassGemmSeed> seed = EmitCutlassGemmSeed(task, Operation(task), ampere);
  ASSERT_FALSE(seed.ok());
  EXPECT_THAT(seed.status().message(), HasSubstr("targets sm_90a"));
}

// The builtin generator tunes the emitted seed like any tunable candidate,
// and hands out the moves after the served one for compiling ahead.
TEST(CutlassGemmSeedTest, TheBuiltinGeneratorTunesIt) {
  TaskSpec task = GemmTask("bf16", 4096, 4096, 4096);
  Result<CutlassGemmSeed> seed = EmitCutlassGemmSeed(task, Operation(task), CutlassSeedOptions{});
  ASSERT_TRUE(seed.ok());
  BuiltinGeneratorSettings settings;
  settings.compile_ahead = 3;
  Result<std::unique_ptr<BuiltinGenerator>> generator =
      MakeBuiltinGenerator({{seed->file_name, seed->source}}, TaskScalarValues(task), settings);
  ASSERT_TRUE(generator.ok()) << generator.status().message();
  GenerationRequest initial;
  initial.node_id = 1;
  Result<GeneratedCandidate> first = (*generator)->Generate(initial);
  ASSERT_TRUE(first.ok());
  EXPECT_THAT(first->reason, HasSubstr("default configuration"));
  GenerationRequest optimize;
  optimize.mode = GenerationMode::kOptimize;
  optimize.node_id = 2;
  optimize.parent_id = 1;
  optimize.parent_source = first->source;
  optimize.finding_ids = {"low_occupancy_shared_memory"};
  Result<GeneratedCandidate> second = (*generator)->Generate(optimize);
  ASSERT_TRUE(second.ok());
  EXPECT_THAT(second->reason, HasSubstr("low_occupancy_shared_memory"));
  EXPECT_EQ(second->compile_ahead.size(), 3u);
  for (const std::string& ahead : second->compile_ahead) EXPECT_NE(ahead, second->source);
}

// One emitted candidate compiles with nvcc against the nvidia-cutlass wheel's
// headers (skipped without nvcc or the wheel): the f32 family's default
// (3xTF32; at 1000 x 777 x 333 with single-element loads), the quicker of the
// two families (about 15 s of CPU; the sm90 family takes about 50 s).
TEST(CutlassGemmSeedTest, TheDefaultF32CandidateCompilesWithNvcc) {
  std::unique_ptr<CommandRunner> runner = MakeSystemCommandRunner();
  Result<std::string> nvcc = FindNvcc(*runner, std::getenv("KOPT_NVCC"));
  if (!nvcc.ok() || !fs::exists(*nvcc)) GTEST_SKIP() << "no nvcc";
  Result<CutlassTree> tree = LocateCutlass(kCutlassFromPip, *runner);
  if (!tree.ok()) GTEST_SKIP() << "no nvidia-cutlass wheel: " << tree.status().message();
  TaskSpec task = GemmTask("f32", 1000, 777, 333);
  Result<CutlassGemmSeed> seed = EmitCutlassGemmSeed(task, Operation(task), CutlassSeedOptions{});
  ASSERT_TRUE(seed.ok());
  TuningSpace space = SpaceOf(task, *seed);
  fs::path directory =
      fs::temp_directory_path() / fmt::format("kopt_cutlass_seed_{}", std::random_device{}());
  fs::create_directories(directory);
  std::string path = (directory / "candidate.cu").string();
  ASSERT_TRUE(WriteFileAtomically(path, space.Materialize(space.Default())).ok());
  CompilerOptions options;
  options.architecture = "sm_90a";
  options.cache_directory = (directory / "cache").string();
  options.extra_flags = IncludeFlags(tree->include_directories);
  options.nvcc_path = *nvcc;
  Result<std::unique_ptr<Compiler>> compiler = Compiler::Create(*runner, options);
  ASSERT_TRUE(compiler.ok()) << compiler.status().message();
  Result<CompileResult> compiled = (*compiler)->Compile(task, path);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  EXPECT_TRUE(compiled->Ok()) << compiled->message << "\n" << compiled->compiler_output.substr(0, 4000);
  RecordProperty("compile_seconds", std::to_string(compiled->compile_seconds));
  std::error_code ignored;
  fs::remove_all(directory, ignored);
}

}  // namespace
}  // namespace kopt::agents
