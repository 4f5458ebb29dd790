#include "harness/task_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/task_spec_test_util.h"

namespace kopt {
namespace {

using ::testing::HasSubstr;

// Lines: 1 [task], 5 [[scalar]], 8 value, 10 [[tensor]] x (12 dtype, 13 shape, 14 role), 16 [[tensor]] y.
constexpr std::string_view kMinimalTask = R"([task]
name = "scale"
entry = "scale"

[[scalar]]
name = "n"
type = "i32"
value = 1024

[[tensor]]
name = "x"
dtype = "f32"
shape = ["n"]
role = "input"

[[tensor]]
name = "y"
dtype = "f32"
shape = ["n"]
role = "output"
)";

constexpr std::string_view kGemmTask = kFullTaskToml;

std::string Replace(std::string_view text, std::string_view from, std::string_view to) {
  std::string result(text);
  size_t at = result.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) result.replace(at, from.size(), to);
  return result;
}

// The error message of parsing `text` as t.toml (the test fails when it parses).
std::string ErrorOf(std::string_view text) {
  Result<TaskSpec> task = ParseTaskToml(text, "t.toml");
  EXPECT_FALSE(task.ok()) << "parsed without error:\n" << text;
  return task.ok() ? "" : task.status().message();
}

TEST(TaskSpecTest, PolicyAllowNamesConstructs) {
  Result<TaskSpec> task = ParseTaskToml(
      std::string(kMinimalTask) + "\n[policy]\nallow = [\"threads\", \"host_wait\"]\n", "t.toml");
  ASSERT_TRUE(task.ok()) << task.status().message();
  EXPECT_EQ(task->policy_allow, (PolicyAllowance{PolicyConstruct::kThreads, PolicyConstruct::kHostWait}));
  EXPECT_TRUE(ParseTaskToml(kMinimalTask, "t.toml")->policy_allow.empty());
  std::string unknown = ErrorOf(std::string(kMinimalTask) + "\n[policy]\nallow = [\"thread\"]\n");
  EXPECT_NE(unknown.find(
                "t.toml:23: policy.allow: \"thread\" is not a policy construct; expected one of: threads,"),
            std::string::npos)
      << unknown;
  EXPECT_NE(
      ErrorOf(std::string(kMinimalTask) + "\n[policy]\nallowed = []\n").find("policy.allowed: unknown key"),
      std::string::npos);
  EXPECT_NE(ErrorOf(std::string(kMinimalTask) + "\n[policy]\nallow = \"threads\"\n").find("must be an array"),
            std::string::npos);
}

TEST(TaskSpecTest, MinimalTaskResolves) {
  Result<TaskSpec> task = ParseTaskToml(kMinimalTask, "t.toml");
  ASSERT_TRUE(task.ok()) << task.status().message();
  ASSERT_EQ(task->tensors.size(), 2u);
  EXPECT_EQ(task->tensors[0].shape, std::vector<int64_t>{1024});
  EXPECT_EQ(task->tensors[0].bytes, 4096);
  EXPECT_EQ(task->tensors[0].init.kind, InitKind::kNormal);
  EXPECT_EQ(task->tensors[0].init.mean, 0);
  EXPECT_EQ(task->tensors[0].init.stddev, 1);
  EXPECT_EQ(task->tensors[1].init.kind, InitKind::kNone);
  EXPECT_EQ(task->TotalTensorBytes(), 8192);
  EXPECT_EQ(task->min_bytes, 8192);
  EXPECT_FALSE(task->flops.has_value());
  EXPECT_EQ(task->check_seeds, 3);
  EXPECT_EQ(task->ToleranceFor(DataType::kF32).rtol, 1e-4);
  EXPECT_EQ(task->ToleranceFor(DataType::kF32).atol, 1e-5);
  EXPECT_EQ(EntryPrototype(*task),
            "extern \"C\" void scale(const float* x, float* y, int n, cudaStream_t stream);");
}

