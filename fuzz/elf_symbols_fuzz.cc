// Fuzz target for the ELF dynamic-symbol reader (a compiled candidate's
// imports). Besides "no crash": an accepted file's names are non-empty and
// come from its bytes; a rejected one says why.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/elf_symbols.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto names = kopt::UndefinedDynamicSymbols(bytes, "fuzz.so");
  if (names.ok()) {
    for (const auto& name : *names) {
      if (name.empty() || name.size() > size) std::abort();
    }
  } else if (names.status().message().empty()) {
    std::abort();
  }
  return 0;
}
