// Tests of live collection and report import, with FakeCommandRunner
// answering for nvidia-smi, nvcc, ncu and cuobjdump (canned outputs modelled
// on real ones: tests/fixtures/collector/README.md).
#include "profile/ncu_collector.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/fake_command_runner_test_util.h"
#include "core/text.h"
#include "fixture_reader.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

std::string Fixture(const std::string& relative_path) {
  std::string text = ReadFixture(relative_path);
  EXPECT_FALSE(text.empty()) << "missing fixture " << relative_path;
  return text;
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream stream(path, std::ios::binary);
  stream << text;
}

// A side effect that writes the file named by the argument after `flag`
// (plus `suffix`), as nvcc -o and ncu -o do.
std::function<void(const CommandSpec&)> WriteOutputOf(std::string flag, std::string suffix) {
  return [flag, suffix](const CommandSpec& spec) {
    auto position = std::find(spec.argv.begin(), spec.argv.end(), flag);
    if (position != spec.argv.end() && position + 1 != spec.argv.end())
      WriteFile(*(position + 1) + suffix, "fake");
  };
}

std::string EnvironmentValue(const CommandSpec& spec, const std::string& name) {
  for (const auto& [key, value] : spec.environment) {
    if (key == name) return value;
  }
  return "";
}

bool ContainsSequence(const std::vector<std::string>& argv, const std::vector<std::string>& sequence) {
  return std::search(argv.begin(), argv.end(), sequence.begin(), sequence.end()) != argv.end();
}

std::string JoinForTest(const std::vector<std::string>& lines) {
  std::string joined;
  for (const std::string& line : lines) joined += line + "\n";
  return joined;
}

// Counts the progress lines drawn (from any thread).
class DrawnLinesCounter {
 public:
  CollectionProgress Sink() {
    return [this](std::string_view) { ++count_; };
  }
  size_t Count() const { return count_.load(); }

 private:
  std::atomic<size_t> count_ = 0;
};

class NcuCollectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() / ("kopt_collector_" + std::to_string(getpid()) + "_" + test->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    source_path_ = (root_ / "probe.cu").string();
    WriteFile(source_path_, Fixture("probe/probe.cu"));
    work_ = root_ / "bundle";
    options_.work_directory = work_.string();
    options_.timeout_seconds = 7;
    // The GPU query's fallback answers as on a machine without a driver, whatever this one has.
    options_.query_gpus = [] { return Result<std::vector<GpuSpec>>(Unavailable("no CUDA driver (fake)")); };
    InstallHealthyToolchain();
  }
  void TearDown() override { fs::remove_all(root_); }

  void InstallHealthyToolchain() {
    runner_.OnCommand("nvidia-smi", {"--query-gpu=compute_cap"}, ExitedWith(0, "9.0\n"));
    runner_.OnCommand("nvcc", {}, ExitedWith(0, "", Fixture("probe/ptxas.txt")), WriteOutputOf("-o", ""));
    runner_.OnCommand("ncu", {"--set"}, ExitedWith(0, Fixture("collector/ncu_success.txt")),
                      WriteOutputOf("-o", ".ncu-rep"));
    runner_.OnCommand("ncu", {"--import"}, ExitedWith(0, Fixture("probe/raw_base.csv")));
    runner_.OnCommand("ncu", {"--import", "source"},
                      ExitedWith(0, Fixture("h200/uncoalesced_loads/source.csv")));
    runner_.OnCommand("cuobjdump", {"-sass"}, ExitedWith(0, Fixture("collector/sass.txt")));
  }

  // Makes the profiling run (ncu --set …) answer with `result`.
  void ProfilingRunGives(CommandResult result, bool writes_report = false) {
    runner_.OnCommand("ncu", {"--set"}, std::move(result),
                      writes_report ? WriteOutputOf("-o", ".ncu-rep") : nullptr);
  }

  std::string Binary() const { return (work_ / "probe").string(); }
  std::string ReportBase() const { return (work_ / "profile").string(); }

  fs::path root_;
  fs::path work_;
  std::string source_path_;
  CollectionOptions options_;
  FakeCommandRunner runner_;
  std::vector<std::string> notes_;
};

// ---- CollectFromCudaSource ---------------------------------------------------