TEST(TaskSpecTest, FullTaskResolvesShapesBytesAndDefaults) {
  Result<TaskSpec> task = ParseTaskToml(kGemmTask, "t.toml");
  ASSERT_TRUE(task.ok()) << task.status().message();
  EXPECT_EQ(task->entry, "gemm");
  EXPECT_EQ(task->description, "C = A * B");
  EXPECT_EQ(task->tensors[0].shape, (std::vector<int64_t>{256, 64}));
  EXPECT_EQ(task->tensors[1].bytes, 64 * 128 * 2);
  EXPECT_EQ(task->tensors[4].shape, std::vector<int64_t>{});
  EXPECT_EQ(task->tensors[4].bytes, 1);
  EXPECT_EQ(task->tensors[0].init.kind, InitKind::kHeavyTailed);
  EXPECT_EQ(task->tensors[0].init.alpha, 2.5);
  EXPECT_EQ(task->tensors[0].init.scale, 1);
  EXPECT_EQ(task->tensors[1].init.low, -2);
  EXPECT_EQ(task->tensors[2].init.kind, InitKind::kIntRange);
  EXPECT_EQ(task->tensors[2].init.integer_high, 100);
  EXPECT_EQ(task->tensors[3].init.kind, InitKind::kZeros);
  ASSERT_TRUE(task->flops.has_value());
  EXPECT_DOUBLE_EQ(*task->flops, 2.0 * 256 * 128 * 64);
  EXPECT_DOUBLE_EQ(task->min_bytes, 4.0 * (256 * 64 + 64 * 128 + 256 * 128));
  EXPECT_EQ(task->ToleranceFor(DataType::kF32).rtol, 1e-3);
  EXPECT_EQ(task->ToleranceFor(DataType::kF32).atol, 1e-5);  // default kept
  EXPECT_EQ(task->ToleranceFor(DataType::kBF16).atol, 5e-2);
  EXPECT_EQ(task->ToleranceFor(DataType::kI32).rtol, 0);
  EXPECT_EQ(task->check_seeds, 5);
  EXPECT_EQ(EntryPrototype(*task),
            "extern \"C\" void gemm(const float* A, const __nv_bfloat16* B, const int32_t* idx, float* C, "
            "uint8_t* D, "
            "int M, int N, int64_t K, float alpha, cudaStream_t stream);");
}

TEST(TaskSpecTest, VariantsResolveTheirOwnShapes) {
  Result<TaskSpec> task = ParseTaskToml(kGemmTask, "t.toml");
  ASSERT_TRUE(task.ok()) << task.status().message();
  ASSERT_EQ(task->variants.size(), 2u);
  const VariantSpec& first = task->variants[0];
  EXPECT_EQ(first.shapes[0], (std::vector<int64_t>{1000, 64}));
  EXPECT_EQ(first.shapes[3], (std::vector<int64_t>{1000, 3}));
  EXPECT_EQ(first.scalars[0].integer_value, 1000);
  EXPECT_DOUBLE_EQ(*first.flops, 2.0 * 1000 * 3 * 64);
  EXPECT_EQ(first.total_bytes, 1000 * 64 * 4 + 64 * 3 * 2 + 16 * 4 + 1000 * 3 * 4 + 1);
  EXPECT_EQ(task->variants[1].scalars[3].real_value, 2.0);
  EXPECT_EQ(task->PeakTensorBytes(), std::max(first.total_bytes, task->TotalTensorBytes()));

  Result<VariantSpec> huge = ResolveVariant(*task, {{"M", 2000000000.0}, {"K", 1000000000.0}}, "here");
  ASSERT_TRUE(huge.ok()) << huge.status().message();
  EXPECT_EQ(huge->total_bytes, int64_t{2000000000} * 1000000000 * 4 + int64_t{1000000000} * 128 * 2 + 16 * 4 +
                                   int64_t{2000000000} * 128 * 4 + 1);
  Result<VariantSpec> overflow = ResolveVariant(*task, {{"M", 2000000000.0}, {"K", 3000000000.0}}, "here");
  ASSERT_FALSE(overflow.ok());
  EXPECT_THAT(overflow.status().message(),
              HasSubstr("here: tensor \"A\" shape: 6000000000000000000 elements of f32 "
                        "overflow a 64-bit byte count"));
  Result<VariantSpec> bad = ResolveVariant(*task, {{"M", 0.0}}, "here");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("here: tensor \"A\" shape: dimension 1 (M) is 0"));
  Result<VariantSpec> fractional = ResolveVariant(*task, {{"M", 2.5}}, "here");
  ASSERT_FALSE(fractional.ok());
  EXPECT_THAT(fractional.status().message(), HasSubstr("M = 2.5 is not a i32 value"));
}

