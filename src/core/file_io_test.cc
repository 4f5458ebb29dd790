#include "core/file_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

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

class WriteFileAtomicallyTest : public CheckOutputIsNotAnInputTest {};

std::string Contents(const fs::path& path) {
  std::ifstream stream(path, std::ios::binary);
  std::ostringstream text;
  text << stream.rdbuf();
  return text.str();
}

TEST_F(WriteFileAtomicallyTest, ARegularFileIsReplacedWithNoTemporaryLeft) {
  fs::path path = directory_ / "report.txt";
  ASSERT_TRUE(WriteFileAtomically(path.string(), "first").ok());
  ASSERT_TRUE(WriteFileAtomically(path.string(), "second").ok());
  EXPECT_EQ(Contents(path), "second");
  EXPECT_EQ(std::distance(fs::directory_iterator(directory_), fs::directory_iterator()), 3);  // in.csv, sub
}

TEST_F(WriteFileAtomicallyTest, AFifoIsWrittenThroughAndStaysAFifo) {
  fs::path fifo = directory_ / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = Contents(fifo); });
  Status written = WriteFileAtomically(fifo.string(), "through the pipe");
  reader.join();
  EXPECT_TRUE(written.ok()) << written.message();
  EXPECT_EQ(received, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
}

TEST_F(WriteFileAtomicallyTest, ASymlinkStaysAndItsTargetIsWritten) {
  fs::path target = directory_ / "sub" / "target.txt";
  std::ofstream(target) << "old";
  fs::path link = directory_ / "link.txt";
  fs::create_symlink(target, link);
  ASSERT_TRUE(WriteFileAtomically(link.string(), "new").ok());
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(Contents(target), "new");

  fs::path dangling = directory_ / "dangling.txt";
  fs::create_symlink(directory_ / "sub" / "created.txt", dangling);
  ASSERT_TRUE(WriteFileAtomically(dangling.string(), "made").ok());
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dangling)));
  EXPECT_EQ(Contents(directory_ / "sub" / "created.txt"), "made");
}

TEST_F(WriteFileAtomicallyTest, DevicesAreWrittenInPlaceAndTheirErrorsReported) {
  EXPECT_TRUE(WriteFileAtomically("/dev/null", "discarded").ok());
  EXPECT_TRUE(fs::is_character_file(fs::symlink_status("/dev/null")));
  if (fs::exists("/dev/full")) {
    Status full = WriteFileAtomically("/dev/full", "no room");
    EXPECT_EQ(full.kind(), ErrorKind::kInvalidInput);
    EXPECT_THAT(full.message(), HasSubstr("/dev/full: write failed: No space left on device"));
    EXPECT_TRUE(fs::is_character_file(fs::symlink_status("/dev/full")));
  }
  Status directory = WriteFileAtomically((directory_ / "sub").string(), "x");
  EXPECT_THAT(directory.message(), HasSubstr("is a directory"));
}

}  // namespace
}  // namespace kopt
