#include "measure/reference_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <vector>

#include "core/file_io.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

class ReferenceCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kopt_reference_cache_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "task");
    ASSERT_TRUE(WriteFileAtomically((root_ / "task" / "problem.py").string(), "class Model: pass\n").ok());
    ASSERT_TRUE(WriteFileAtomically((root_ / "task" / "task.toml").string(), "name = \"t\"\n").ok());
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string Task() const { return (root_ / "task").string(); }
  std::string Workspace() const { return (root_ / "ws").string(); }

  static OutputFrames Frames(float value) {
    std::vector<float> data(16, value);
    std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data.data()), data.size() * 4);
    std::string channel = EncodeFrame({"check", 0, "out"}, bytes) + EncodeFrame({"set", 0, "out"}, bytes);
    return std::move(OutputFrames::Parse(channel).value());
  }

  fs::path root_;
};

TEST_F(ReferenceCacheTest, KeyCoversSettingsGpuSeedAndEveryTaskFile) {
  std::string key = ReferenceCacheKey(Task(), "settings-a", "NVIDIA H200", std::nullopt).value();
  EXPECT_EQ(key, ReferenceCacheKey(Task(), "settings-a", "NVIDIA H200", std::nullopt).value());
  EXPECT_NE(key, ReferenceCacheKey(Task(), "settings-b", "NVIDIA H200", std::nullopt).value());
  EXPECT_NE(key, ReferenceCacheKey(Task(), "settings-a", "NVIDIA H100", std::nullopt).value());
  EXPECT_NE(key, ReferenceCacheKey(Task(), "settings-a", "NVIDIA H200", uint64_t{7}).value());
  ASSERT_TRUE(WriteFileAtomically(Task() + "/problem.py", "class Model: x = 1\n").ok());
  EXPECT_NE(key, ReferenceCacheKey(Task(), "settings-a", "NVIDIA H200", std::nullopt).value());
}

TEST_F(ReferenceCacheTest, StoredEntryReadsBackWithItsSeedsAndFrames) {
  std::string key = ReferenceCacheKey(Task(), "s", "NVIDIA H200", std::nullopt).value();
  EXPECT_FALSE(LoadCachedReference(Workspace(), key).has_value());
  ASSERT_TRUE(StoreCachedReference(Workspace(), key, 12, {5, 9007199254740991ull}, Frames(1.5f)).ok());
  std::optional<CachedReference> cached = LoadCachedReference(Workspace(), key);
  ASSERT_TRUE(cached.has_value());
  EXPECT_EQ(cached->run_id, 12);
  EXPECT_EQ(cached->seeds, (std::vector<uint64_t>{5, 9007199254740991ull}));
  ASSERT_EQ(cached->frames.size(), 2u);
  auto payload = cached->frames.Find({"set", 0, "out"});
  ASSERT_TRUE(payload.has_value());
  ASSERT_EQ(payload->size(), 64u);
  float first = 0;
  std::memcpy(&first, payload->data(), 4);
  EXPECT_EQ(first, 1.5f);
  // A second store replaces the entry.
  ASSERT_TRUE(StoreCachedReference(Workspace(), key, 13, {6}, Frames(2.5f)).ok());
  EXPECT_EQ(LoadCachedReference(Workspace(), key)->run_id, 13);
  EXPECT_EQ(fs::status(Workspace() + "/reference-cache").permissions() & fs::perms::others_all,
            fs::perms::none);
}

TEST_F(ReferenceCacheTest, DamagedOrForeignEntriesAreMisses) {
  std::string key = ReferenceCacheKey(Task(), "s", "NVIDIA H200", std::nullopt).value();
  ASSERT_TRUE(StoreCachedReference(Workspace(), key, 1, {5}, Frames(1.0f)).ok());
  std::string entry = Workspace() + "/reference-cache/" + key;
  // Frames cut short.
  std::string frames = ReadWholeFile(entry + "/frames.bin").value();
  ASSERT_TRUE(WriteFileAtomically(entry + "/frames.bin", frames.substr(0, frames.size() - 3)).ok());
  EXPECT_FALSE(LoadCachedReference(Workspace(), key).has_value());
  // An entry written under another key (copied directory).
  ASSERT_TRUE(StoreCachedReference(Workspace(), key, 1, {5}, Frames(1.0f)).ok());
  fs::copy(entry, Workspace() + "/reference-cache/other", fs::copy_options::recursive);
  EXPECT_FALSE(LoadCachedReference(Workspace(), "other").has_value());
  // Not JSON.
  ASSERT_TRUE(WriteFileAtomically(entry + "/entry.json", "{").ok());
  EXPECT_FALSE(LoadCachedReference(Workspace(), key).has_value());
}

}  // namespace
}  // namespace kopt
