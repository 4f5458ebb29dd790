// Fuzz target for the ncu source-page CSV parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "profile/kernel_launch.h"
#include "profile/ncu_source_page.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto pages = kopt::ParseNcuSourcePage(text, "fuzz.csv");
  if (pages.ok()) {
    for (const kopt::SourcePage& page : *pages) {
      (void)page.TotalStallSamples();
      (void)kopt::FindSourcePage(*pages, kopt::FunctionNameOf(page.kernel_name));
    }
  }
  return 0;
}
