#include "core/parallel_chunks.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace kopt {
namespace {

TEST(ForEachChunkTest, CallsEveryChunkExactlyOnceWhateverTheThreadCount) {
  for (size_t threads : {size_t{0}, size_t{1}, size_t{2}, size_t{7}, size_t{64}}) {
    std::vector<std::atomic<int>> calls(1000);
    ForEachChunk(
        calls.size(), [&](size_t chunk) { ++calls[chunk]; }, threads);
    for (size_t chunk = 0; chunk < calls.size(); ++chunk) {
      ASSERT_EQ(calls[chunk], 1) << "chunk " << chunk << " with " << threads << " threads";
    }
  }
}

TEST(ForEachChunkTest, NoChunkCallsNothing) {
  bool called = false;
  ForEachChunk(0, [&](size_t) { called = true; });
  EXPECT_FALSE(called);
}

TEST(ForEachChunkTest, OneThreadRunsInOrderOnTheCallingThread) {
  std::vector<size_t> order;
  std::set<std::thread::id> threads;
  ForEachChunk(
      5,
      [&](size_t chunk) {
        order.push_back(chunk);
        threads.insert(std::this_thread::get_id());
      },
      1);
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(ForEachChunkTest, UsesAtMostTheThreadsAsked) {
  std::mutex mutex;
  std::set<std::thread::id> threads;
  ForEachChunk(
      200,
      [&](size_t) {
        std::lock_guard<std::mutex> lock(mutex);
        threads.insert(std::this_thread::get_id());
      },
      3);
  EXPECT_LE(threads.size(), 3u);
  EXPECT_GE(threads.size(), 1u);
}

TEST(ChunkCountTest, CoversEveryItem) {
  EXPECT_EQ(ChunkCount(0, 4), 0u);
  EXPECT_EQ(ChunkCount(1, 4), 1u);
  EXPECT_EQ(ChunkCount(4, 4), 1u);
  EXPECT_EQ(ChunkCount(5, 4), 2u);
}

}  // namespace
}  // namespace kopt
