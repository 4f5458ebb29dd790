// Fuzz target for Kernel Tuner cache files (search/kernel_tuner_cache.h):
// parsing with the open-file tolerance; a parsed cache written back reads
// back to the same entries.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "search/kernel_tuner_cache.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  kopt::Result<kopt::KernelTunerCache> cache = kopt::ParseKernelTunerCache(text, "fuzz.json");
  if (!cache.ok()) return 0;
  kopt::Result<kopt::KernelTunerCache> back =
      kopt::ParseKernelTunerCache(kopt::KernelTunerCacheText(*cache), "fuzz.json");
  if (!back.ok() || back->entries.size() != cache->entries.size()) std::abort();
  return 0;
}
