// Fuzz target for the parent's reader of a candidate child's output channel
// (runner_protocol/output_frames.h): the child ran untrusted code, so the
// bytes it sends may be anything. The first byte picks whether a cut last
// frame is allowed; every parsed frame's payload is read.
#include <cstddef>
#include <cstdint>
#include <string>

#include "runner_protocol/output_frames.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string channel(reinterpret_cast<const char*>(data) + 1, size - 1);
  kopt::Result<kopt::OutputFrames> frames = kopt::OutputFrames::Parse(std::move(channel), data[0] & 1);
  if (!frames.ok()) return 0;
  size_t bytes = 0;
  for (const auto& [key, payload] : frames->frames()) {
    bytes += key.round.size() + key.tensor.size() + payload.size();
    if (!payload.empty()) bytes += static_cast<size_t>(payload.front()) + static_cast<size_t>(payload.back());
    (void)frames->Find(key);
  }
  (void)bytes;
  std::string released = frames->ReleaseChannel();
  (void)released;
  return 0;
}
