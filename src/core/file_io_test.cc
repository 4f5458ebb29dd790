#include "core/file_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace kopt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class CheckOutputIsNotAnInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() / ("kopt_file_io_test_" + std::to_string(getpid()));
    fs::create_directories(directory_ / "sub");
    std::ofstream(directory_ / "in.csv") << "x";
  }
  void TearDown() override { fs::remove_all(directory_); }
  fs::path directory_;
};

TEST_F(CheckOutputIsNotAnInputTest, TheSameFileUnderAnyNameIsRefused) {
  std::string input = (directory_ / "in.csv").string();
  Status same = CheckOutputIsNotAnInput(input, {input});
  EXPECT_EQ(same.kind(), ErrorKind::kInvalidInput);
  EXPECT_THAT(same.message(), HasSubstr("would be overwritten"));
  EXPECT_FALSE(CheckOutputIsNotAnInput((directory_ / "sub" / ".." / "in.csv").string(), {input}).ok());
  fs::create_symlink(directory_ / "in.csv", directory_ / "link.csv");
  EXPECT_FALSE(CheckOutputIsNotAnInput((directory_ / "link.csv").string(), {input}).ok());
  fs::create_hard_link(directory_ / "in.csv", directory_ / "hard.csv");
  EXPECT_FALSE(CheckOutputIsNotAnInput((directory_ / "hard.csv").string(), {input}).ok());
}

TEST_F(CheckOutputIsNotAnInputTest, OtherFilesAndEmptyPathsPass) {
  std::string input = (directory_ / "in.csv").string();
  EXPECT_TRUE(CheckOutputIsNotAnInput((directory_ / "report.html").string(), {input, ""}).ok());
  EXPECT_TRUE(CheckOutputIsNotAnInput("", {input}).ok());
}

}  // namespace
}  // namespace kopt