TEST(TaskSpecTest, JsonRoundTripKeepsTheRunnerFields) {
  Result<TaskSpec> task = ParseTaskToml(kGemmTask, "t.toml");
  ASSERT_TRUE(task.ok()) << task.status().message();
  nlohmann::json json = task->ToJson();
  EXPECT_EQ(json["tensors"][0]["init"],
            (nlohmann::json{{"kind", "heavy_tailed"}, {"alpha", 2.5}, {"scale", 1.0}}));
  EXPECT_EQ(json["tensors"][2]["init"], (nlohmann::json{{"kind", "int_range"}, {"low", 0}, {"high", 100}}));
  EXPECT_EQ(json["tensors"][4]["init"], (nlohmann::json{{"kind", "none"}}));
  EXPECT_EQ(json["tensors"][1]["shape"], (nlohmann::json{64, 128}));
  EXPECT_EQ(json["scalars"][2], (nlohmann::json{{"name", "K"}, {"type", "i64"}, {"value", 64}}));
  EXPECT_EQ(json["tolerances"]["u8"], (nlohmann::json{{"rtol", 0.0}, {"atol", 0.0}}));
  EXPECT_EQ(json["tolerances"].size(), 7u);

  Result<TaskSpec> back = TaskSpec::FromJson(json, "request.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->ToJson(), json);
  EXPECT_EQ(back->tensors[1].bytes, task->tensors[1].bytes);
  EXPECT_EQ(EntryPrototype(*back), EntryPrototype(*task));

  nlohmann::json variants = task->VariantsToJson();
  ASSERT_EQ(variants.size(), 2u);
  EXPECT_EQ(variants[0]["shapes"]["C"], (nlohmann::json{1000, 3}));
  EXPECT_EQ(variants[0]["scalars"]["M"], 1000);
  EXPECT_EQ(variants[1]["scalars"]["alpha"], 2.0);
}

TEST(TaskSpecTest, FromJsonRejectsMalformedObjects) {
  nlohmann::json json = ParseTaskToml(kMinimalTask, "t.toml")->ToJson();
  json["tensors"][0]["dtype"] = "f128";
  Result<TaskSpec> bad = TaskSpec::FromJson(json, "request.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("request.json: task: \"f128\" is not a dtype"));
  Result<TaskSpec> missing = TaskSpec::FromJson(nlohmann::json{{"name", "x"}}, "request.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("request.json: task:"));
  json = ParseTaskToml(kMinimalTask, "t.toml")->ToJson();
  json["tensors"][0]["shape"] = nlohmann::json{0};
  EXPECT_FALSE(TaskSpec::FromJson(json, "request.json").ok());
}

TEST(TaskSpecErrorTest, TomlSyntaxErrorNamesLineAndColumn) {
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "value = 1024", "value = = 1024")), HasSubstr("t.toml:8:"));
}

TEST(TaskSpecErrorTest, UnknownKeysSuggestTheNearestKey) {
  EXPECT_EQ(
      ErrorOf(Replace(kMinimalTask, "dtype = \"f32\"", "dtyp = \"f32\"")),
      "t.toml:12: tensor[1].dtyp: unknown key (did you mean \"dtype\"?); expected one of: name dtype shape "
      "role init");
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "entry = ", "entri = ")),
              HasSubstr("t.toml:3: task.entri: unknown key (did you mean \"entry\"?)"));
  EXPECT_THAT(ErrorOf(std::string(kMinimalTask) + "[tolerances]\nf32 = { rtol = 1 }\n"),
              HasSubstr("t.toml:21: tolerances: unknown key (did you mean \"tolerance\"?)"));
  EXPECT_THAT(ErrorOf(std::string(kMinimalTask) + "[tolerance]\nf32 = { rtol = 1, atoll = 2 }\n"),
              HasSubstr("t.toml:22: tolerance.f32.atoll: unknown key (did you mean \"atol\"?)"));
  EXPECT_THAT(ErrorOf(std::string(kMinimalTask) + "[check]\nsead = 2\n"),
              HasSubstr("t.toml:22: check.sead: unknown key"));
  EXPECT_THAT(ErrorOf(std::string(kMinimalTask) + "[[variant]]\nN = 2\n"),
              HasSubstr("t.toml:22: variant[1].N: unknown key (did you mean \"n\"?); expected one of: n"));
  EXPECT_THAT(ErrorOf(std::string(kMinimalTask) + "[tolerance]\ni32 = { rtol = 1 }\n"),
              HasSubstr("tolerance.i32: unknown key"));
}

