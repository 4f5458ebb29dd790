#include "store/workspace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fixture_reader.h"

namespace kopt {
namespace {

using ::testing::HasSubstr;

class WorkspaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() /
                 ("kopt_workspace_test_" + std::to_string(getpid()) + "_" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::unique_ptr<Workspace> OpenOrDie() {
    auto workspace = Workspace::Open(directory_.string());
    EXPECT_TRUE(workspace.ok()) << workspace.status().message();
    return workspace.ok() ? std::move(workspace).value() : nullptr;
  }

  std::filesystem::path directory_;
};

MeasurementKey Key(const std::string& hash, const std::string& role = "candidate") {
  return MeasurementKey{hash, "NVIDIA H200", "settings1", role};
}

TEST_F(WorkspaceTest, CreatesDirectoryDatabaseAndSchemaVersion) {
  auto workspace = OpenOrDie();
  ASSERT_TRUE(workspace);
  EXPECT_TRUE(std::filesystem::exists(directory_ / "kopt.db"));
  EXPECT_EQ(workspace->database_path(), (directory_ / "kopt.db").string());
  auto runs = workspace->CountRuns();
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(*runs, 0);
}

TEST_F(WorkspaceTest, RunsPersistAcrossReopen) {
  {
    auto workspace = OpenOrDie();
    RunRecord run{"2026-11-29T11:00:00Z", "saxpy", "NVIDIA H200", {{"seeds", 3}}, {1, 2, 3}, "abc"};
    auto id = workspace->BeginRun(run);
    ASSERT_TRUE(id.ok()) << id.status().message();
    EXPECT_EQ(*id, 1);
    EXPECT_TRUE(workspace->FinishRun(*id, "2026-11-29T11:01:00Z", {{"candidates", 2}}).ok());
  }
  auto reopened = OpenOrDie();
  ASSERT_TRUE(reopened);
  EXPECT_EQ(*reopened->CountRuns(), 1);
}

TEST_F(WorkspaceTest, StoresCandidateSourceByHash) {
  auto workspace = OpenOrDie();
  auto hash = workspace->StoreCandidate("__global__ void k() {}", "cands/a.cu", "a");
  ASSERT_TRUE(hash.ok()) << hash.status().message();
  EXPECT_EQ(hash->size(), 64u);
  std::string text = ReadTestFile(directory_ / "candidates" / (*hash + ".cu"));
  EXPECT_EQ(text, "__global__ void k() {}");
  auto again = workspace->StoreCandidate("__global__ void k() {}", "other/a.cu", "a");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *hash);
}

TEST_F(WorkspaceTest, StoringACandidateAgainKeepsAnIntactFileAndRepairsADamagedOne) {
  auto workspace = OpenOrDie();
  const std::string source = "__global__ void k() { /* v2 */ }";
  auto hash = workspace->StoreCandidate(source, "a.cu", "a");
  ASSERT_TRUE(hash.ok());
  std::filesystem::path file = directory_ / "candidates" / (*hash + ".cu");
  auto inode = [&] {
    struct stat info {};
    EXPECT_EQ(::stat(file.c_str(), &info), 0);
    return info.st_ino;
  };
  ino_t first = inode();
  ASSERT_TRUE(workspace->StoreCandidate(source, "a.cu", "a").ok());
  EXPECT_EQ(inode(), first);  // the same content: not written again
  for (const std::string& damage : {std::string("__global__ void k()"), source + " extra"}) {
    {
      std::ofstream cut(file, std::ios::binary | std::ios::trunc);
      cut << damage;
    }
    ASSERT_TRUE(workspace->StoreCandidate(source, "a.cu", "a").ok());
    EXPECT_EQ(ReadTestFile(file), source);
  }
}

TEST_F(WorkspaceTest, FindsOnlyCompleteMeasurementsWithTheSameKey) {
  auto workspace = OpenOrDie();
  int64_t run = *workspace->BeginRun(RunRecord{"t", "task", "NVIDIA H200", {}, {7}, "settings1"});
  ASSERT_TRUE(workspace->RecordCompile({run, "h1", "key1", "ok", 1.5}).ok());
  ASSERT_TRUE(workspace->RecordEvent(run, Key("h1"), "device", {{"event", "device"}}).ok());
  ASSERT_TRUE(
      workspace->RecordEvent(run, Key("h1"), "timing", {{"event", "timing"}, {"median_s", 1e-5}}).ok());
  // Not yet closed: nothing to resume.
  auto none = workspace->FindCompleteMeasurement(Key("h1"));
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(workspace->RecordOutcome(run, Key("h1"), {{"status", "ok"}}, /*complete=*/true).ok());
  // An incomplete outcome of another candidate is not reusable.
  ASSERT_TRUE(workspace->RecordOutcome(run, Key("h2"), {{"status", "harness_error"}}, false).ok());

  auto found = workspace->FindCompleteMeasurement(Key("h1"));
  ASSERT_TRUE(found.ok()) << found.status().message();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->run_id, run);
  ASSERT_EQ((*found)->events.size(), 3u);
  EXPECT_EQ((*found)->events[0].phase, "device");
  EXPECT_EQ((*found)->events[1].event["median_s"], 1e-5);
  EXPECT_EQ((*found)->events[2].phase, "outcome");

