// `kopt explain`'s output file: its format follows the extension when -f is
// absent, and it never overwrites a file the command reads.
#include "app/explain.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "core/fake_command_runner_test_util.h"
#include "core/file_io.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class ExplainOutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() / ("kopt_explain_test_" + std::to_string(getpid()));
    fs::create_directories(directory_);
    for (const char* name : {"raw.csv", "sass.txt"}) {
      fs::copy_file(fs::path(KOPT_FIXTURE_DIR) / "h200/uncoalesced_loads" / name, directory_ / name);
    }
    options_.target = (directory_ / "raw.csv").string();
  }
  void TearDown() override { fs::remove_all(directory_); }

  Status Run() {
    std::ostringstream out, log;
    return RunExplain(options_, runner_, out, log);
  }

  fs::path directory_;
  ExplainOptions options_;
  FakeCommandRunner runner_;
};

TEST_F(ExplainOutputTest, TheFormatFollowsTheExtension) {
  options_.output_path = (directory_ / "report.html").string();
  ASSERT_TRUE(Run().ok());
  EXPECT_THAT(*ReadWholeFile(options_.output_path), StartsWith("<!DOCTYPE html>"));
  options_.output_path = (directory_ / "report.json").string();
  ASSERT_TRUE(Run().ok());
  EXPECT_THAT(*ReadWholeFile(options_.output_path), StartsWith("{"));
}

TEST_F(ExplainOutputTest, TheProfileIsNeverOverwritten) {
  std::string before = *ReadWholeFile(options_.target);
  options_.format = "html";
  options_.output_path = options_.target;
  Status status = Run();
  EXPECT_EQ(status.kind(), ErrorKind::kInvalidInput);
  EXPECT_THAT(status.message(), HasSubstr("would be overwritten"));
  EXPECT_EQ(*ReadWholeFile(options_.target), before);
}

TEST_F(ExplainOutputTest, NorACompanionFoundBesideIt) {
  std::string sass = (directory_ / "sass.txt").string();
  std::string before = *ReadWholeFile(sass);
  options_.output_path = (directory_ / "." / "sass.txt").string();
  Status status = Run();
  EXPECT_EQ(status.kind(), ErrorKind::kInvalidInput);
  EXPECT_THAT(status.message(), HasSubstr("sass.txt"));
  EXPECT_EQ(*ReadWholeFile(sass), before);
}

// --energy-model: a table file gives the energy section; "none" switches it off; a bad file fails
// naming the file; a table of another GPU fails (docs/energy.md).
class ExplainEnergyTest : public ExplainOutputTest {
 protected:
  std::string RenderJson() {
    std::ostringstream out, log;
    options_.format = "json";
    Status status = RunExplain(options_, runner_, out, log);
    EXPECT_TRUE(status.ok()) << status.message();
    return out.str();
  }
  static std::string Table(const char* name) {
    return (fs::path(KOPT_FIXTURE_DIR) / "energy" / name).string();
  }
};

TEST_F(ExplainEnergyTest, ANamedTableAddsTheSection) {
  options_.energy_model_path = Table("test-h200.energy.toml");
  std::string json = RenderJson();
  EXPECT_THAT(json, HasSubstr("\"dynamic_energy\""));
  EXPECT_THAT(json, HasSubstr("test-h200.energy.toml"));
  options_.energy_model_path = "none";
  EXPECT_THAT(RenderJson(), HasSubstr("\"energy\": null"));
}

TEST_F(ExplainEnergyTest, ABadTableFailsNamingTheFile) {
  options_.energy_model_path = Table("bad-field.energy.toml");
  Status status = Run();
  EXPECT_EQ(status.kind(), ErrorKind::kInvalidInput) << status.message();
  EXPECT_THAT(status.message(), HasSubstr("bad-field.energy.toml"));
  EXPECT_THAT(status.message(), HasSubstr("--energy-model"));
  options_.energy_model_path = Table("other-gpu.energy.toml");
  EXPECT_FALSE(Run().ok());
}

}  // namespace
}  // namespace kopt
