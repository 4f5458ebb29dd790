#include "search/run_state_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "core/file_io.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr int64_t kRun = 3;

// The files of a run as they are on disk at one moment (a kill -9 then).
struct Files {
  std::string snapshot;
  std::string journal;
};

class RunStateStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    workspace_ =
        (fs::temp_directory_path() / ("kopt_run_state_store_" + std::to_string(::getpid()) + "_" +
                                      ::testing::UnitTest::GetInstance()->current_test_info()->name()))
            .string();
    fs::remove_all(workspace_);
  }
  void TearDown() override { fs::remove_all(workspace_); }

  std::string SnapshotPath() const { return workspace_ + "/" + RunStatePath(kRun); }
  std::string JournalPath() const { return workspace_ + "/" + RunJournalPath(kRun); }
  Files Read() const {
    Files files;
    files.snapshot = ReadWholeFile(SnapshotPath()).value();
    if (fs::exists(JournalPath())) files.journal = ReadWholeFile(JournalPath()).value();
    return files;
  }
  void Put(const Files& files) const {
    fs::create_directories(fs::path(SnapshotPath()).parent_path());
    std::ofstream(SnapshotPath(), std::ios::binary | std::ios::trunc) << files.snapshot;
    std::ofstream(JournalPath(), std::ios::binary | std::ios::trunc) << files.journal;
  }
  // The loaded state as JSON ("" with the error's message when it fails).
  std::string Loaded(std::string* error = nullptr) const {
    Result<RunState> state = LoadRunStateFiles(workspace_, kRun);
    if (!state.ok()) {
      if (error != nullptr) *error = state.status().message();
      return "";
    }
    return RunStateToJson(*state).dump();
  }

  std::string workspace_;
};

Evaluation Verified(double seconds) {
  Evaluation evaluation;
  evaluation.status = NodeStatus::kVerified;
  evaluation.time_s = seconds;
  evaluation.time_noise_fraction = 0.01;
  return evaluation;
}

void AddChild(RunState& state, NodeId parent, GenerationMode mode) {
  NodeId id = state.tree.AddChild(parent, mode, "proposed").value();
  NodeRecord record;
  record.id = id;
  record.name = "n" + std::to_string(id);
  state.records.push_back(record);
  ++state.usage.evaluations;
}

// A run's life in steps, as the loop changes it: after each step the test
// saves; every step changes something a resume needs.
std::vector<std::function<void(RunState&)>> Steps() {
  std::vector<std::function<void(RunState&)>> steps;
  steps.push_back([](RunState& state) {
    state.tree.AddRoot("reference").value();
    NodeRecord record;
    record.name = "reference";
    record.generator = "reference";
    state.records.push_back(record);
    ASSERT_TRUE(state.tree.Record(0, Verified(100e-6)).ok());
    state.reference_time_s = 100e-6;
  });
  steps.push_back([](RunState& state) { AddChild(state, 0, GenerationMode::kInitial); });
  steps.push_back([](RunState& state) {
    state.record(1).source_hash = "aa11";
    state.record(1).reason = "vectorized \"loads\"\nwith a newline";
    ASSERT_TRUE(state.tree.AddTranspositionKey(1, "src:aa11").ok());
  });
  steps.push_back([](RunState& state) {
    state.record(1).message = "verified";
    ASSERT_TRUE(state.tree.Record(1, Verified(50e-6)).ok());
    state.usage.gpu_seconds += 0.4;
  });
  steps.push_back([](RunState& state) { AddChild(state, 1, GenerationMode::kOptimize); });
  steps.push_back([](RunState& state) {
    Evaluation failed;
    failed.status = NodeStatus::kFailedCompile;
    failed.detail = "error: expected ';'";
    state.record(2).repair_text = failed.detail;
    ASSERT_TRUE(state.tree.Record(2, failed).ok());
    state.notes.push_back("a note");
  });
  steps.push_back([](RunState& state) { AddChild(state, 2, GenerationMode::kRepair); });
  steps.push_back([](RunState& state) {
    ASSERT_TRUE(state.tree.RecordDuplicate(3, 1).ok());
    state.record(3).message = "same source as n1";
  });
  steps.push_back([](RunState& state) {
    state.record(1).profiled = true;
    state.record(1).feedback_text = std::string(3000, 'f');
    ASSERT_TRUE(state.tree.SetPredictedEnergy(1, 2e-3).ok());
  });
  steps.push_back([](RunState& state) { ASSERT_TRUE(state.tree.Close(2, CloseReason::kPruned).ok()); });
  steps.push_back([](RunState& state) { AddChild(state, 1, GenerationMode::kOptimize); });
  steps.push_back([](RunState& state) {
    ASSERT_TRUE(state.tree.Record(4, Verified(40e-6)).ok());
    state.status = RunStatus::kFinished;
    state.stop_reason = "max_evaluations (4) reached";
  });
  return steps;
}