// Issue 19: live collection says what it is doing, step by step, and each launch ncu profiles.
TEST_F(NcuCollectorTest, ProgressNamesEachStepAndTheLaunchesNcuProfiles) {
  std::vector<std::string> steps;
  options_.progress = [&steps](std::string_view step) { steps.emplace_back(step); };
  options_.progress_refresh_seconds = 0;  // no redraw with the seconds: the steps alone
  Result<Profile> profile = CollectFromCudaSource(source_path_, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_EQ(steps, (std::vector<std::string>{
                       "building probe.cu (nvcc)", "profiling probe under ncu",
                       "profiling launch 1: scale (ncu launch ID 0)", "exporting the raw page (ncu --import)",
                       "exporting the source page (ncu --import)", "disassembling (cuobjdump -sass)"}));
  // Without a progress callback ncu's output is not watched.
  EXPECT_TRUE(runner_.CommandsOf("ncu").front().on_stdout != nullptr);
  options_.progress = nullptr;
  ASSERT_TRUE(CollectFromCudaSource(source_path_, options_, runner_, notes_).ok());
  EXPECT_TRUE(runner_.CommandsOf("ncu").back().on_stdout == nullptr);
}

TEST_F(NcuCollectorTest, CudaSourceBuildsProfilesAndDisassembles) {
  Result<Profile> profile = CollectFromCudaSource(source_path_, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();

  const std::vector<CommandSpec>& commands = runner_.commands();
  ASSERT_EQ(commands.size(), 6u);
  EXPECT_EQ(commands[0].argv,
            (std::vector<std::string>{"nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"}));
  EXPECT_EQ(commands[1].argv, (std::vector<std::string>{"nvcc", "-O3", "-lineinfo", "-Xptxas", "-v",
                                                        "-gencode=arch=compute_90a,code=sm_90a", "-o",
                                                        Binary(), source_path_}));
  EXPECT_EQ(commands[2].argv, (std::vector<std::string>{"ncu", "--set", "full", "--clock-control", "none",
                                                        "--import-source", "yes", "--target-processes", "all",
                                                        "-f", "-o", ReportBase(), Binary()}));
  EXPECT_EQ(commands[3].argv, (std::vector<std::string>{"ncu", "--import", ReportBase() + ".ncu-rep", "--csv",
                                                        "--page", "raw", "--print-units", "base"}));
  EXPECT_EQ(commands[4].argv,
            (std::vector<std::string>{"ncu", "--import", ReportBase() + ".ncu-rep", "--csv", "--page",
                                      "source", "--print-source", "sass", "--print-units", "base"}));
  EXPECT_EQ(commands[5].argv, (std::vector<std::string>{"cuobjdump", "-sass", Binary()}));
  for (const CommandSpec& command : commands) {
    EXPECT_EQ(EnvironmentValue(command, "LC_ALL"), "C") << command.argv[0];
  }
  EXPECT_EQ(commands[2].timeout_seconds, 7);

  EXPECT_EQ(profile->source, source_path_);
  EXPECT_EQ(profile->launches.size(), 3u);
  ASSERT_TRUE(profile->ptxas.has_value());
  EXPECT_EQ(profile->ptxas->functions.size(), 2u);
  ASSERT_TRUE(profile->sass.has_value());
  EXPECT_EQ(profile->sass->functions.size(), 1u);
  EXPECT_NE(FindSassFunction(*profile->sass, "scale"), nullptr);

  EXPECT_EQ(ReadTestFile(work_ / "ptxas.txt"), Fixture("probe/ptxas.txt"));
  EXPECT_EQ(ReadTestFile(work_ / "sass.txt"), Fixture("collector/sass.txt"));
  EXPECT_EQ(ReadTestFile(work_ / "raw.csv"), Fixture("probe/raw_base.csv"));
  EXPECT_EQ(ReadTestFile(work_ / "source.csv"), Fixture("h200/uncoalesced_loads/source.csv"));
  ASSERT_EQ(profile->source_pages.size(), 1u);
  EXPECT_EQ(profile->source_pages[0].rows.size(), 32u);
  EXPECT_TRUE(Contains(ReadTestFile(work_ / "ncu.log"), "==PROF== Report:"));
  EXPECT_TRUE(notes_.empty());  // the unmodified-clocks warning is expected: we ask for it
}

TEST_F(NcuCollectorTest, ProgramRunExportsTheSourcePage) {
  runner_.OnCommand("ncu", {"--import", "source"},
                    ExitedWith(0, "==PROF== Connected\n" + Fixture("h200/uncoalesced_loads/source.csv")));
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  std::vector<CommandSpec> ncu = runner_.CommandsOf("ncu");
  ASSERT_EQ(ncu.size(), 3u);
  EXPECT_EQ(ncu[2].argv,
            (std::vector<std::string>{"ncu", "--import", ReportBase() + ".ncu-rep", "--csv", "--page",
                                      "source", "--print-source", "sass", "--print-units", "base"}));
  EXPECT_EQ(EnvironmentValue(ncu[2], "LC_ALL"), "C");
  EXPECT_EQ(ncu[2].timeout_seconds, 7);
  EXPECT_EQ(ReadTestFile(work_ / "source.csv"), Fixture("h200/uncoalesced_loads/source.csv"));
  ASSERT_EQ(profile->source_pages.size(), 1u);
  EXPECT_NE(FindSourcePage(profile->source_pages, "uncoalesced_loads"), nullptr);
  EXPECT_TRUE(notes_.empty());
}

TEST_F(NcuCollectorTest, SourcePageFailuresAreNotes) {
  runner_.OnCommand("ncu", {"--import", "source"},
                    ExitedWith(1, "", "==ERROR== Failed to export the page\n"));
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_TRUE(profile->source_pages.empty());
  EXPECT_EQ(profile->launches.size(), 3u);
  ASSERT_EQ(notes_.size(), 1u);
  EXPECT_TRUE(Contains(notes_[0], "--page source")) << notes_[0];
  EXPECT_TRUE(Contains(notes_[0], "Failed to export the page")) << notes_[0];
  EXPECT_TRUE(Contains(notes_[0], "no per-instruction source page")) << notes_[0];

  notes_.clear();
  runner_.OnCommand("ncu", {"--import", "source"}, ExitedWith(0, Fixture("probe/raw_base.csv")));
  profile = CollectFromProgram({"./app"}, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_TRUE(profile->source_pages.empty());
  ASSERT_EQ(notes_.size(), 1u);
  EXPECT_TRUE(Contains(notes_[0], "no per-instruction source page: ")) << notes_[0];
  EXPECT_TRUE(Contains(notes_[0], "source.csv:1:")) << notes_[0];
}

TEST_F(NcuCollectorTest, NcuWarningsBecomeNotes) {
  std::string warning =
      "==WARNING== Backing up device memory in system memory. Kernel replay might be slow. Consider using "
      "\"--replay-mode application\" to avoid memory save-and-restore.";
  runner_.OnCommand("ncu", {"--set"}, ExitedWith(0, Fixture("collector/ncu_success.txt") + warning + "\n"),
                    WriteOutputOf("-o", ".ncu-rep"));
  ASSERT_TRUE(CollectFromProgram({"./app"}, options_, runner_, notes_).ok());
  ASSERT_EQ(notes_.size(), 1u);
  EXPECT_EQ(notes_[0], "ncu: " + warning);
}

TEST_F(NcuCollectorTest, CudaSourceUsesTheGivenArchitectureWithoutDetection) {
  options_.architecture = "sm_80";
  options_.extra_nvcc_flags = {"-DTILE=64", "--use_fast_math"};
  ASSERT_TRUE(CollectFromCudaSource(source_path_, options_, runner_).ok());
  EXPECT_TRUE(runner_.CommandsOf("nvidia-smi").empty());
  ASSERT_EQ(runner_.CommandsOf("nvcc").size(), 1u);
  EXPECT_TRUE(ContainsSequence(runner_.CommandsOf("nvcc")[0].argv, {"-gencode=arch=compute_80,code=sm_80",
                                                                    "-DTILE=64", "--use_fast_math", "-o"}));
}

TEST_F(NcuCollectorTest, CudaSourceDetectsANonHopperGpu) {
  runner_.OnCommand("nvidia-smi", {"--query-gpu=compute_cap"}, ExitedWith(0, "8.6\n8.6\n"));
  ASSERT_TRUE(CollectFromCudaSource(source_path_, options_, runner_).ok());
  EXPECT_TRUE(ContainsSequence(runner_.CommandsOf("nvcc")[0].argv, {"-gencode=arch=compute_86,code=sm_86"}));
}

TEST_F(NcuCollectorTest, CudaSourcePassesKernelFilterToNcu) {
  options_.kernel_regex = "saxpy";
  options_.launch_skip = 1;
  options_.launch_count = 2;
  options_.section_set = "detailed";
  ASSERT_TRUE(CollectFromCudaSource(source_path_, options_, runner_).ok());
  std::vector<std::string> argv = runner_.CommandsOf("ncu")[0].argv;
  EXPECT_TRUE(ContainsSequence(argv, {"--set", "detailed"}));
  EXPECT_TRUE(ContainsSequence(
      argv, {"-k", "regex:[sS][aA][xX][pP][yY]", "-s", "1", "-c", "2", "--target-processes", "all"}));
}

TEST_F(NcuCollectorTest, MissingNvccIsUnavailableNamingIt) {
  runner_.RemoveProgram("nvcc");
  Result<Profile> profile = CollectFromCudaSource(source_path_, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kUnavailable);
  EXPECT_TRUE(Contains(profile.status().message(), "'nvcc'"));
  EXPECT_TRUE(Contains(profile.status().message(), "PATH"));
  EXPECT_TRUE(runner_.commands().empty());
}

TEST_F(NcuCollectorTest, MissingNcuIsUnavailableNamingIt) {
  runner_.RemoveProgram("ncu");
  Result<Profile> profile = CollectFromCudaSource(source_path_, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kUnavailable);
  EXPECT_TRUE(Contains(profile.status().message(), "'ncu'"));
  EXPECT_TRUE(Contains(profile.status().message(), "Nsight Compute"));
  EXPECT_TRUE(runner_.commands().empty());
}

TEST_F(NcuCollectorTest, NoNvidiaSmiMeansNoGpu) {
  runner_.RemoveProgram("nvidia-smi");
  Result<Profile> profile = CollectFromCudaSource(source_path_, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kUnavailable);
  EXPECT_TRUE(Contains(profile.status().message(), "no NVIDIA GPU found"));
  EXPECT_TRUE(runner_.CommandsOf("nvcc").empty());
}

TEST_F(NcuCollectorTest, NvidiaSmiWithoutDevicesMeansNoGpu) {
  runner_.OnCommand("nvidia-smi", {}, ExitedWith(6, "No devices were found\n"));
  Result<Profile> profile = CollectFromCudaSource(source_path_, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kUnavailable);
  EXPECT_TRUE(Contains(profile.status().message(), "no NVIDIA GPU found"));
  EXPECT_TRUE(Contains(profile.status().message(), "No devices were found"));
}

TEST_F(NcuCollectorTest, NvidiaSmiGarbageMeansNoGpu) {
  runner_.OnCommand("nvidia-smi", {}, ExitedWith(0, "[N/A]\n"));
  Result<Profile> profile = CollectFromCudaSource(source_path_, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kUnavailable);
  EXPECT_TRUE(Contains(profile.status().message(), "'[N/A]'"));
}

TEST_F(NcuCollectorTest, CompileFailureKeepsNvccsFullErrorText) {
  std::string errors = Fixture("collector/nvcc_error.txt");
  runner_.OnCommand("nvcc", {}, ExitedWith(2, "", errors));
  Result<Profile> profile = CollectFromCudaSource(source_path_, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kWorkFailed);
  EXPECT_TRUE(Contains(profile.status().message(), source_path_));
  EXPECT_TRUE(Contains(profile.status().message(), "does not compile"));
  EXPECT_TRUE(Contains(profile.status().message(), errors.substr(0, errors.size() - 1)));
  EXPECT_TRUE(Contains(profile.status().message(), "nvcc -O3 -lineinfo"));
  EXPECT_TRUE(runner_.CommandsOf("ncu").empty());
}

TEST_F(NcuCollectorTest, CompileTimeoutIsWorkFailed) {
  runner_.OnCommand("nvcc", {}, TimedOutResult());
  Result<Profile> profile = CollectFromCudaSource(source_path_, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kWorkFailed);
  EXPECT_TRUE(Contains(profile.status().message(), "timed out after 7 s"));
}

TEST_F(NcuCollectorTest, MissingSourceIsNotFound) {
  Result<Profile> profile = CollectFromCudaSource((root_ / "absent.cu").string(), options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kNotFound);
  EXPECT_TRUE(Contains(profile.status().message(), "absent.cu"));
}

TEST_F(NcuCollectorTest, MissingCuobjdumpIsANoteNotAnError) {
  runner_.RemoveProgram("cuobjdump");
  Result<Profile> profile = CollectFromCudaSource(source_path_, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_FALSE(profile->sass.has_value());
  EXPECT_TRUE(profile->ptxas.has_value());
  ASSERT_FALSE(notes_.empty());
  EXPECT_TRUE(Contains(notes_.back(), "'cuobjdump'"));
  EXPECT_TRUE(Contains(notes_.back(), "no SASS"));
}

TEST_F(NcuCollectorTest, FailingCuobjdumpIsANote) {
  runner_.OnCommand("cuobjdump", {}, ExitedWith(1, "", "cuobjdump fatal   : Could not open input file\n"));
  Result<Profile> profile = CollectFromCudaSource(source_path_, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_FALSE(profile->sass.has_value());
  ASSERT_FALSE(notes_.empty());
  EXPECT_TRUE(Contains(notes_.back(), "Could not open input file"));
}

TEST_F(NcuCollectorTest, UnreadablePtxasReportIsANote) {
  runner_.OnCommand("nvcc", {}, ExitedWith(0, "", ""), WriteOutputOf("-o", ""));
  Result<Profile> profile = CollectFromCudaSource(source_path_, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_FALSE(profile->ptxas.has_value());
  EXPECT_TRUE(std::any_of(notes_.begin(), notes_.end(), [](const std::string& note) {
    return Contains(note, "no ptxas resource report");
  }));
}

TEST_F(NcuCollectorTest, ChosenMetricsAndKeptCachesReplaceTheSetOnTheCommandLine) {
  options_.metrics = {"dram__bytes_read.sum", "gpu__time_duration.sum"};
  options_.cache_control = "none";
  runner_.OnCommand("ncu", {"--metrics"}, ExitedWith(0, Fixture("collector/ncu_success.txt")),
                    WriteOutputOf("-o", ".ncu-rep"));
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_EQ(runner_.CommandsOf("ncu")[0].argv,
            (std::vector<std::string>{"ncu", "--section", "LaunchStats", "--metrics",
                                      "dram__bytes_read.sum,gpu__time_duration.sum", "--clock-control",
                                      "none", "--cache-control", "none", "--import-source", "yes",
                                      "--target-processes", "all", "-f", "-o", ReportBase(), "./app"}));
}

TEST_F(NcuCollectorTest, TargetedSectionsComeBesideTheMetrics) {
  options_.metrics = {"gpu__time_duration.sum"};
  options_.sections = {"LaunchStats", "Occupancy", "SourceCounters"};
  runner_.OnCommand("ncu", {"--metrics"}, ExitedWith(0, Fixture("collector/ncu_success.txt")),
                    WriteOutputOf("-o", ".ncu-rep"));
  ASSERT_TRUE(CollectFromProgram({"./app"}, options_, runner_).ok());
  EXPECT_TRUE(ContainsSequence(runner_.CommandsOf("ncu")[0].argv,
                               {"--section", "LaunchStats", "--section", "Occupancy", "--section",
                                "SourceCounters", "--metrics", "gpu__time_duration.sum"}));
}

// Without a report ncu prints the raw page (captured on the H200: ncu's own lines and the program's "ok"
// around it): one ncu process, raw.csv is the page alone.
TEST_F(NcuCollectorTest, WithoutAReportTheRawPageNcuPrintedIsRead) {
  options_.write_report = false;
  options_.metrics = {"gpu__time_duration.sum"};
  runner_.OnCommand("ncu", {"--csv"}, ExitedWith(0, Fixture("collector/ncu_printed_raw_page.txt")));
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  std::vector<CommandSpec> ncu = runner_.CommandsOf("ncu");
  ASSERT_EQ(ncu.size(), 1u);
  EXPECT_TRUE(ContainsSequence(ncu[0].argv, {"--target-processes", "all", "--csv", "--page", "raw",
                                             "--print-units", "base", "./app"}));
  EXPECT_FALSE(ContainsSequence(ncu[0].argv, {"-o"}));
  ASSERT_EQ(profile->launches.size(), 1u);
  EXPECT_EQ(profile->launches[0].FunctionName(), "uncoalesced_loads");
  std::string raw = ReadTestFile(work_ / "raw.csv");
  EXPECT_TRUE(StartsWith(raw, "\"ID\",\"Process ID\""));
  EXPECT_FALSE(Contains(raw, "==PROF=="));
  EXPECT_FALSE(Contains(raw, "\nok\n"));
  EXPECT_TRUE(profile->source_pages.empty());
}

TEST_F(NcuCollectorTest, WithoutAReportAPrintedPageWithoutLaunchesFails) {
  options_.write_report = false;
  runner_.OnCommand("ncu", {"--csv"}, ExitedWith(0, "==PROF== Connected to process 1\nok\n"));
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_, notes_);
  ASSERT_FALSE(profile.ok());
  EXPECT_TRUE(Contains(profile.status().message(), "printed no raw-page row")) << profile.status().message();
}

TEST_F(NcuCollectorTest, ParallelDisassemblyStillAttachesTheListing) {
  options_.parallel_commands = true;
  Result<Profile> profile = CollectFromCudaSource(source_path_, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  ASSERT_TRUE(profile->sass.has_value());
  EXPECT_NE(FindSassFunction(*profile->sass, "scale"), nullptr);
  ASSERT_TRUE(profile->ptxas.has_value());
  EXPECT_EQ(runner_.CommandsOf("cuobjdump").size(), 1u);
  EXPECT_EQ(runner_.commands().size(), 6u);
  EXPECT_TRUE(std::any_of(profile->inputs.begin(), profile->inputs.end(),
                          [](const ProfileInput& input) { return input.role == "SASS listing"; }));
  EXPECT_TRUE(notes_.empty());
}

// Issue 18: with kopt-launcher the .cu is built as a shared object while ncu already runs the launcher,
// which waits for the ready file; the disassembly reads the shared object.
class LauncherCollectionTest : public NcuCollectorTest {
 protected:
  void SetUp() override {
    NcuCollectorTest::SetUp();
    options_.parallel_commands = true;
    options_.launcher = "/opt/kopt/bin/kopt-launcher";
  }
  std::string Library() const { return (work_ / "probe.so").string(); }
  std::string Ready() const { return (work_ / "probe.ready").string(); }
  // The ncu profiling runs (not the --import exports), in order.
  std::vector<CommandSpec> ProfilingRuns() const {
    std::vector<CommandSpec> runs;
    for (const CommandSpec& spec : runner_.CommandsOf("ncu")) {
      if (ContainsSequence(spec.argv, {"--set"})) runs.push_back(spec);
    }
    return runs;
  }
};

TEST_F(LauncherCollectionTest, NvccBuildsASharedObjectWhileNcuRunsTheLauncher) {
  Result<Profile> profile = CollectFromCudaSource(source_path_, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  std::vector<CommandSpec> nvcc = runner_.CommandsOf("nvcc");
  ASSERT_EQ(nvcc.size(), 1u);
  EXPECT_EQ(nvcc[0].argv,
            (std::vector<std::string>{"nvcc", "-O3", "-lineinfo", "-Xptxas", "-v",
                                      "-gencode=arch=compute_90a,code=sm_90a", "-shared", "-Xcompiler",
                                      "-fPIC", "-Xlinker", "-zdefs", "-o", Library(), source_path_}));
  std::vector<CommandSpec> ncu = runner_.CommandsOf("ncu");
  ASSERT_FALSE(ncu.empty());
  std::vector<std::string> tail(ncu[0].argv.end() - 3, ncu[0].argv.end());
  EXPECT_EQ(tail, (std::vector<std::string>{options_.launcher, Ready(), Library()}));
  ASSERT_EQ(runner_.CommandsOf("cuobjdump").size(), 1u);
  EXPECT_EQ(runner_.CommandsOf("cuobjdump")[0].argv,
            (std::vector<std::string>{"cuobjdump", "-sass", Library()}));
  EXPECT_EQ(ReadTestFile(Ready()), "ok\n");
  EXPECT_EQ(profile->source, source_path_);
  EXPECT_EQ(profile->launches.size(), 3u);
  ASSERT_TRUE(profile->ptxas.has_value());
  ASSERT_TRUE(profile->sass.has_value());
  EXPECT_EQ(ReadTestFile(work_ / "ptxas.txt"), Fixture("probe/ptxas.txt"));
  EXPECT_TRUE(notes_.empty()) << JoinForTest(notes_);
}

TEST_F(LauncherCollectionTest, ProgressNamesTheBuildBesideNcuAndTheProgramNotTheLauncher) {
  std::vector<std::string> steps;
  options_.progress = [&steps](std::string_view step) { steps.emplace_back(step); };
  options_.progress_refresh_seconds = 0;
  ASSERT_TRUE(CollectFromCudaSource(source_path_, options_, runner_, notes_).ok());
  EXPECT_EQ(steps, (std::vector<std::string>{
                       "building probe.cu (nvcc) while ncu starts", "profiling probe under ncu",
                       "profiling launch 1: scale (ncu launch ID 0)",
                       "exporting the raw page (ncu --import)"}));  // the source page's export runs beside it
}

TEST_F(LauncherCollectionTest, TheWarmUpIsAskedOfTheLauncherOnlyWithoutALaunchSelection) {
  options_.metrics = {"gpu__time_duration.sum"};  // the targeted collection: ncu prints the raw page
  options_.write_report = false;
  runner_.OnCommand("ncu", {"--metrics"}, ExitedWith(0, Fixture("probe/raw_base.csv")));
  ASSERT_TRUE(CollectFromCudaSource(source_path_, options_, runner_, notes_).ok());
  options_.launcher_warmup = true;
  ASSERT_TRUE(CollectFromCudaSource(source_path_, options_, runner_, notes_).ok());
  options_.launch_count = 2;  // ncu would count the warm-up as one of them
  ASSERT_TRUE(CollectFromCudaSource(source_path_, options_, runner_, notes_).ok());
  options_.launch_count = 0;
  options_.metrics.clear();  // a section set: the warm-up would cost more than the build hides
  options_.write_report = true;
  ASSERT_TRUE(CollectFromCudaSource(source_path_, options_, runner_, notes_).ok());
  std::vector<CommandSpec> runs = runner_.CommandsOf("ncu");
  std::erase_if(runs, [](const CommandSpec& spec) { return ContainsSequence(spec.argv, {"--import"}); });
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(EnvironmentValue(runs[0], "KOPT_LAUNCHER_WARMUP"), "");
  EXPECT_EQ(EnvironmentValue(runs[1], "KOPT_LAUNCHER_WARMUP"), "1");
  EXPECT_EQ(EnvironmentValue(runs[2], "KOPT_LAUNCHER_WARMUP"), "");
  EXPECT_EQ(EnvironmentValue(runs[3], "KOPT_LAUNCHER_WARMUP"), "");
  EXPECT_TRUE(ContainsSequence(runs[3].argv, {"--set", "full"}));
  for (const CommandSpec& run : runs) EXPECT_EQ(EnvironmentValue(run, "LC_ALL"), "C");
}

TEST_F(LauncherCollectionTest, WithoutParallelCommandsTheBuildComesFirst) {
  options_.parallel_commands = false;
  ASSERT_TRUE(CollectFromCudaSource(source_path_, options_, runner_, notes_).ok());
  EXPECT_EQ(runner_.CommandsOf("nvcc")[0].argv.back(), source_path_);
  EXPECT_FALSE(ContainsSequence(runner_.CommandsOf("nvcc")[0].argv, {"-shared"}));
  EXPECT_EQ(runner_.CommandsOf("ncu")[0].argv.back(), Binary());
}

TEST_F(LauncherCollectionTest, ABuildFailureIsNvccsErrorAndTheLauncherRunsNothing) {
  runner_.OnCommand("nvcc", {}, ExitedWith(1, "", "probe.cu(3): error: identifier \"x\" is undefined\n"));
  ProfilingRunGives(
      ExitedWith(0, "==PROF== Connected to process 1\n==WARNING== No kernels were profiled.\n"));
  Result<Profile> profile = CollectFromCudaSource(source_path_, options_, runner_, notes_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kWorkFailed);
  EXPECT_TRUE(Contains(profile.status().message(), "does not compile")) << profile.status().message();
  EXPECT_TRUE(Contains(profile.status().message(), "identifier \"x\" is undefined"));
  EXPECT_EQ(ReadTestFile(Ready()), "failed\n");
  EXPECT_TRUE(runner_.CommandsOf("cuobjdump").empty());
}

TEST_F(LauncherCollectionTest, AProgramTheLauncherCannotLoadIsBuiltAgainAsAnExecutable) {
  runner_.OnCommand("ncu", {options_.launcher},
                    ExitedWith(1, "==PROF== Connected to process 1\n",
                               "kopt-launcher: cannot load " + Library() +
                                   ": undefined symbol: f\n"
                                   "==ERROR== The application returned an error code (98).\n"));
  Result<Profile> profile = CollectFromCudaSource(source_path_, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  std::vector<CommandSpec> nvcc = runner_.CommandsOf("nvcc");
  ASSERT_EQ(nvcc.size(), 2u);
  EXPECT_EQ(nvcc[1].argv.back(), source_path_);
  EXPECT_FALSE(ContainsSequence(nvcc[1].argv, {"-shared"}));
  ASSERT_EQ(ProfilingRuns().size(), 2u);
  EXPECT_EQ(ProfilingRuns()[1].argv.back(), Binary());
  ASSERT_EQ(notes_.size(), 1u) << JoinForTest(notes_);
  EXPECT_TRUE(Contains(notes_[0], "could not run the program built as a shared object")) << notes_[0];
}

TEST_F(LauncherCollectionTest, AProgramThatFailsUnderTheLauncherIsTheProgramsFailure) {
  runner_.OnCommand("ncu", {options_.launcher},
                    ExitedWith(1, "==PROF== Connected to process 1\n",
                               "==ERROR== The application returned an error code (11).\n"));
  Result<Profile> profile = CollectFromCudaSource(source_path_, options_, runner_, notes_);
  ASSERT_FALSE(profile.ok());
  EXPECT_TRUE(Contains(profile.status().message(), "error code 11")) << profile.status().message();
  EXPECT_EQ(runner_.CommandsOf("nvcc").size(), 1u);
}

// The timeline run: the program under the injection library, which writes timeline.<pid>.jsonl where
// KOPT_TIMELINE_OUT says; 20,000 launches of one kernel and 2 of another.
class TimelineCollectionTest : public NcuCollectorTest {
 protected:
  void SetUp() override {
    NcuCollectorTest::SetUp();
    options_.timeline_library = "/opt/kopt/lib/libkopt_timeline.so";
    options_.launches_per_configuration = 3;
    runner_.AddProgram("./app");
    runner_.OnCommand("./app", {}, ExitedWith(0, "ok\n"), [](const CommandSpec& spec) {
      std::string path = EnvironmentValue(spec, "KOPT_TIMELINE_OUT");
      path.replace(path.find("%p"), 2, "4242");
      std::string text = R"({"format":"kopt-timeline","version":1,"time_unit":"ns","pid":4242})"
                         "\n";
      auto kernel = [](const char* name, long long start) {
        return std::string(R"({"kind":"kernel","name":")") + name + R"(","start":)" + std::to_string(start) +
               R"(,"end":)" + std::to_string(start + 2000) +
               R"(,"device":0,"context":1,"stream":7,"correlation":1,"grid":[8,1,1],"block":[256,1,1]})" +
               "\n";
      };
      text += kernel("_Z11fill_randomPfijff", 0) + kernel("_Z11fill_randomPfijff", 3000);
      for (int i = 0; i < 20000; ++i) text += kernel("_Z9tiny_stepPfPKffi", 10000 + 3000LL * i);
      text += R"({"kind":"end","records":20002,"dropped":0})"
              "\n";
      WriteFile(path, text);
    });
  }
};

TEST_F(TimelineCollectionTest, TheTimelineRunComesFirstAndNcuProfilesASample) {
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  ASSERT_GE(runner_.commands().size(), 2u);
  const CommandSpec& timeline_run = runner_.commands()[0];
  EXPECT_EQ(timeline_run.argv, (std::vector<std::string>{"./app"}));
  EXPECT_EQ(EnvironmentValue(timeline_run, "CUDA_INJECTION64_PATH"), "/opt/kopt/lib/libkopt_timeline.so");
  EXPECT_EQ(EnvironmentValue(timeline_run, "KOPT_TIMELINE_OUT"), (work_ / "timeline.%p.jsonl").string());
  // The sample (2 fill launches, the first 3 of tiny_step) is the program's first 5 launches: ncu ends
  // the program after them instead of intercepting the other 19,997.
  EXPECT_TRUE(ContainsSequence(runner_.CommandsOf("ncu")[0].argv, {"--launch-count", "5", "--kill", "yes"}));
  EXPECT_FALSE(ContainsSequence(runner_.CommandsOf("ncu")[0].argv, {"--filter-mode"}));
  ASSERT_TRUE(profile->trace.has_value());
  EXPECT_EQ(profile->trace->KernelCount(), 20002);
  EXPECT_TRUE(std::any_of(profile->inputs.begin(), profile->inputs.end(), [](const ProfileInput& input) {
    return input.role == "launch timeline" && input.origin == "collected";
  }));
  EXPECT_TRUE(std::any_of(notes_.begin(), notes_.end(), [](const std::string& note) {
    return Contains(note, "profiled 5 of the 20002 launches") && Contains(note, "3 of 20000 of tiny_step");
  }));
}

// Issue 19 item 10: the targeted collection runs ncu with --csv, and ncu then prints no `==PROF== Profiling`
// line (H200, tests/fixtures/collector/ncu_printed_raw_page.txt): the line still moves while ncu runs,
// redrawn with the seconds it has taken and what is known (the sampled launches of the timeline's). Here
// on the real clock: the fake ncu "runs" until the line was redrawn at one second (at most 4 s).
TEST_F(TimelineCollectionTest, TheTargetedCollectionRedrawsTheLineWhileNcuPrintsNothing) {
  options_.write_report = false;
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::string> lines;
  options_.progress = [&](std::string_view line) {
    std::lock_guard lock(mutex);
    lines.emplace_back(line);
    changed.notify_all();
  };
  const std::string refreshed = "profiling app under ncu: 5 launches sampled of 20002 · 1 s";
  runner_.OnCommand("ncu", {"--csv"}, ExitedWith(0, Fixture("collector/ncu_printed_raw_page.txt")),
                    [&](const CommandSpec&) {
                      std::unique_lock lock(mutex);
                      changed.wait_for(lock, std::chrono::seconds(4), [&] {
                        return std::find(lines.begin(), lines.end(), refreshed) != lines.end();
                      });
                    });
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  std::lock_guard lock(mutex);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[0], "running app once for the launch timeline");
  // (the fake timeline run of 20,002 launches may take over a second: its line is redrawn then)
  EXPECT_NE(std::find(lines.begin(), lines.end(), "profiling app under ncu: 5 launches sampled of 20002"),
            lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), refreshed), lines.end());
  EXPECT_EQ(lines.back(), "reading the raw page ncu printed");
}

// With ncu's per-launch lines (a report, --set full) each launch is "i of" the sampled launches.
TEST_F(TimelineCollectionTest, EachLaunchNcuNamesIsCountedAgainstTheSample) {
  std::vector<std::string> lines;
  options_.progress = [&lines](std::string_view line) { lines.emplace_back(line); };
  options_.progress_refresh_seconds = 0;
  ASSERT_TRUE(CollectFromProgram({"./app"}, options_, runner_, notes_).ok());
  EXPECT_NE(std::find(lines.begin(), lines.end(), "profiling launch 1 of 5: scale (ncu launch ID 0)"),
            lines.end());
  // A kernel regex: the timeline's counts are not ncu's, so none is claimed.
  lines.clear();
  options_.kernel_regex = "tiny";
  ASSERT_TRUE(CollectFromProgram({"./app"}, options_, runner_, notes_).ok());
  EXPECT_NE(std::find(lines.begin(), lines.end(), "profiling launch 1: scale (ncu launch ID 0)"),
            lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      "profiling app under ncu: kernels matching 'tiny', first 3 launches per configuration"),
            lines.end())
      << JoinForTest(lines);
}

// A collection that fails returns with its ticker ended: nothing is drawn afterwards.
TEST_F(NcuCollectorTest, AFailedCollectionStopsItsTickerBeforeReturning) {
  DrawnLinesCounter drawn;
  std::atomic<double> now = 0;
  options_.progress = drawn.Sink();
  options_.progress_refresh_seconds = 0.001;
  options_.progress_clock = [&now] { return now.load(); };
  ProfilingRunGives(ExitedWith(1, "", "==ERROR== something broke\n"));
  runner_.AddProgram("./app");
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_, notes_);
  ASSERT_FALSE(profile.ok());
  size_t count = drawn.Count();
  now = 30;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(drawn.Count(), count);
}

TEST_F(TimelineCollectionTest, AFailedEarlyStopRunProfilesTheSampleAgainWithTheProgramRunningOn) {
  runner_.OnCommand("ncu", {"--kill"}, ExitedWith(1, "==ERROR== unrecognised option '--kill'\n"));
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  std::vector<CommandSpec> profiling;
  for (const CommandSpec& spec : runner_.CommandsOf("ncu")) {
    if (ContainsSequence(spec.argv, {"--set"})) profiling.push_back(spec);
  }
  ASSERT_EQ(profiling.size(), 2u);
  EXPECT_TRUE(
      ContainsSequence(profiling[1].argv, {"--filter-mode", "per-launch-config", "--launch-count", "3"}));
  EXPECT_FALSE(ContainsSequence(profiling[1].argv, {"--kill"}));
  EXPECT_TRUE(std::any_of(notes_.begin(), notes_.end(), [](const std::string& note) {
    return Contains(note, "ncu could not stop the program after the sampled launches") &&
           Contains(note, "unrecognised option");
  }));
}

TEST_F(TimelineCollectionTest, AProgramEndedByNcuAfterTheSampleIsNoFailure) {
  // What ncu says when --kill ends the program: its exit status is not the program's verdict.
  runner_.OnCommand("ncu", {"--kill"},
                    ExitedWith(0, Fixture("collector/ncu_success.txt") +
                                      "==ERROR== The application returned an error code (9).\n"),
                    WriteOutputOf("-o", ".ncu-rep"));
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_EQ(runner_.CommandsOf("ncu").size(), 3u);  // one profiling run, two exports
}

TEST_F(TimelineCollectionTest, AKernelFilterKeepsThePerConfigurationSample) {
  // --launch-count would count only the launches the filter matches: the early stop is not used.
  options_.kernel_regex = "tiny";
  ASSERT_TRUE(CollectFromProgram({"./app"}, options_, runner_, notes_).ok());
  EXPECT_TRUE(ContainsSequence(runner_.CommandsOf("ncu")[0].argv,
                               {"--filter-mode", "per-launch-config", "--launch-count", "3"}));
  EXPECT_FALSE(ContainsSequence(runner_.CommandsOf("ncu")[0].argv, {"--kill"}));
}

TEST_F(TimelineCollectionTest, ACudaSourceIsProfiledFirstAndTracedOnlyWhenNcuMayHaveLeftLaunchesOut) {
  // The probe's profile has one launch of each kernel: ncu saw every launch, no timeline run.
  Result<Profile> profile = CollectFromCudaSource(source_path_, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_TRUE(runner_.CommandsOf(Binary()).empty());
  EXPECT_FALSE(profile->trace.has_value());
  EXPECT_TRUE(ContainsSequence(runner_.CommandsOf("ncu")[0].argv,
                               {"--filter-mode", "per-launch-config", "--launch-count", "3"}));
  EXPECT_TRUE(std::any_of(notes_.begin(), notes_.end(), [](const std::string& note) {
    return Contains(note, "no launch timeline: ncu profiled every launch of the program");
  }));

  // A limit of 1 per configuration: ncu may have left launches out, so the timeline run follows ncu.
  notes_.clear();
  options_.launches_per_configuration = 1;
  runner_.AddProgram(Binary());
  profile = CollectFromCudaSource(source_path_, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  ASSERT_EQ(runner_.CommandsOf(Binary()).size(), 1u);
  size_t ncu_index = 0, timeline_index = 0;
  for (size_t index = 0; index < runner_.commands().size(); ++index) {
    const CommandSpec& spec = runner_.commands()[index];
    if (spec.argv[0] == "ncu" && ContainsSequence(spec.argv, {"--set"})) ncu_index = index;
    if (spec.argv[0] == Binary()) timeline_index = index;
  }
  EXPECT_LT(ncu_index, timeline_index);
  EXPECT_TRUE(std::any_of(notes_.begin(), notes_.end(), [](const std::string& note) {
    return Contains(note, "no launch timeline to count them") || Contains(note, "no timeline file appeared");
  }));
}

TEST_F(TimelineCollectionTest, AUserSelectionOrZeroPerKernelProfilesWithoutSampling) {
  options_.launch_count = 10;
  ASSERT_TRUE(CollectFromProgram({"./app"}, options_, runner_, notes_).ok());
  EXPECT_FALSE(ContainsSequence(runner_.CommandsOf("ncu")[0].argv, {"--filter-mode"}));
  options_.launch_count = 0;
  options_.launches_per_configuration = 0;
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok());
  EXPECT_FALSE(ContainsSequence(runner_.CommandsOf("ncu").back().argv, {"--filter-mode"}));
  EXPECT_TRUE(profile->trace.has_value());  // the timeline is still taken
}

TEST_F(TimelineCollectionTest, AFailedTimelineRunIsANoteAndNcuStillSamples) {
  runner_.OnCommand("./app", {}, ExitedWith(3, "", "boom\n"));
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_FALSE(profile->trace.has_value());
  EXPECT_TRUE(ContainsSequence(runner_.CommandsOf("ncu")[0].argv,
                               {"--filter-mode", "per-launch-config", "--launch-count", "3"}));
  EXPECT_TRUE(std::any_of(notes_.begin(), notes_.end(), [](const std::string& note) {
    return Contains(note, "the timeline run of `./app`") && Contains(note, "no launch timeline");
  }));
  EXPECT_TRUE(std::any_of(notes_.begin(), notes_.end(), [](const std::string& note) {
    return Contains(note, "no launch timeline to count them");
  }));
}

TEST_F(TimelineCollectionTest, AStaleTimelineIsRemovedBeforeTheRun) {
  fs::create_directories(work_);
  WriteFile(work_ / "timeline.1.jsonl", "stale");
  runner_.OnCommand("./app", {}, ExitedWith(0, ""));  // writes nothing this time
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_, notes_);
  ASSERT_TRUE(profile.ok());
  EXPECT_FALSE(profile->trace.has_value());
  EXPECT_FALSE(fs::exists(work_ / "timeline.1.jsonl"));
  EXPECT_TRUE(std::any_of(notes_.begin(), notes_.end(), [](const std::string& note) {
    return Contains(note, "no timeline file appeared");
  }));
}

// ---- CollectFromProgram --------------------------------------------------------

TEST_F(NcuCollectorTest, ProgramCommandLineKeepsArgumentsVerbatim) {
  Result<Profile> profile = CollectFromProgram({"./app", "--size", "1 024", "*"}, options_, runner_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  ASSERT_EQ(runner_.CommandsOf("ncu").size(), 3u);
  EXPECT_EQ(runner_.CommandsOf("ncu")[0].argv,
            (std::vector<std::string>{"ncu", "--set", "full", "--clock-control", "none", "--import-source",
                                      "yes", "--target-processes", "all", "-f", "-o", ReportBase(), "./app",
                                      "--size", "1 024", "*"}));
  EXPECT_EQ(profile->source, "ncu ./app --size '1 024' '*'");
  EXPECT_FALSE(profile->sass.has_value());
}

TEST_F(NcuCollectorTest, ProgramKernelRegexIsNotPrefixedTwice) {
  options_.kernel_regex = "regex:^sax";
  ASSERT_TRUE(CollectFromProgram({"./app"}, options_, runner_).ok());
  EXPECT_TRUE(ContainsSequence(runner_.CommandsOf("ncu")[0].argv,
                               {"-k", "regex:^[sS][aA][xX]", "--target-processes"}));
}

TEST_F(NcuCollectorTest, ProgramByBareNameIsLookedUpOnPath) {
  runner_.AddProgram("python3");
  ASSERT_TRUE(CollectFromProgram({"python3", "bench.py"}, options_, runner_).ok());
  EXPECT_TRUE(
      ContainsSequence(runner_.CommandsOf("ncu")[0].argv, {ReportBase(), "/fake/bin/python3", "bench.py"}));
}

TEST_F(NcuCollectorTest, ProgramByUnknownBareNameIsNotFound) {
  Result<Profile> profile = CollectFromProgram({"myapp"}, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kNotFound);
  EXPECT_TRUE(Contains(profile.status().message(), "'myapp'"));
  EXPECT_TRUE(Contains(profile.status().message(), "./myapp"));
  EXPECT_TRUE(runner_.CommandsOf("ncu").empty());
}

TEST_F(NcuCollectorTest, CounterPermissionIsPermissionDeniedWithTheFix) {
  ProfilingRunGives(ExitedWith(0, Fixture("collector/ncu_permission.txt")));
  Result<Profile> profile = CollectFromProgram({"./probe"}, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kPermission);
  const std::string& message = profile.status().message();
  EXPECT_TRUE(Contains(message, "ERR_NVGPUCTRPERM"));
  EXPECT_TRUE(Contains(message, "root"));
  EXPECT_TRUE(Contains(message, "NVreg_RestrictProfilingToAdminUsers=0"));
  EXPECT_TRUE(Contains(message, "https://developer.nvidia.com/ERR_NVGPUCTRPERM"));
  EXPECT_TRUE(Contains(message, "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission"));
  EXPECT_TRUE(runner_.CommandsOf("ncu").size() == 1u);  // no import attempted
}

TEST_F(NcuCollectorTest, FilterMatchingNothingIsWorkFailedNamingTheFilter) {
  options_.kernel_regex = "gemm";
  ProfilingRunGives(ExitedWith(0, Fixture("collector/ncu_no_kernels.txt")));
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kWorkFailed);
  const std::string& message = profile.status().message();
  EXPECT_TRUE(Contains(message, "no kernel launch matched"));
  EXPECT_TRUE(Contains(message, "'gemm'"));
  EXPECT_TRUE(Contains(message, "The program launched: scale"));
  EXPECT_TRUE(Contains(message, "allocating the second buffer"));
  EXPECT_FALSE(Contains(message, "1. scale"));
  EXPECT_EQ(runner_.CommandsOf("ncu").size(), 1u);
}

TEST_F(NcuCollectorTest, ProgramWithoutKernelsIsWorkFailed) {
  ProfilingRunGives(
      ExitedWith(0,
                 "==PROF== Connected to process 7 (/tmp/probe)\nhello\n"
                 "==PROF== Disconnected from process 7\n==WARNING== No kernels were profiled.\n"));
  Result<Profile> profile = CollectFromProgram({"./probe"}, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kWorkFailed);
  EXPECT_TRUE(Contains(profile.status().message(), "no kernel"));
  EXPECT_TRUE(Contains(profile.status().message(), "./probe"));
}

TEST_F(NcuCollectorTest, MissingProgramIsNotFoundWithNcusLine) {
  std::string output = Fixture("collector/ncu_missing_program.txt");
  ProfilingRunGives(ExitedWith(1, output));
  Result<Profile> profile = CollectFromProgram({"./nonexistent"}, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kNotFound);
  EXPECT_TRUE(Contains(profile.status().message(), "./nonexistent"));
  EXPECT_TRUE(Contains(profile.status().message(), output.substr(0, output.size() - 1)));
}

TEST_F(NcuCollectorTest, CrashingProgramIsWorkFailedWithStatusAndTail) {
  ProfilingRunGives(ExitedWith(11, Fixture("collector/ncu_crash.txt")), /*writes_report=*/true);
  Result<Profile> profile = CollectFromProgram({"./app", "s"}, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kWorkFailed);
  const std::string& message = profile.status().message();
  EXPECT_TRUE(Contains(message, "./app s"));
  EXPECT_TRUE(Contains(message, "error code 11"));
  EXPECT_TRUE(Contains(message, "signal 11 (SIGSEGV)"));
  EXPECT_TRUE(Contains(message, "==ERROR== The application returned an error code (11)."));
  EXPECT_TRUE(Contains(message, "allocating the second buffer"));
  EXPECT_FALSE(Contains(message, "==PROF=="));
}

TEST_F(NcuCollectorTest, IllegalAddressIsWorkFailedWithNcusErrors) {
  ProfilingRunGives(ExitedWith(9, Fixture("collector/ncu_illegal_address.txt")), /*writes_report=*/true);
  Result<Profile> profile = CollectFromProgram({"./app", "i"}, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kWorkFailed);
  const std::string& message = profile.status().message();
  EXPECT_TRUE(Contains(message, "==ERROR== LaunchFailed"));
  EXPECT_TRUE(Contains(message, "error code 9"));
  EXPECT_TRUE(Contains(message, "SIGKILL"));
}

TEST_F(NcuCollectorTest, NonZeroExitOfTheProgramIsWorkFailed) {
  ProfilingRunGives(ExitedWith(3, Fixture("collector/ncu_exit_code.txt")), /*writes_report=*/true);
  Result<Profile> profile = CollectFromProgram({"./app", "e"}, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kWorkFailed);
  EXPECT_TRUE(Contains(profile.status().message(), "returned error code 3)"));
  EXPECT_FALSE(Contains(profile.status().message(), "signal"));
}

TEST_F(NcuCollectorTest, CrashTailIsLimitedToTheLastLines) {
  std::string output;
  for (int line = 1; line <= 100; ++line) output += "program line " + std::to_string(line) + "\n";
  output += "==ERROR== The application returned an error code (1).\n";
  ProfilingRunGives(ExitedWith(1, output));
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_TRUE(Contains(profile.status().message(), "program line 81\n"));
  EXPECT_TRUE(EndsWith(profile.status().message(), "program line 100"));
  EXPECT_FALSE(Contains(profile.status().message(), "program line 80\n"));
}

TEST_F(NcuCollectorTest, NcuKilledBySignalIsWorkFailed) {
  ProfilingRunGives(KilledBySignal(9, "==PROF== Connected to process 1 (/tmp/app)\n"));
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kWorkFailed);
  EXPECT_TRUE(Contains(profile.status().message(), "SIGKILL"));
}

TEST_F(NcuCollectorTest, NcuTimeoutIsWorkFailed) {
  ProfilingRunGives(TimedOutResult("==PROF== Profiling \"k\" - 0: 0%....50%"));
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kWorkFailed);
  EXPECT_TRUE(Contains(profile.status().message(), "timed out after 7 s"));
  EXPECT_TRUE(Contains(profile.status().message(), "./app"));
}

TEST_F(NcuCollectorTest, OtherNcuErrorsAreSurfacedVerbatim) {
  std::string error_line =
      "==ERROR== Nsight Compute failed to connect to the CUDA driver (stub libcuda.so[.1] on path?).";
  ProfilingRunGives(ExitedWith(1, "==PROF== Connected to process 1 (/tmp/app)\n" + error_line + "\n"));
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kWorkFailed);
  EXPECT_TRUE(Contains(profile.status().message(), error_line));
}

TEST_F(NcuCollectorTest, NoReportWrittenIsWorkFailed) {
  fs::create_directories(work_);
  WriteFile(work_ / "profile.ncu-rep", "stale report from an earlier run");
  ProfilingRunGives(ExitedWith(0, Fixture("collector/ncu_success.txt")), /*writes_report=*/false);
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kWorkFailed);
  EXPECT_TRUE(Contains(profile.status().message(), "profile.ncu-rep"));
  EXPECT_TRUE(runner_.CommandsOf("ncu").size() == 1u);
}

