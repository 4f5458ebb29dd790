// Runs independent pieces of one data-parallel job on several threads: the
// runner's host-side work on large tensors (drawing inputs, comparing
// outputs), which would otherwise take seconds on one core.
//
// Thread safety: ForEachChunk starts and joins its own threads; `work` is
// called concurrently for distinct chunks and must only touch what belongs to
// its chunk. Results must not depend on which thread ran a chunk.
#pragma once

#include <cstddef>
#include <functional>

namespace kopt {

// Calls work(chunk) once for every chunk in [0, chunk_count), on up to
// `max_threads` threads (0: std::thread::hardware_concurrency()), the calling
// thread among them. Returns when every call has returned. One chunk or one
// thread: runs in order on the calling thread, starting no thread.
void ForEachChunk(size_t chunk_count, const std::function<void(size_t chunk)>& work, size_t max_threads = 0);

// The number of chunks of at most `chunk_size` items (>= 1) covering `items`.
constexpr size_t ChunkCount(size_t items, size_t chunk_size) {
  return (items + chunk_size - 1) / chunk_size;
}

}  // namespace kopt