RunState Fresh() {
  RunState state;
  state.run_id = kRun;
  state.task = "saxpy";
  state.seed = 9;
  state.settings = {{"search", "mcts"}};
  return state;
}

TEST_F(RunStateStoreTest, EveryStepReadsBackAsSavedAndReplayEqualsTheSnapshot) {
  RunStateStore store(workspace_, kRun);
  RunState state = Fresh();
  for (auto& step : Steps()) {
    step(state);
    ASSERT_TRUE(store.Save(state).ok());
    EXPECT_EQ(Loaded(), RunStateToJson(state).dump());
  }
  EXPECT_EQ(store.snapshots_written(), 1) << "one snapshot, then journal lines";
  EXPECT_GT(store.journal_bytes(), 0u);
  std::string replayed = Loaded();
  ASSERT_TRUE(store.Compact(state).ok());
  EXPECT_EQ(store.journal_bytes(), 0u);
  EXPECT_EQ(Read().journal, "");
  EXPECT_EQ(Loaded(), replayed) << "the journal's replay equals the compacted snapshot";
}

TEST_F(RunStateStoreTest, AStepWritesOnlyWhatChanged) {
  RunStateStore store(workspace_, kRun);
  RunState state = Fresh();
  std::vector<std::function<void(RunState&)>> steps = Steps();
  for (size_t index = 0; index < 4; ++index) {
    steps[index](state);
    ASSERT_TRUE(store.Save(state).ok());
  }
  size_t before = store.journal_bytes();
  state.record(0).message = "changed";
  ASSERT_TRUE(store.Save(state).ok());
  std::string journal = Read().journal;
  std::string last = journal.substr(journal.rfind('\n', journal.size() - 2) + 1);
  nlohmann::json line = nlohmann::json::parse(last);
  ASSERT_EQ(line["nodes"].size(), 1u);
  EXPECT_EQ(line["nodes"][0]["id"], 0);
  EXPECT_EQ(store.journal_bytes() - before, last.size());
}

// A kill -9 at every step, and inside every journal write (torn at every byte of the
// line's ends and every 7th byte between): the files at that instant load as the state
// of the last complete step.
TEST_F(RunStateStoreTest, ACrashAtEveryStepAndEveryByteLoadsTheLastCompleteStep) {
  std::vector<Files> on_disk;
  std::vector<std::string> expected;
  {
    RunStateStore store(workspace_, kRun);
    RunState state = Fresh();
    for (auto& step : Steps()) {
      step(state);
      ASSERT_TRUE(store.Save(state).ok());
      on_disk.push_back(Read());
      expected.push_back(RunStateToJson(state).dump());
    }
  }
  for (size_t step = 0; step < on_disk.size(); ++step) {
    Put(on_disk[step]);
    EXPECT_EQ(Loaded(), expected[step]) << "step " << step;
    if (step == 0) continue;
    // Torn writes: the journal of this step cut at every byte of its last line.
    const std::string& journal = on_disk[step].journal;
    const size_t line_start = on_disk[step - 1].journal.size();
    ASSERT_EQ(journal.compare(0, line_start, on_disk[step - 1].journal), 0) << "appended";
    // Every byte near the line's ends (its first field, its closing braces and newline), a stride
    // of 7 bytes between (every JSON token kind is cut; all bytes took minutes on a 2-core CI).
    for (size_t cut = line_start; cut < journal.size();
         cut += (cut - line_start < 64 || journal.size() - cut <= 64) ? 1 : 7) {
      Put({on_disk[step].snapshot, journal.substr(0, cut)});
      std::string error;
      ASSERT_EQ(Loaded(&error), expected[step - 1]) << "step " << step << " cut at " << cut << ": " << error;
    }
  }
}