TEST(TaskSpecErrorTest, MissingRequiredKeysNameTheTable) {
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "entry = \"scale\"\n", "")),
              HasSubstr("t.toml:1: task.entry: missing; this key is required"));
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "role = \"output\"\n", "")),
              HasSubstr("t.toml:16: tensor[2].role: missing"));
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "[task]\n", "[tasks]\n")),
              HasSubstr("t.toml:1: tasks: unknown key"));
}

TEST(TaskSpecErrorTest, BadDtypeRoleInitKindAndScalarType) {
  EXPECT_EQ(
      ErrorOf(Replace(kMinimalTask, "dtype = \"f32\"", "dtype = \"fp32\"")),
      "t.toml:12: tensor[1].dtype: \"fp32\" is not a dtype (did you mean \"f32\"?); expected one of: f64 f32 "
      "f16 bf16 i64 i32 u8");
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "role = \"input\"", "role = \"inptu\"")),
              HasSubstr("t.toml:14: tensor[1].role: \"inptu\" is not a role (did you mean \"input\"?)"));
  EXPECT_THAT(
      ErrorOf(Replace(kMinimalTask, "role = \"input\"", "role = \"input\"\ninit = { kind = \"gauss\" }")),
      HasSubstr("t.toml:15: tensor[1].init.kind: \"gauss\" is not an initialiser; expected one of: normal "
                "uniform heavy_tailed int_range zeros ones"));
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "type = \"i32\"", "type = \"int\"")),
              HasSubstr("t.toml:7: scalar[1].type: \"int\" is not a scalar type"));
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "dtype = \"f32\"", "dtype = 4")),
              HasSubstr("t.toml:12: tensor[1].dtype: must be a string"));
}

TEST(TaskSpecErrorTest, InitParametersAreChecked) {
  auto with_init = [](std::string_view init) {
    return Replace(kMinimalTask, "role = \"input\"", "role = \"input\"\ninit = " + std::string(init));
  };
  EXPECT_THAT(ErrorOf(with_init("{ kind = \"normal\", stdev = 2 }")),
              HasSubstr("t.toml:15: tensor[1].init.stdev: unknown key (did you mean \"stddev\"?)"));
  EXPECT_THAT(ErrorOf(with_init("{ kind = \"normal\", stddev = 0 }")),
              HasSubstr("t.toml:15: tensor[1].init: normal needs stddev > 0"));
  EXPECT_THAT(ErrorOf(with_init("{ kind = \"uniform\", low = 1, high = 1 }")),
              HasSubstr("uniform needs high > low"));
  EXPECT_THAT(ErrorOf(with_init("{ kind = \"heavy_tailed\", alpha = -1 }")), HasSubstr("alpha > 0"));
  EXPECT_THAT(ErrorOf(with_init("{ kind = \"int_range\", low = 0.5 }")),
              HasSubstr("tensor[1].init.low: must be an integer for int_range"));
  EXPECT_THAT(ErrorOf(with_init("\"normal\"")), HasSubstr("tensor[1].init: must be an inline table"));
  std::string integer_tensor = Replace(kMinimalTask, "dtype = \"f32\"", "dtype = \"u8\"");
  EXPECT_THAT(
      ErrorOf(Replace(integer_tensor, "role = \"input\"", "role = \"input\"\ninit = { kind = \"normal\" }")),
      HasSubstr("normal is for floating dtypes; a u8 tensor takes int_range, zeros or ones"));
  EXPECT_THAT(ErrorOf(Replace(integer_tensor, "role = \"input\"",
                              "role = \"input\"\ninit = { kind = \"int_range\", low = 0, high = 300 }")),
              HasSubstr("int_range for u8 must stay within 0..255"));
}

TEST(TaskSpecErrorTest, OutputWithInitIsRefused) {
  EXPECT_THAT(
      ErrorOf(Replace(kMinimalTask, "role = \"output\"", "role = \"output\"\ninit = { kind = \"zeros\" }")),
      HasSubstr("t.toml:21: tensor[2].init: an output tensor takes no init"));
}