  EXPECT_FALSE(workspace->FindCompleteMeasurement(Key("h2"))->has_value());
  MeasurementKey other_gpu = Key("h1");
  other_gpu.gpu = "NVIDIA H100 80GB HBM3";
  EXPECT_FALSE(workspace->FindCompleteMeasurement(other_gpu)->has_value());
  MeasurementKey other_settings = Key("h1");
  other_settings.settings_hash = "settings2";
  EXPECT_FALSE(workspace->FindCompleteMeasurement(other_settings)->has_value());
  EXPECT_FALSE(workspace->FindCompleteMeasurement(Key("h1", "reference"))->has_value());
}

TEST_F(WorkspaceTest, NewestCompleteMeasurementWins) {
  auto workspace = OpenOrDie();
  for (int i = 0; i < 2; ++i) {
    int64_t run = *workspace->BeginRun(RunRecord{"t", "task", "NVIDIA H200", {}, {}, "settings1"});
    ASSERT_TRUE(workspace->RecordOutcome(run, Key("h1"), {{"run", i}}, true).ok());
  }
  auto found = workspace->FindCompleteMeasurement(Key("h1"));
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->run_id, 2);
  EXPECT_EQ((*found)->events.back().event["run"], 1);
}

TEST_F(WorkspaceTest, RecordsAWholeMeasurementInOneTransaction) {
  {
    auto workspace = OpenOrDie();
    int64_t run = *workspace->BeginRun(RunRecord{"t", "task", "NVIDIA H200", {}, {}, "settings1"});
    // A run that does not exist: the first insert fails, and the transaction is rolled back (the
    // workspace stays usable).
    std::vector<StoredEvent> events = {{"device", {{"event", "device"}}},
                                       {"timing", {{"event", "timing"}, {"median_s", 1e-5}}},
                                       {"check", {{"event", "check"}, {"passed", true}}}};
    EXPECT_FALSE(workspace->RecordMeasurement(run + 100, Key("h1"), events, {{"status", "ok"}}, true).ok());
    ASSERT_TRUE(workspace->RecordMeasurement(run, Key("h1"), events, {{"status", "ok"}}, true).ok());
    ASSERT_TRUE(workspace->RecordMeasurement(run, Key("h2"), {}, {{"status", "harness_error"}}, false).ok());
  }
  auto workspace = OpenOrDie();  // committed: there after a reopen
  auto found = workspace->FindCompleteMeasurement(Key("h1"));
  ASSERT_TRUE(found.ok() && found->has_value());
  ASSERT_EQ((*found)->events.size(), 4u);
  EXPECT_EQ((*found)->events[0].phase, "device");
  EXPECT_EQ((*found)->events[1].event["median_s"], 1e-5);
  EXPECT_EQ((*found)->events[2].phase, "check");
  EXPECT_EQ((*found)->events[3].phase, "outcome");
  EXPECT_EQ((*found)->events[3].event["status"], "ok");
  EXPECT_FALSE(workspace->FindCompleteMeasurement(Key("h2"))->has_value());
  EXPECT_EQ(workspace->MeasurementEvents(1, Key("h2"))->size(), 1u);
  EXPECT_TRUE(workspace->MeasurementEvents(101, Key("h1"))->empty());
}