TEST_F(RunStateStoreTest, ACrashBetweenACompactionsRenameAndItsTruncationSkipsTheOldLines) {
  RunStateStore store(workspace_, kRun, RunStateStoreOptions{.compact_after_bytes = 1});
  RunState state = Fresh();
  std::vector<std::function<void(RunState&)>> steps = Steps();
  Files before;
  for (size_t index = 0; index < steps.size(); ++index) {
    steps[index](state);
    before = fs::exists(SnapshotPath()) ? Read() : Files{};
    int64_t snapshots = store.snapshots_written();
    ASSERT_TRUE(store.Save(state).ok());
    if (store.snapshots_written() == snapshots || before.journal.empty()) continue;
    // Compacted: the new snapshot in place, the old lines still there.
    Put({Read().snapshot, before.journal});
    EXPECT_EQ(Loaded(), RunStateToJson(state).dump()) << "step " << index;
    Put({Read().snapshot, ""});
  }
  EXPECT_GT(store.snapshots_written(), 2);
}

TEST_F(RunStateStoreTest, AResumedRunsStoreStartsWithASnapshotSoATornTailIsNeverContinued) {
  RunState state = Fresh();
  std::vector<std::function<void(RunState&)>> steps = Steps();
  {
    RunStateStore store(workspace_, kRun);
    for (size_t index = 0; index < 5; ++index) {
      steps[index](state);
      ASSERT_TRUE(store.Save(state).ok());
    }
  }
  Files files = Read();
  Put({files.snapshot, files.journal + "{\"journal_id\": \"torn"});
  Result<RunState> loaded = LoadRunStateFiles(workspace_, kRun);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  RunState resumed = std::move(*loaded);
  RunStateStore store(workspace_, kRun);
  for (size_t index = 5; index < steps.size(); ++index) {
    steps[index](resumed);
    ASSERT_TRUE(store.Save(resumed).ok());
  }
  EXPECT_EQ(Read().journal.find("torn"), std::string::npos);
  EXPECT_EQ(Loaded(), RunStateToJson(resumed).dump());
}

TEST_F(RunStateStoreTest, ACorruptedLineOrSnapshotIsNamed) {
  {
    RunStateStore store(workspace_, kRun);
    RunState state = Fresh();
    for (auto& step : Steps()) {
      step(state);
      ASSERT_TRUE(store.Save(state).ok());
    }
  }
  Files files = Read();
  size_t second = files.journal.find('\n') + 1;
  std::string error;
  // A complete line that is not JSON (not the torn tail of the last write).
  Put({files.snapshot, files.journal.substr(0, second) + "garbage\n" + files.journal.substr(second)});
  EXPECT_EQ(Loaded(&error), "");
  EXPECT_THAT(error, HasSubstr(JournalPath() + " line 2: not valid JSON"));
  // A line missing: the seq gap is found.
  Put({files.snapshot, files.journal.substr(second)});
  EXPECT_EQ(Loaded(&error), "");
  EXPECT_THAT(error, HasSubstr("line 1: seq 2 where 1 was expected"));
  Put({"{\"schema\": \"kopt.optimize.run\", \"tree\": 5", files.journal});
  EXPECT_EQ(Loaded(&error), "");
  EXPECT_THAT(error, HasSubstr(SnapshotPath() + ": not valid JSON"));
  fs::remove(SnapshotPath());
  Result<RunState> missing = LoadRunStateFiles(workspace_, kRun);
  EXPECT_EQ(missing.status().kind(), ErrorKind::kNotFound);
}

TEST_F(RunStateStoreTest, AVersion1FileWithoutAJournalStillReads) {
  RunState state = Fresh();
  for (auto& step : Steps()) step(state);
  nlohmann::json version1 = RunStateToJson(state);
  version1["schema_version"] = 1;
  Put({version1.dump(1), ""});
  Result<RunState> loaded = LoadRunStateFiles(workspace_, kRun);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(RunStateToJson(*loaded).dump(), RunStateToJson(state).dump());
  version1["schema_version"] = 3;
  Put({version1.dump(1), ""});
  std::string error;
  EXPECT_EQ(Loaded(&error), "");
  EXPECT_THAT(error, HasSubstr("schema_version: expected 1 to 2, not 3"));
}

}  // namespace
}  // namespace kopt
