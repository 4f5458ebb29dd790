// Fuzz target for the SASS listing parser (cuobjdump -sass and nvdisasm
// text). Besides "no crash", checks the invariants of a parsed listing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "profile/sass.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

void CheckFunction(const kopt::SassFunction& function) {
  int counted = 0;
  for (int count : function.class_counts) {
    Check(count >= 0);
    counted += count;
  }
  Check(counted <= function.InstructionCount());
  for (const kopt::SassInstruction& instruction : function.instructions) {
    Check(!instruction.opcode.empty());
    Check(instruction.access_bits >= 0 && instruction.access_bits <= 128);
    Check(instruction.instruction_class < kopt::InstructionClass::kCount);
    Check(!kopt::InstructionClassName(instruction.instruction_class).empty());
  }
  (void)function.HasLocalMemoryTraffic();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto listing = kopt::ParseSass(text, "fuzz.sass");
  if (listing.ok()) {
    Check(!listing->functions.empty());
    for (const kopt::SassFunction& function : listing->functions) CheckFunction(function);
    (void)kopt::FindSassFunction(*listing, "saxpy");
  } else {
    Check(!listing.status().message().empty());
  }
  auto instruction = kopt::ParseSassInstruction(text.substr(0, 256));
  if (instruction.ok()) Check(!instruction->opcode.empty());
  return 0;
}
