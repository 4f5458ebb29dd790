// Fuzz target for the tool configuration file (TOML threshold overrides).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analysis/tool_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto options = kopt::ParseToolConfig(text, "fuzz.toml");
  (void)options;
  return 0;
}
