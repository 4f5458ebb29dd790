#include "store/search_memory.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "store/workspace.h"

namespace kopt {
namespace {

class SearchMemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() /
                 ("kopt_search_memory_test_" + std::to_string(getpid()) + "_" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(directory_);
    auto workspace = Workspace::Open(directory_.string());
    ASSERT_TRUE(workspace.ok()) << workspace.status().message();
    workspace_ = std::move(workspace).value();
    memory_ = OpenMemory();
  }
  void TearDown() override {
    memory_.reset();
    workspace_.reset();
    std::filesystem::remove_all(directory_);
  }

  std::unique_ptr<SearchMemory> OpenMemory() {
    auto memory = SearchMemory::Open(workspace_->database_path());
    EXPECT_TRUE(memory.ok()) << memory.status().message();
    return memory.ok() ? std::move(memory).value() : nullptr;
  }

  void Note(const std::string& task, const std::string& bottleneck_class, MemoryNoteKind kind,
            const std::string& text, const std::string& last_seen, int64_t count = 1) {
    Status status = memory_->Record({task, bottleneck_class, kind, text, count, last_seen});
    ASSERT_TRUE(status.ok()) << status.message();
  }

  std::filesystem::path directory_;
  std::unique_ptr<Workspace> workspace_;
  std::unique_ptr<SearchMemory> memory_;
};

TEST_F(SearchMemoryTest, DuplicateTextIncrementsTheCount) {
  Note("softmax", "memory-bound", MemoryNoteKind::kCompileErrorFix, "Missing #include <cuda_fp16.h>.",
       "2026-12-01T10:00:00Z");
  Note("softmax", "memory-bound", MemoryNoteKind::kCompileErrorFix, "missing  #include <cuda_fp16.h>",
       "2026-12-01T11:00:00Z", 2);
  Result<std::vector<MemoryNote>> notes = memory_->AllNotes();
  ASSERT_TRUE(notes.ok());
  ASSERT_EQ(notes->size(), 1u);
  EXPECT_EQ((*notes)[0].count, 3);
  EXPECT_EQ((*notes)[0].last_seen, "2026-12-01T11:00:00Z");
  EXPECT_EQ((*notes)[0].text, "missing  #include <cuda_fp16.h>");  // the latest wording
  // The same text under another kind or task is another note.
  Note("softmax", "memory-bound", MemoryNoteKind::kApiPattern, "missing #include <cuda_fp16.h>", "");
  Note("gelu", "memory-bound", MemoryNoteKind::kCompileErrorFix, "missing #include <cuda_fp16.h>", "");
  EXPECT_EQ(memory_->AllNotes()->size(), 3u);
}

TEST_F(SearchMemoryTest, MostRelevantFirstWithinTheByteBudget) {
  Note("softmax", "memory-bound", MemoryNoteKind::kHelped, "float4 loads helped", "2026-12-01T10:00:00Z", 1);
  Note("softmax", "memory-bound", MemoryNoteKind::kHurt, "unroll 8 hurt", "2026-12-01T09:00:00Z", 3);
  Note("softmax", "memory-bound", MemoryNoteKind::kRejectedCheat, "cached the output across calls",
       "2026-12-01T11:00:00Z", 1);
  Note("layernorm", "memory-bound", MemoryNoteKind::kHelped, "warp shuffle reduction helped",
       "2026-12-01T12:00:00Z", 5);
  Note("gemm", "compute-bound", MemoryNoteKind::kHelped, "tensor cores helped", "2026-12-01T12:00:00Z", 9);
  Note("gemm", "compute-bound", MemoryNoteKind::kApiPattern, "cute::make_tiled_copy compiles with SM90",
       "2026-12-01T12:00:00Z", 1);
  Note("layernorm", "memory-bound", MemoryNoteKind::kHelped, "float4 loads helped", "2026-12-01T12:00:00Z",
       7);

  Result<std::vector<MemoryNote>> notes = memory_->Notes("softmax", "memory-bound", 10000);
  ASSERT_TRUE(notes.ok()) << notes.status().message();
  std::vector<std::string> texts;
  for (const MemoryNote& note : *notes) texts.push_back(note.text);
  EXPECT_EQ(texts, (std::vector<std::string>{
                       "unroll 8 hurt",                   // own task, count 3
                       "cached the output across calls",  // own task, count 1, newest
                       "float4 loads helped",             // own task, count 1
                       "warp shuffle reduction helped",   // same class, other task (its float4 copy skipped)
                       "cute::make_tiled_copy compiles with SM90",  // API knowledge of any class
                   }));
  // "tensor cores helped": another class, not compiler/API knowledge: left out.

  Result<std::vector<MemoryNote>> small = memory_->Notes("softmax", "memory-bound", 35);
  ASSERT_TRUE(small.ok());
  size_t bytes = 0;
  for (const MemoryNote& note : *small) bytes += note.text.size();
  EXPECT_LE(bytes, 35u);
  ASSERT_FALSE(small->empty());
  EXPECT_EQ(small->front().text, "unroll 8 hurt");
  EXPECT_TRUE(memory_->Notes("softmax", "memory-bound", 0)->empty());
}

TEST_F(SearchMemoryTest, ASecondRunStartsFromTheFirst) {
  Note("saxpy", "memory-bound", MemoryNoteKind::kFailedCheck, "grid-stride loop skipped the tail", "");
  memory_.reset();
  std::unique_ptr<SearchMemory> second = OpenMemory();
  ASSERT_NE(second, nullptr);
  Result<std::vector<MemoryNote>> notes = second->Notes("saxpy", "memory-bound", 1000);
  ASSERT_TRUE(notes.ok());
  ASSERT_EQ(notes->size(), 1u);
  EXPECT_EQ((*notes)[0].kind, MemoryNoteKind::kFailedCheck);
  EXPECT_FALSE((*notes)[0].last_seen.empty());
  // The workspace's own tables are untouched and still usable on the same file.
  EXPECT_TRUE(workspace_->CountRuns().ok());
}

TEST_F(SearchMemoryTest, RefusesEmptyNotes) {
  EXPECT_FALSE(memory_->Record({"", "", MemoryNoteKind::kHelped, "x", 1, ""}).ok());
  EXPECT_FALSE(memory_->Record({"t", "", MemoryNoteKind::kHelped, "  \n", 1, ""}).ok());
  EXPECT_FALSE(memory_->Record({"t", "", MemoryNoteKind::kHelped, "x", 0, ""}).ok());
}

TEST_F(SearchMemoryTest, ACorruptDatabaseIsAClearError) {
  std::filesystem::path bad = directory_ / "not_a.db";
  std::ofstream(bad) << std::string(4096, 'x');
  Result<std::unique_ptr<SearchMemory>> memory = SearchMemory::Open(bad.string());
  ASSERT_FALSE(memory.ok());
  EXPECT_NE(memory.status().message().find(bad.string()), std::string::npos);
  EXPECT_EQ(memory.status().kind(), ErrorKind::kInvalidInput);
}

TEST(SearchMemoryNamesTest, KindsAndNormalization) {
  for (MemoryNoteKind kind :
       {MemoryNoteKind::kCompileErrorFix, MemoryNoteKind::kRejectedCheat, MemoryNoteKind::kHelped,
        MemoryNoteKind::kHurt, MemoryNoteKind::kApiPattern, MemoryNoteKind::kFailedCheck}) {
    EXPECT_EQ(ParseMemoryNoteKind(MemoryNoteKindName(kind)), kind);
  }
  EXPECT_FALSE(ParseMemoryNoteKind("other").has_value());
  EXPECT_EQ(NormalizeMemoryText("  Use   __ldg\tFOR x.. "), "use __ldg for x");
}

}  // namespace
}  // namespace kopt
