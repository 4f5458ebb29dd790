#include "core/parallel_chunks.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace kopt {

void ForEachChunk(size_t chunk_count, const std::function<void(size_t chunk)>& work, size_t max_threads) {
  if (max_threads == 0) max_threads = std::max(1u, std::thread::hardware_concurrency());
  size_t workers = std::min(chunk_count, max_threads);
  if (workers <= 1) {
    for (size_t chunk = 0; chunk < chunk_count; ++chunk) work(chunk);
    return;
  }
  std::atomic<size_t> next_chunk{0};
  auto drain = [&] {
    for (size_t chunk = next_chunk++; chunk < chunk_count; chunk = next_chunk++) work(chunk);
  };
  std::vector<std::thread> threads;
  for (size_t worker = 1; worker < workers; ++worker) threads.emplace_back(drain);
  drain();
  for (std::thread& thread : threads) thread.join();
}

}  // namespace kopt