TEST(TaskSpecErrorTest, ShapesAreChecked) {
  EXPECT_EQ(ErrorOf(Replace(kMinimalTask, "shape = [\"n\"]", "shape = [\"m\"]")),
            "t.toml:13: tensor[1].shape: \"m\" is not an integer scalar of the task (did you mean \"n\"?); "
            "expected "
            "a positive integer or one of: n");
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "shape = [\"n\"]", "shape = [4, 0]")),
              HasSubstr("t.toml:13: tensor[1].shape: dimension 2 is 0; dimensions must be positive"));
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "value = 1024", "value = -3")),
              HasSubstr("t.toml:13: tensor[1].shape: dimension 1 is n = -3; dimensions must be positive"));
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "type = \"i32\"\nvalue = 1024", "type = \"f32\"\nvalue = 4.0")),
              HasSubstr("t.toml:13: tensor[1].shape: \"n\" is not an integer scalar of the task"));
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "shape = [\"n\"]", "shape = \"n\"")),
              HasSubstr("t.toml:13: tensor[1].shape: must be a list"));
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "shape = [\"n\"]", "shape = [1.5]")),
              HasSubstr("each dimension must be a positive integer"));
}

TEST(TaskSpecErrorTest, SizesThatOverflowAreRefused) {
  std::string huge = Replace(kMinimalTask, "shape = [\"n\"]", "shape = [4611686018427387904, \"n\"]");
  EXPECT_THAT(ErrorOf(huge), HasSubstr("t.toml:13: tensor[1].shape: the element count overflows 64 bits"));
  std::string bytes = Replace(kMinimalTask, "shape = [\"n\"]", "shape = [4611686018427387904]");
  EXPECT_THAT(ErrorOf(bytes),
              HasSubstr("t.toml:13: tensor[1].shape: 4611686018427387904 elements of f32 overflow"));
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "value = 1024", "value = 3000000000")),
              HasSubstr("t.toml:8: scalar[1].value: 3000000000 does not fit in i32; use type = \"i64\""));
  std::string variant = std::string(kMinimalTask) + "[[variant]]\nn = 0\n";
  EXPECT_THAT(ErrorOf(variant), HasSubstr("t.toml:21: variant[1]: tensor \"x\" shape: dimension 1 (n) is 0"));
}

TEST(TaskSpecErrorTest, EntryAndNamesAreChecked) {
  EXPECT_THAT(
      ErrorOf(Replace(kMinimalTask, "entry = \"scale\"", "entry = \"my-kernel\"")),
      HasSubstr("t.toml:3: task.entry: \"my-kernel\" is not a usable entry point; expected a C identifier"));
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "entry = \"scale\"", "entry = \"kopt_launch\"")),
              HasSubstr("not starting with kopt_"));
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "entry = \"scale\"", "entry = \"float\"")),
              HasSubstr("not a usable entry point"));
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "name = \"y\"", "name = \"x\"")),
              HasSubstr("t.toml:17: tensor[2].name: \"x\" is declared twice"));
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "name = \"y\"", "name = \"n\"")),
              HasSubstr("\"n\" is declared twice"));
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "name = \"y\"", "name = \"stream\"")),
              HasSubstr("t.toml:17: tensor[2].name: \"stream\" is not a usable name"));
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "name = \"scale\"", "name = \"a b\"")),
              HasSubstr("t.toml:2: task.name: \"a b\" is not a task name"));
}

TEST(TaskSpecErrorTest, TensorsMustIncludeAnOutput) {
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "role = \"output\"", "role = \"input\"")),
              HasSubstr("t.toml:10: tensor: no tensor has role output or inout"));
  EXPECT_THAT(ErrorOf("[task]\nname = \"a\"\nentry = \"a\"\n"),
              HasSubstr("t.toml:1: tensor: a task needs at least"));
  EXPECT_THAT(ErrorOf("tensor = 3\n[task]\nname = \"a\"\nentry = \"a\"\n"),
              HasSubstr("t.toml:1: tensor: must be an array of tables, written [[tensor]]"));
}

