// Fuzz target for the parent's reader of a pulled output channel
// (core/channel_pull.h): the records come from a candidate child that ran
// untrusted code, so they may be anything, and a pull may name any address.
// Here the "child" is this process (its pulls read this process's memory or
// fail), the bound is 1 MiB, and the first byte sets how the bytes are split
// across Consume calls (records cut at any point).
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "core/channel_pull.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  size_t piece = static_cast<size_t>(data[0]) + 1;
  std::string sink;
  kopt::PullReceiver receiver(getpid(), sink, size_t{1} << 20, -1, 2);
  const char* bytes = reinterpret_cast<const char*>(data) + 1;
  for (size_t offset = 0; offset + 1 < size; offset += piece) {
    receiver.Consume(std::span<const char>(bytes + offset, std::min(piece, size - 1 - offset)));
  }
  if (receiver.filled() > sink.size() || receiver.filled() > (size_t{1} << 20)) __builtin_trap();
  return 0;
}
