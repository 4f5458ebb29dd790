#include "suite/slurm_settings.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/toml_document.h"

namespace kopt::suite {
namespace {

bool Contains(const std::vector<std::string>& options, const std::string& option) {
  return std::find(options.begin(), options.end(), option) != options.end();
}

TEST(SlurmSettingsTest, ReadsTheSlurmTable) {
  auto document = ParseTomlDocument(R"(
[slurm]
partition = "gpu"
account = "proj42"
qos = "normal"
time_limit = "04:00:00"
gpus_per_task = 2
gpu_request = "gpus-per-task"
extra_sbatch_options = ["--constraint=h100", "--mem=64G"]
environment_setup = "module load cuda/12.4"
max_node_failures = 3
)",
                                    "suite.toml");
  ASSERT_TRUE(document.ok());
  SlurmSettings settings;
  ASSERT_TRUE(ReadSlurmTable(*document, "suite.toml", settings).ok());
  EXPECT_EQ(settings.partition, "gpu");
  EXPECT_EQ(settings.gpus_per_task, 2);
  EXPECT_EQ(settings.max_node_failures, 3);
  EXPECT_EQ(settings.environment_setup, "module load cuda/12.4");
  std::vector<std::string> options = SbatchOptions(settings, "kopt-abc", 250, "/s/%a.out");
  EXPECT_TRUE(Contains(options, "--array=0-249"));
  EXPECT_TRUE(Contains(options, "--partition=gpu"));
  EXPECT_TRUE(Contains(options, "--account=proj42"));
  EXPECT_TRUE(Contains(options, "--qos=normal"));
  EXPECT_TRUE(Contains(options, "--time=04:00:00"));
  EXPECT_TRUE(Contains(options, "--gpus-per-task=2"));
  EXPECT_TRUE(Contains(options, "--constraint=h100"));
  EXPECT_TRUE(Contains(options, "--requeue"));
}

TEST(SlurmSettingsTest, GresByDefaultAndNoGpusForCpuSteps) {
  SlurmSettings settings;
  EXPECT_TRUE(Contains(SbatchOptions(settings, "k", 1, "o"), "--gres=gpu:1"));
  settings.gpus_per_task = 0;
  for (const std::string& option : SbatchOptions(settings, "k", 1, "o")) {
    EXPECT_EQ(option.find("gpu"), std::string::npos) << option;
  }
}

TEST(SlurmSettingsTest, BadFieldsNameFileLineAndKey) {
  struct Case {
    const char* text;
    const char* expected;
  };
  for (const Case& bad : {Case{"[slurm]\npartiton = \"gpu\"\n", "suite.toml:2: [slurm] partiton"},
                          Case{"[slurm]\ngpus_per_task = \"two\"\n", "gpus_per_task: expected an integer"},
                          Case{"[slurm]\ntime_limit = \"4 hours\"\n", "sbatch's form"},
                          Case{"[slurm]\nextra_sbatch_options = [\"mem=4G\"]\n", "starting with '-'"},
                          Case{"[slurm]\ngpu_request = \"gpus\"\n", "gpu_request"}}) {
    auto document = ParseTomlDocument(bad.text, "suite.toml");
    ASSERT_TRUE(document.ok());
    SlurmSettings settings;
    Status status = ReadSlurmTable(*document, "suite.toml", settings);
    ASSERT_FALSE(status.ok()) << bad.text;
    EXPECT_NE(status.message().find(bad.expected), std::string::npos) << status.message();
    EXPECT_EQ(settings.partition, "");  // unchanged on error
  }
}

}  // namespace
}  // namespace kopt::suite