TEST(TaskSpecErrorTest, ExpressionsAndCheckAreChecked) {
  EXPECT_THAT(
      ErrorOf(Replace(kMinimalTask, "entry = \"scale\"", "entry = \"scale\"\nflops = \"2*n*m\"")),
      HasSubstr(
          "t.toml:4: task.flops: expression \"2*n*m\": at column 5: \"m\" is not a scalar of the task"));
  EXPECT_THAT(
      ErrorOf(Replace(kMinimalTask, "entry = \"scale\"", "entry = \"scale\"\nmin_bytes = \"(n\"")),
      HasSubstr("t.toml:4: task.min_bytes: expression \"(n\": at column 3: found the end; expected ')'"));
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "entry = \"scale\"", "entry = \"scale\"\nflops = true")),
              HasSubstr("task.flops: must be a number or a string expression"));
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "entry = \"scale\"", "entry = \"scale\"\nflops = \"-n\"")),
              HasSubstr("t.toml:4: task.flops: \"-n\" gives -1024; expected a finite number >= 0"));
  EXPECT_THAT(ErrorOf(Replace(kMinimalTask, "entry = \"scale\"", "entry = \"scale\"\nflops = \"1e308*10\"")),
              HasSubstr("expected a finite number"));
  EXPECT_THAT(ErrorOf(std::string(kMinimalTask) + "[check]\nseeds = 0\n"),
              HasSubstr("t.toml:22: check.seeds: must be an integer from 1 to 100"));
  std::string numeric =
      Replace(kMinimalTask, "entry = \"scale\"", "entry = \"scale\"\nflops = 1e9\nmin_bytes = 8");
  Result<TaskSpec> task = ParseTaskToml(numeric, "t.toml");
  ASSERT_TRUE(task.ok()) << task.status().message();
  EXPECT_EQ(*task->flops, 1e9);
  EXPECT_EQ(task->min_bytes, 8);
}

class LoadTaskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::path(::testing::TempDir()) / ("kopt_task_" + std::to_string(getpid()));
    std::filesystem::remove_all(directory_);
    std::filesystem::create_directories(directory_);
    Write("task.toml", kMinimalTask);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }
  void Write(const std::string& name, std::string_view text) { std::ofstream(directory_ / name) << text; }
  std::filesystem::path directory_;
};

TEST_F(LoadTaskTest, ReadsTomlAndReference) {
  Write("reference.cu", "// reference\n");
  Result<TaskSpec> task = LoadTask(directory_.string());
  ASSERT_TRUE(task.ok()) << task.status().message();
  EXPECT_EQ(task->reference_source, "// reference\n");
  EXPECT_EQ(task->reference_path, (directory_ / "reference.cu").string());
  EXPECT_EQ(task->directory, directory_.string());
}

TEST_F(LoadTaskTest, ErrorsNameTheFile) {
  Result<TaskSpec> no_reference = LoadTask(directory_.string());
  ASSERT_FALSE(no_reference.ok());
  EXPECT_THAT(no_reference.status().message(), HasSubstr("reference.cu, defining scale"));
  Write("task.toml", Replace(kMinimalTask, "dtype = \"f32\"", "dtype = \"f33\""));
  Result<TaskSpec> bad = LoadTask(directory_.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr((directory_ / "task.toml").string() + ":12: tensor[1].dtype"));
  EXPECT_EQ(LoadTask((directory_ / "absent").string()).status().kind(), ErrorKind::kNotFound);
}

// Every example task in the repository loads (they are the format's documentation by example).
TEST(ExampleTasksTest, AllLoad) {
  std::filesystem::path examples =
      std::filesystem::path(KOPT_FIXTURE_DIR) / ".." / ".." / "examples" / "tasks";
  if (!std::filesystem::is_directory(examples)) GTEST_SKIP() << "no examples/tasks";
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(examples)) {
    if (!std::filesystem::exists(entry.path() / "task.toml")) continue;
    Result<TaskSpec> task = LoadTask(entry.path().string());
    EXPECT_TRUE(task.ok()) << task.status().message();
    if (task.ok()) {
      EXPECT_FALSE(task->reference_source.empty()) << entry.path();
    }
    ++loaded;
  }
  EXPECT_GE(loaded, 8);
}

TEST(TaskSpecTest, ThousandsOfVariantsAreRefused) {
  std::string text(kMinimalTask);
  for (int i = 0; i < 20000; ++i) text += "[[variant]]\nn = 8\n";
  Result<TaskSpec> task = ParseTaskToml(text, "t.toml");
  ASSERT_FALSE(task.ok());
  EXPECT_NE(task.status().message().find("20000 [[variant]] tables; a task has at most 64"),
            std::string::npos)
      << task.status().message();
}

}  // namespace
}  // namespace kopt
