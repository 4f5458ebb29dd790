#include "profile/profile_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/fake_command_runner_test_util.h"

namespace kopt {
namespace {

using ::testing::HasSubstr;

std::string Fixture(const std::string& kernel) {
  return std::string(KOPT_FIXTURE_DIR) + "/h200/" + kernel;
}

KernelLaunch Launch(const std::string& name) {
  KernelLaunch launch;
  launch.kernel_name = name;
  return launch;
}

Profile ThreeLaunches() {
  Profile profile;
  profile.source = "test.csv";
  profile.launches = {Launch("saxpy(float *, int)"), Launch("scale(float *)"), Launch("saxpy(float *, int)")};
  return profile;
}

TEST(LoadProfileTest, ABundleDirectoryLoadsRawCsvWithItsCompanions) {
  ProfileSources sources;
  sources.target = Fixture("uncoalesced_loads");
  FakeCommandRunner runner;
  std::vector<std::string> notes;
  Result<Profile> profile = LoadProfile(sources, runner, notes);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_FALSE(profile->launches.empty());
  EXPECT_TRUE(profile->sass.has_value());
  EXPECT_TRUE(profile->ptxas.has_value());
  EXPECT_TRUE(runner.commands().empty()) << "a CSV needs no external program";
  EXPECT_FALSE(IsLiveCollection(sources));
}

TEST(LoadProfileTest, ADirectoryWithoutRawCsvIsNotFound) {
  ProfileSources sources;
  sources.target = std::string(KOPT_FIXTURE_DIR);
  FakeCommandRunner runner;
  std::vector<std::string> notes;
  Result<Profile> profile = LoadProfile(sources, runner, notes);
  EXPECT_EQ(profile.status().kind(), ErrorKind::kNotFound);
  EXPECT_THAT(profile.status().message(), HasSubstr("without raw.csv"));
}

TEST(LoadProfileTest, SourcesAndProgramsAreLiveCollections) {
  ProfileSources sources;
  sources.target = "kernel.cu";
  EXPECT_TRUE(IsLiveCollection(sources));
  sources.target.clear();
  sources.program_argv = {"./app", "--size", "4"};
  EXPECT_TRUE(IsLiveCollection(sources));
}

TEST(LoadProfileTest, AFailedCollectionLeavesNoWorkDirectoryBehind) {
  namespace fs = std::filesystem;
  fs::path base = fs::temp_directory_path() / ("kopt_loader_test_" + std::to_string(getpid()));
  fs::create_directories(base);
  std::ofstream(base / "tiny.cu") << "__global__ void k() {}\n";
  FakeCommandRunner runner;
  runner.RemoveProgram("ncu");
  std::vector<std::string> notes;
  ProfileSources cuda_source;
  cuda_source.target = (base / "tiny.cu").string();
  cuda_source.work_directory = (base / "kopt-profile-tiny").string();
  EXPECT_FALSE(LoadProfile(cuda_source, runner, notes).ok());
  EXPECT_FALSE(fs::exists(base / "kopt-profile-tiny"));
  ProfileSources program;
  program.program_argv = {"/bin/true"};
  program.work_directory = (base / "kopt-profile-true").string();
  EXPECT_FALSE(LoadProfile(program, runner, notes).ok());
  EXPECT_FALSE(fs::exists(base / "kopt-profile-true"));
  // A directory the user already had stays.
  fs::create_directories(base / "mine");
  program.work_directory = (base / "mine").string();
  EXPECT_FALSE(LoadProfile(program, runner, notes).ok());
  EXPECT_TRUE(fs::is_directory(base / "mine"));
  fs::remove_all(base);
}

TEST(SelectLaunchesTest, RegexThenSkipThenCountKeepingEveryLaunch) {
  Profile profile = ThreeLaunches();
  ProfileSources sources;
  sources.kernel_regex = "^saxpy";
  sources.launch_skip = 1;
  sources.launch_count = 1;
  ASSERT_TRUE(SelectLaunches(sources, profile).ok());
  ASSERT_EQ(profile.launches.size(), 1u);
  EXPECT_EQ(profile.launches[0].kernel_name, "saxpy(float *, int)");
  EXPECT_EQ(profile.all_launches.size(), 3u);
}

TEST(SelectLaunchesTest, NoMatchNamesTheKernelsAndABadRegexIsInvalidInput) {
  Profile profile = ThreeLaunches();
  ProfileSources sources;
  sources.kernel_regex = "gemm";
  Status none = SelectLaunches(sources, profile);
  EXPECT_EQ(none.kind(), ErrorKind::kNotFound);
  EXPECT_THAT(none.message(), HasSubstr("its kernels are: saxpy, scale"));
  Profile again = ThreeLaunches();
  sources.kernel_regex = "(";
  EXPECT_EQ(SelectLaunches(sources, again).kind(), ErrorKind::kInvalidInput);
}

TEST(SelectLaunchesTest, LowerCaseMatchesEitherCaseAndUpperCaseSaysWhatItMissed) {
  Profile profile = ThreeLaunches();
  ProfileSources sources;
  sources.kernel_regex = "SAXPY";
  Status exact = SelectLaunches(sources, profile);
  EXPECT_EQ(exact.kind(), ErrorKind::kNotFound);
  EXPECT_THAT(exact.message(), HasSubstr("it would match saxpy ignoring case"));
  Profile again = ThreeLaunches();
  sources.kernel_regex = "sca";
  for (KernelLaunch& launch : again.launches) {
    if (launch.FunctionName() == "scale") launch.kernel_name = "cunn_SCALE(float *)";
  }
  ASSERT_TRUE(SelectLaunches(sources, again).ok());
  ASSERT_FALSE(again.launches.empty());
  EXPECT_EQ(again.launches[0].kernel_name, "cunn_SCALE(float *)");
}

TEST(SelectLaunchesTest, SkippingEveryLaunchIsNotFound) {
  Profile profile = ThreeLaunches();
  ProfileSources sources;
  sources.launch_skip = 3;
  Status status = SelectLaunches(sources, profile);
  EXPECT_EQ(status.kind(), ErrorKind::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("--launch-skip 3 skips all 3"));
}

}  // namespace
}  // namespace kopt
