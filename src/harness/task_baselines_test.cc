#include "harness/task_baselines.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace kopt {
namespace {

constexpr const char* kDocument =
    R"({"schema": "kopt.baselines", "schema_version": 1, "gpu": "NVIDIA H100 80GB HBM3",
  "source": "bench/kernelbench_baselines.py",
  "baselines": [{"name": "eager", "time_s": 2.8e-3, "peak_memory_bytes": 1048576},
                {"name": "tf32", "time_s": 1.4e-3},
                {"name": "torch_compile", "note": "compile failed: no triton"},
                {"name": "cudagraphs", "time_s": 1e-3}]})";

TEST(TaskBaselinesTest, ReadsEachBaselineItsTimeMemoryAndWhyOneIsMissing) {
  Result<TaskBaselines> baselines = ParseTaskBaselines(kDocument, "t/baselines.json");
  ASSERT_TRUE(baselines.ok()) << baselines.status().message();
  EXPECT_EQ(baselines->gpu, "NVIDIA H100 80GB HBM3");
  EXPECT_DOUBLE_EQ(*baselines->Get(PytorchBaseline::kEager).time_s, 2.8e-3);
  EXPECT_EQ(*baselines->Get(PytorchBaseline::kEager).peak_memory_bytes, 1048576);
  EXPECT_TRUE(baselines->Get(PytorchBaseline::kEager).note.empty());
  EXPECT_DOUBLE_EQ(*baselines->Get(PytorchBaseline::kTf32).time_s, 1.4e-3);
  EXPECT_FALSE(baselines->Get(PytorchBaseline::kTorchCompile).time_s);
  EXPECT_EQ(baselines->Get(PytorchBaseline::kTorchCompile).note, "compile failed: no triton");
}

TEST(TaskBaselinesTest, ABaselineTheDocumentLeavesOutIsNotMeasured) {
  Result<TaskBaselines> baselines = ParseTaskBaselines(
      R"({"schema": "kopt.baselines", "schema_version": 1, "baselines": [{"name": "eager", "time_s": 1e-3}]})",
      "b");
  ASSERT_TRUE(baselines.ok());
  EXPECT_FALSE(baselines->Get(PytorchBaseline::kTf32).time_s);
  EXPECT_EQ(baselines->Get(PytorchBaseline::kTf32).note, "not measured");
  EXPECT_TRUE(baselines->gpu.empty());
}

TEST(TaskBaselinesTest, MalformedDocumentsNameTheFileAndTheField) {
  struct Case {
    const char* text;
    const char* field;
  };
  for (
      const Case& bad : std::vector<Case>{
          {"not json", "not a JSON object"},
          {R"({"schema": "kopt.bench", "schema_version": 1, "baselines": []})", "\"schema\""},
          {R"({"schema": "kopt.baselines", "schema_version": 2, "baselines": []})", "\"schema_version\""},
          {R"({"schema": "kopt.baselines", "schema_version": 1})", "\"baselines\""},
          {R"({"schema": "kopt.baselines", "schema_version": 1, "gpu": 3, "baselines": []})", "\"gpu\""},
          {R"({"schema": "kopt.baselines", "schema_version": 1, "baselines": [3]})", "baselines[0]"},
          {R"({"schema": "kopt.baselines", "schema_version": 1, "baselines": [{"time_s": 1}]})",
           "baselines[0].name"},
          {R"({"schema": "kopt.baselines", "schema_version": 1, "baselines": [{"name": "eager", "time_s": -1}]})",
           "baselines[0].time_s"},
          {R"({"schema": "kopt.baselines", "schema_version": 1, "baselines": [{"name": "eager", "time_s": "1"}]})",
           "baselines[0].time_s"},
          {R"({"schema": "kopt.baselines", "schema_version": 1,
               "baselines": [{"name": "tf32", "time_s": 1, "peak_memory_bytes": -4}]})",
           "baselines[0].peak_memory_bytes"},
      }) {
    Result<TaskBaselines> baselines = ParseTaskBaselines(bad.text, "task/baselines.json");
    ASSERT_FALSE(baselines.ok()) << bad.text;
    EXPECT_NE(baselines.status().message().find("task/baselines.json"), std::string::npos);
    EXPECT_NE(baselines.status().message().find(bad.field), std::string::npos)
        << baselines.status().message();
  }
}

TEST(TaskBaselinesTest, ADirectoryWithoutTheDocumentHasNoneAndOneWithItIsRead) {
  std::filesystem::path directory = std::filesystem::temp_directory_path() / "kopt_task_baselines_test";
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory);
  Result<std::optional<TaskBaselines>> none = ReadTaskBaselines(directory.string());
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  std::ofstream(directory / "baselines.json") << kDocument;
  Result<std::optional<TaskBaselines>> read = ReadTaskBaselines(directory.string());
  ASSERT_TRUE(read.ok());
  ASSERT_TRUE(read->has_value());
  EXPECT_EQ((*read)->path, (directory / "baselines.json").string());
  std::ofstream(directory / "baselines.json") << "{";
  EXPECT_FALSE(ReadTaskBaselines(directory.string()).ok());
  std::filesystem::remove_all(directory);
}

}  // namespace
}  // namespace kopt
