// `kopt explain`'s output file: its format follows the extension when -f is
// absent, and it never overwrites a file the command reads.
#include "app/explain.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/fake_command_runner_test_util.h"
#include "core/file_io.h"
#include "core/scoped_environment_test_util.h"

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
    options_.settings.profile.target = (directory_ / "raw.csv").string();
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
  std::string before = *ReadWholeFile(options_.settings.profile.target);
  options_.format = "html";
  options_.output_path = options_.settings.profile.target;
  Status status = Run();
  EXPECT_EQ(status.kind(), ErrorKind::kInvalidInput);
  EXPECT_THAT(status.message(), HasSubstr("would be overwritten"));
  EXPECT_EQ(*ReadWholeFile(options_.settings.profile.target), before);
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
  options_.settings.energy_model_path = Table("test-h200.energy.toml");
  std::string json = RenderJson();
  EXPECT_THAT(json, HasSubstr("\"dynamic_energy\""));
  EXPECT_THAT(json, HasSubstr("test-h200.energy.toml"));
  options_.settings.energy_model_path = "none";
  EXPECT_THAT(RenderJson(), HasSubstr("\"energy\": null"));
}

TEST_F(ExplainEnergyTest, ABadTableFailsNamingTheFile) {
  options_.settings.energy_model_path = Table("bad-field.energy.toml");
  Status status = Run();
  EXPECT_EQ(status.kind(), ErrorKind::kInvalidInput) << status.message();
  EXPECT_THAT(status.message(), HasSubstr("bad-field.energy.toml"));
  EXPECT_THAT(status.message(), HasSubstr("--energy-model"));
  options_.settings.energy_model_path = Table("other-gpu.energy.toml");
  EXPECT_FALSE(Run().ok());
}

}  // namespace
}  // namespace kopt

namespace kopt {
namespace {

// Live explain of a program by default: the timeline run under the injection library, then one ncu
// run with the targeted metrics that prints the raw page and samples each launch configuration.
TEST(ExplainLiveCollectionTest, TheDefaultIsTheTimelineAndTheTargetedSampledCollection) {
  ScopedEnvironment library("KOPT_TIMELINE_LIBRARY", "/opt/kopt/libkopt_timeline.so");
  fs::path work = fs::temp_directory_path() / ("kopt_explain_live_" + std::to_string(getpid()));
  fs::remove_all(work);
  FakeCommandRunner runner;
  runner.AddProgram("./app");
  runner.OnCommand("./app", {}, ExitedWith(0, ""));
  runner.OnCommand(
      "ncu", {"--csv"},
      ExitedWith(0, *ReadWholeFile(std::string(KOPT_FIXTURE_DIR) + "/collector/ncu_printed_raw_page.txt")));
  ExplainOptions options;
  options.settings.profile.program_argv = {"./app"};
  options.settings.profile.work_directory = work.string();
  options.format = "json";
  std::ostringstream out, log;
  Status status = RunExplain(options, runner, out, log);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(runner.CommandsOf("./app").size(), 1u);
  bool injected = false;
  std::vector<CommandSpec> timeline_runs = runner.CommandsOf("./app");
  for (const auto& [name, value] : timeline_runs[0].environment)
    injected = injected || (name == "CUDA_INJECTION64_PATH" && value == "/opt/kopt/libkopt_timeline.so");
  EXPECT_TRUE(injected);
  std::vector<CommandSpec> ncu = runner.CommandsOf("ncu");
  ASSERT_EQ(ncu.size(), 1u);
  const std::vector<std::string>& argv = ncu[0].argv;
  auto has = [&](const std::string& argument) {
    return std::find(argv.begin(), argv.end(), argument) != argv.end();
  };
  EXPECT_TRUE(has("--metrics") && has("Occupancy") && has("--csv") && has("per-launch-config"));
  EXPECT_FALSE(has("--set") || has("-o"));
  auto rules = std::find(argv.begin(), argv.end(), "--apply-rules");
  ASSERT_NE(rules, argv.end());  // ncu's rules only add rule results to a report: off without one
  EXPECT_EQ(*(rules + 1), "no");
  EXPECT_THAT(out.str(), HasSubstr("uncoalesced_loads"));
  // Where the seconds went: the live collection's phases, in the order they started.
  nlohmann::json report = nlohmann::json::parse(out.str());
  ASSERT_TRUE(report.contains("collection_phases"));
  std::vector<std::string> phase_names;
  for (const auto& phase : report["collection_phases"]) {
    EXPECT_GE(phase["seconds"].get<double>(), 0);
    phase_names.push_back(phase["name"]);
  }
  EXPECT_THAT(phase_names, ::testing::ElementsAre("timeline run (libkopt_timeline.so)", "ncu run",
                                                  "reading the raw page", "analysis (diagnose)"));
  fs::remove_all(work);

  options.settings.profile.collection.section_set = "full";  // --set full: ncu's set into a report, as before
  options.settings.profile.collection.timeline = false;
  FakeCommandRunner full;
  full.OnCommand("ncu", {"--set"}, ExitedWith(0, ""));
  (void)RunExplain(options, full, out, log);  // the fake writes no report: only the command line matters
  ASSERT_FALSE(full.CommandsOf("ncu").empty());
  EXPECT_EQ(full.CommandsOf("ncu")[0].argv[1], "--set");
  EXPECT_EQ(full.CommandsOf("ncu")[0].argv[2], "full");
  EXPECT_TRUE(full.CommandsOf("./app").empty());  // no timeline run
  fs::remove_all(work);
}

// Issue 19 item 10: on a terminal the live collection's steps are drawn on one line of `log`, the analysis
// too, and the line is cleared before the report; nothing of it reaches the report.
TEST(ExplainLiveCollectionTest, TheProgressLineShowsTheStepsAndIsClearedBeforeTheReport) {
  ScopedEnvironment library("KOPT_TIMELINE_LIBRARY", "/opt/kopt/libkopt_timeline.so");
  fs::path work = fs::temp_directory_path() / ("kopt_explain_progress_" + std::to_string(getpid()));
  fs::remove_all(work);
  FakeCommandRunner runner;
  runner.AddProgram("./app");
  runner.OnCommand("./app", {}, ExitedWith(0, ""));
  runner.OnCommand(
      "ncu", {"--csv"},
      ExitedWith(0, *ReadWholeFile(std::string(KOPT_FIXTURE_DIR) + "/collector/ncu_printed_raw_page.txt")));
  ExplainOptions options;
  options.settings.profile.program_argv = {"./app"};
  options.settings.profile.work_directory = work.string();
  options.format = "md";
  options.progress = true;
  std::ostringstream out, log;
  Status status = RunExplain(options, runner, out, log);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_THAT(log.str(), HasSubstr("\r\033[Kkopt: running app once for the launch timeline"));
  EXPECT_THAT(log.str(),
              HasSubstr("\r\033[Kkopt: profiling app under ncu: first 3 launches per configuration"));
  EXPECT_THAT(log.str(), HasSubstr("\r\033[Kkopt: analysing 1 launch"));
  EXPECT_TRUE(log.str().ends_with("\r\033[K")) << log.str();
  EXPECT_THAT(out.str(), ::testing::Not(HasSubstr("kopt: ")));
  fs::remove_all(work);
}

}  // namespace
}  // namespace kopt