TEST_F(NcuCollectorTest, EmptyProgramIsInvalidInput) {
  Result<Profile> profile = CollectFromProgram({}, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kInvalidInput);
}

TEST_F(NcuCollectorTest, NegativeLaunchCountIsInvalidInput) {
  options_.launch_count = -1;
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kInvalidInput);
}

TEST_F(NcuCollectorTest, MissingWorkDirectoryIsInvalidInput) {
  options_.work_directory.clear();
  Result<Profile> profile = CollectFromProgram({"./app"}, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kInvalidInput);
}

// ---- ImportNcuReport -----------------------------------------------------------

class ImportNcuReportTest : public NcuCollectorTest {
 protected:
  void SetUp() override {
    NcuCollectorTest::SetUp();
    report_path_ = (root_ / "r.ncu-rep").string();
    WriteFile(report_path_, std::string("NVIDIA\0report", 13));
  }
  std::string report_path_;
};

TEST_F(ImportNcuReportTest, ExportsTheRawPageAndParsesIt) {
  Result<Profile> profile = ImportNcuReport(report_path_, options_, runner_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  ASSERT_EQ(runner_.commands().size(), 1u);
  EXPECT_EQ(runner_.commands()[0].argv, (std::vector<std::string>{"ncu", "--import", report_path_, "--csv",
                                                                  "--page", "raw", "--print-units", "base"}));
  EXPECT_EQ(EnvironmentValue(runner_.commands()[0], "LC_ALL"), "C");
  EXPECT_EQ(profile->source, report_path_);
  ASSERT_EQ(profile->launches.size(), 3u);
  EXPECT_EQ(profile->launches[2].kernel_name, "strided(const float *, float *, int, int)");
  EXPECT_FALSE(fs::exists(work_));  // an import writes no bundle
}

TEST_F(ImportNcuReportTest, UsesTheConfiguredNcu) {
  options_.ncu = "/opt/nvidia/nsight-compute/2025.3.1/ncu";
  ASSERT_TRUE(ImportNcuReport(report_path_, options_, runner_).ok());
  EXPECT_EQ(runner_.commands()[0].argv[0], "/opt/nvidia/nsight-compute/2025.3.1/ncu");
}

TEST_F(ImportNcuReportTest, MessageLinesBeforeTheCsvAreIgnored) {
  runner_.OnCommand("ncu", {"--import"},
                    ExitedWith(0, "==WARNING== Report was collected with an older version.\n" +
                                      Fixture("probe/raw_base.csv")));
  Result<Profile> profile = ImportNcuReport(report_path_, options_, runner_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_EQ(profile->launches.size(), 3u);
}

TEST_F(ImportNcuReportTest, MissingFileIsNotFoundNamingIt) {
  Result<Profile> profile = ImportNcuReport((root_ / "absent.ncu-rep").string(), options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kNotFound);
  EXPECT_TRUE(Contains(profile.status().message(), "absent.ncu-rep"));
  EXPECT_TRUE(runner_.commands().empty());
}

TEST_F(ImportNcuReportTest, EmptyFileIsInvalidInput) {
  WriteFile(report_path_, "");
  Result<Profile> profile = ImportNcuReport(report_path_, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_TRUE(Contains(profile.status().message(), report_path_));
  EXPECT_TRUE(Contains(profile.status().message(), "empty"));
}

TEST_F(ImportNcuReportTest, MissingNcuIsUnavailableWithTheWorkaround) {
  runner_.RemoveProgram("ncu");
  Result<Profile> profile = ImportNcuReport(report_path_, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kUnavailable);
  const std::string& message = profile.status().message();
  EXPECT_TRUE(Contains(message, "needs Nsight Compute's ncu on PATH"));
  EXPECT_TRUE(
      Contains(message, "ncu --import " + report_path_ + " --csv --page raw --print-units base > r.csv"));
  EXPECT_TRUE(Contains(message, "kopt explain r.csv"));
}

TEST_F(ImportNcuReportTest, EmptyExportIsWorkFailed) {
  runner_.OnCommand("ncu", {"--import"}, ExitedWith(0, ""));
  Result<Profile> profile = ImportNcuReport(report_path_, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kWorkFailed);
  EXPECT_TRUE(Contains(profile.status().message(), "contains no kernel"));
  EXPECT_TRUE(Contains(profile.status().message(), report_path_));
}

TEST_F(ImportNcuReportTest, HeaderOnlyExportIsWorkFailed) {
  std::string csv = Fixture("probe/raw_base.csv");
  size_t second_newline = csv.find('\n', csv.find('\n') + 1);
  runner_.OnCommand("ncu", {"--import"}, ExitedWith(0, csv.substr(0, second_newline + 1)));
  Result<Profile> profile = ImportNcuReport(report_path_, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kWorkFailed);
  EXPECT_TRUE(Contains(profile.status().message(), "contains no kernel"));
}

TEST_F(ImportNcuReportTest, UnreadableReportIsInvalidInputWithNcusError) {
  runner_.OnCommand("ncu", {"--import"}, ExitedWith(1, Fixture("collector/import_garbage.txt")));
  Result<Profile> profile = ImportNcuReport(report_path_, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_TRUE(Contains(profile.status().message(), report_path_));
  EXPECT_TRUE(
      Contains(profile.status().message(), "==ERROR== The file is not an Nsight Compute profiler report."));
}

TEST_F(ImportNcuReportTest, TruncatedReportIsInvalidInputWithNcusError) {
  runner_.OnCommand("ncu", {"--import"}, ExitedWith(1, Fixture("collector/import_truncated.txt")));
  Result<Profile> profile = ImportNcuReport(report_path_, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_TRUE(Contains(profile.status().message(), "unexpected incompatibility"));
}

TEST_F(ImportNcuReportTest, MalformedExportNamesTheReport) {
  std::string csv = Fixture("probe/raw_base.csv");
  runner_.OnCommand("ncu", {"--import"}, ExitedWith(0, csv.substr(0, csv.size() - 4000)));
  Result<Profile> profile = ImportNcuReport(report_path_, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_TRUE(Contains(profile.status().message(), report_path_));
}

TEST_F(ImportNcuReportTest, ImportTimeoutIsWorkFailed) {
  runner_.OnCommand("ncu", {"--import"}, TimedOutResult());
  Result<Profile> profile = ImportNcuReport(report_path_, options_, runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kWorkFailed);
  EXPECT_TRUE(Contains(profile.status().message(), "timed out after 7 s"));
}

// ---- with the system runner: missing tools -----------------------------------

TEST(NcuCollectorSystemTest, MissingToolsAreUnavailable) {
  std::unique_ptr<CommandRunner> runner = MakeSystemCommandRunner();
  CollectionOptions options;
  options.ncu = "kopt-no-such-ncu";
  options.nvcc = "kopt-no-such-nvcc";
  fs::path directory = fs::temp_directory_path() / ("kopt_collector_system_" + std::to_string(getpid()));
  fs::create_directories(directory);
  options.work_directory = (directory / "bundle").string();
  WriteFile(directory / "k.cu", "__global__ void k() {}\n");
  WriteFile(directory / "r.ncu-rep", "report");

  Result<Profile> from_source = CollectFromCudaSource((directory / "k.cu").string(), options, *runner);
  Result<Profile> from_report = ImportNcuReport((directory / "r.ncu-rep").string(), options, *runner);
  Result<Profile> from_program = CollectFromProgram({"/bin/true"}, options, *runner);
  fs::remove_all(directory);
  ASSERT_FALSE(from_source.ok());
  EXPECT_EQ(from_source.status().kind(), ErrorKind::kUnavailable);
  EXPECT_TRUE(Contains(from_source.status().message(), "kopt-no-such-nvcc"));
  ASSERT_FALSE(from_report.ok());
  EXPECT_EQ(from_report.status().kind(), ErrorKind::kUnavailable);
  ASSERT_FALSE(from_program.ok());
  EXPECT_EQ(from_program.status().kind(), ErrorKind::kUnavailable);
  EXPECT_TRUE(Contains(from_program.status().message(), "kopt-no-such-ncu"));
}

// ---- live, on a GPU machine: KOPT_LIVE_GPU_TESTS=1 -----------------------------

// Runs the real nvidia-smi, nvcc, ncu and cuobjdump. Skipped unless
// KOPT_LIVE_GPU_TESTS=1; KOPT_KEEP_LIVE_BUNDLE=1 keeps the bundles in /tmp.
class NcuCollectorLiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* flag = std::getenv("KOPT_LIVE_GPU_TESTS");
    if (flag == nullptr || std::string(flag) != "1") {
      GTEST_SKIP() << "set KOPT_LIVE_GPU_TESTS=1 on a GPU machine with nvcc and ncu";
    }
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() / ("kopt_live_" + std::to_string(getpid()) + "_" + test->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    options_.work_directory = (root_ / "bundle").string();
    options_.timeout_seconds = 300;
  }
  void TearDown() override {
    const char* keep = std::getenv("KOPT_KEEP_LIVE_BUNDLE");
    if (!root_.empty() && (keep == nullptr || std::string(keep) != "1")) fs::remove_all(root_);
  }

  // Writes a CUDA program that launches `scale` once and then does `ending`.
  std::string WriteProgram(const std::string& name, const std::string& ending) {
    std::string path = (root_ / name).string();
    WriteFile(path,
              "#include <csignal>\n#include <cstdio>\n"
              "__global__ void scale(float* x) { x[threadIdx.x] *= 2.f; }\n"
              "int main() {\n  float* x;\n  cudaMalloc(&x, 1024);\n  scale<<<1, 256>>>(x);\n"
              "  cudaDeviceSynchronize();\n  printf(\"launched\\n\");\n  fflush(stdout);\n  " +
                  ending + "\n}\n");
    return path;
  }

  fs::path root_;
  CollectionOptions options_;
  std::unique_ptr<CommandRunner> runner_ = MakeSystemCommandRunner();
  std::vector<std::string> notes_;
};

TEST_F(NcuCollectorLiveTest, ProfilesTheProbeKernelsAndImportsTheReport) {
  std::string source = (fs::path(KOPT_FIXTURE_DIR) / "probe" / "probe.cu").string();
  Result<Profile> profile = CollectFromCudaSource(source, options_, *runner_, notes_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  for (const std::string& note : notes_) std::cout << "note: " << note << "\n";
  ASSERT_EQ(profile->launches.size(), 3u);
  EXPECT_EQ(profile->launches[0].FunctionName(), "saxpy");
  EXPECT_EQ(profile->launches[2].FunctionName(), "strided");
  EXPECT_TRUE(profile->launches[0].Metric("gpu__time_duration.sum").has_value());
  ASSERT_TRUE(profile->ptxas.has_value());
  EXPECT_EQ(profile->ptxas->functions.size(), 2u);
  ASSERT_TRUE(profile->sass.has_value());
  EXPECT_NE(FindSassFunction(*profile->sass, "strided"), nullptr);
  for (const char* file : {"probe", "ptxas.txt", "sass.txt", "raw.csv", "ncu.log", "profile.ncu-rep"}) {
    EXPECT_TRUE(fs::exists(fs::path(options_.work_directory) / file)) << file;
  }
  Result<Profile> imported =
      ImportNcuReport((fs::path(options_.work_directory) / "profile.ncu-rep").string(), options_, *runner_);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  EXPECT_EQ(imported->launches.size(), 3u);
}

TEST_F(NcuCollectorLiveTest, KernelFilterSelectsLaunches) {
  options_.kernel_regex = "^saxpy$";
  options_.launch_skip = 1;
  options_.launch_count = 1;
  options_.section_set = "basic";
  Result<Profile> profile =
      CollectFromCudaSource((fs::path(KOPT_FIXTURE_DIR) / "probe" / "probe.cu").string(), options_, *runner_);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  ASSERT_EQ(profile->launches.size(), 1u);
  EXPECT_EQ(profile->launches[0].FunctionName(), "saxpy");
}

TEST_F(NcuCollectorLiveTest, FilterMatchingNothingFails) {
  options_.kernel_regex = "no_such_kernel";
  options_.section_set = "basic";
  Result<Profile> profile = CollectFromCudaSource(WriteProgram("fine.cu", "return 0;"), options_, *runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kWorkFailed) << profile.status().message();
  EXPECT_TRUE(Contains(profile.status().message(), "The program launched: scale"))
      << profile.status().message();
}

TEST_F(NcuCollectorLiveTest, CrashingProgramFails) {
  options_.section_set = "basic";
  Result<Profile> profile =
      CollectFromCudaSource(WriteProgram("crash.cu", "raise(SIGSEGV);"), options_, *runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kWorkFailed) << profile.status().message();
  EXPECT_TRUE(Contains(profile.status().message(), "SIGSEGV")) << profile.status().message();
  EXPECT_TRUE(Contains(profile.status().message(), "launched")) << profile.status().message();
}

TEST_F(NcuCollectorLiveTest, BrokenSourceFails) {
  Result<Profile> profile =
      CollectFromCudaSource(WriteProgram("broken.cu", "undefined_scale = 1;"), options_, *runner_);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().kind(), ErrorKind::kWorkFailed);
  EXPECT_TRUE(Contains(profile.status().message(), "undefined_scale")) << profile.status().message();
}

// ---- architecture helpers -------------------------------------------------------

TEST(CollectorArchitectureTest, ComputeCapabilityToArchitecture) {
  EXPECT_EQ(ArchitectureForComputeCapability("9.0").value(), "sm_90a");
  EXPECT_EQ(ArchitectureForComputeCapability(" 8.0\n").value(), "sm_80");
  EXPECT_EQ(ArchitectureForComputeCapability("8.6").value(), "sm_86");
  EXPECT_EQ(ArchitectureForComputeCapability("8.9").value(), "sm_89");
  EXPECT_EQ(ArchitectureForComputeCapability("10.0").value(), "sm_100");
  EXPECT_EQ(ArchitectureForComputeCapability("12.0").value(), "sm_120");
  EXPECT_FALSE(ArchitectureForComputeCapability("[N/A]").ok());
  EXPECT_FALSE(ArchitectureForComputeCapability("").ok());
  EXPECT_FALSE(ArchitectureForComputeCapability("9").ok());
}

TEST(CollectorArchitectureTest, GencodeFlags) {
  EXPECT_EQ(GencodeFlagFor("sm_90a").value(), "-gencode=arch=compute_90a,code=sm_90a");
  EXPECT_EQ(GencodeFlagFor("sm_86").value(), "-gencode=arch=compute_86,code=sm_86");
  EXPECT_EQ(GencodeFlagFor("sm_100a").value(), "-gencode=arch=compute_100a,code=sm_100a");
  Result<std::string> bad = GencodeFlagFor("90");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_FALSE(GencodeFlagFor("sm_90; rm -rf /").ok());
}

}  // namespace
}  // namespace kopt