TEST_F(WorkspaceTest, KeepsEventsWithInvalidUtf8FromTheChild) {
  auto workspace = OpenOrDie();
  int64_t run = *workspace->BeginRun(RunRecord{"t", "task", "g", {}, {}, "s"});
  nlohmann::json event = {{"event", "failure"}, {"message", std::string("bad \xff byte")}};
  EXPECT_TRUE(workspace->RecordEvent(run, Key("h"), "failure", event).ok());
  auto events = workspace->MeasurementEvents(run, Key("h"));
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_THAT((*events)[0].event["message"].get<std::string>(), HasSubstr("bad "));
}

TEST_F(WorkspaceTest, CorruptDatabaseGivesAClearMessage) {
  std::filesystem::create_directories(directory_);
  {
    std::ofstream garbage(directory_ / "kopt.db", std::ios::binary);
    garbage << std::string(4096, 'x') << "this is not a database";
  }
  auto workspace = Workspace::Open(directory_.string());
  ASSERT_FALSE(workspace.ok());
  EXPECT_EQ(workspace.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_THAT(workspace.status().message(), HasSubstr((directory_ / "kopt.db").string()));
  EXPECT_THAT(workspace.status().message(), HasSubstr("corrupt or not a kopt workspace database"));
}

TEST_F(WorkspaceTest, RefusesANewerSchema) {
  { ASSERT_TRUE(OpenOrDie()); }
  // Simulate a database written by a future kopt.
  sqlite3* database = nullptr;
  ASSERT_EQ(sqlite3_open((directory_ / "kopt.db").c_str(), &database), 0);
  ASSERT_EQ(
      sqlite3_exec(database, "INSERT INTO schema_version(version) VALUES (99);", nullptr, nullptr, nullptr),
      0);
  sqlite3_close(database);
  auto workspace = Workspace::Open(directory_.string());
  ASSERT_FALSE(workspace.ok());
  EXPECT_THAT(workspace.status().message(), HasSubstr("schema version 99"));
}

TEST_F(WorkspaceTest, UncreatableDirectoryIsUnavailable) {
  std::filesystem::create_directories(directory_);
  std::ofstream(directory_ / "file") << "x";
  auto workspace = Workspace::Open((directory_ / "file" / "ws").string());
  ASSERT_FALSE(workspace.ok());
  EXPECT_THAT(workspace.status().message(), HasSubstr("cannot create the workspace directory"));
}

TEST(CurrentTimeUtcTest, IsIso8601) {
  std::string now = CurrentTimeUtc();
  ASSERT_EQ(now.size(), 20u);
  EXPECT_EQ(now[4], '-');
  EXPECT_EQ(now[10], 'T');
  EXPECT_EQ(now.back(), 'Z');
}

TEST_F(WorkspaceTest, AForeignSqliteDatabaseIsNotTakenOver) {
  std::filesystem::create_directories(directory_);
  sqlite3* database = nullptr;
  ASSERT_EQ(sqlite3_open((directory_ / "kopt.db").c_str(), &database), 0);
  ASSERT_EQ(sqlite3_exec(database, "CREATE TABLE photos (id INTEGER);", nullptr, nullptr, nullptr), 0);
  sqlite3_close(database);
  auto workspace = Workspace::Open(directory_.string());
  ASSERT_FALSE(workspace.ok());
  EXPECT_EQ(workspace.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(workspace.status().message().find("not a kopt workspace (it has a table \"photos\""),
            std::string::npos)
      << workspace.status().message();
}

}  // namespace
}  // namespace kopt
