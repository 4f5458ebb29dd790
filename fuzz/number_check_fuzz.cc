// Fuzz target for the numeric-claim checker (agents/number_check.h), which
// reads untrusted LLM text. Besides "no crash", checks the invariants: every
// claim lies inside the text at its offset, in order; marking adds exactly
// " [unsupported]" per unsupported claim; a claim the set was built from is
// supported (when finite).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "agents/number_check.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  kopt::agents::EvidenceSet evidence;
  evidence.Add("DRAM", 3.86e12, "byte/s");
  evidence.Add("share", 0.45, "fraction");
  std::vector<kopt::NumericClaim> claims = kopt::agents::CheckNumericClaims(text, evidence);
  size_t previous_end = 0, unsupported = 0;
  for (const kopt::NumericClaim& claim : claims) {
    Check(!claim.text.empty());
    Check(claim.offset >= previous_end && claim.offset + claim.text.size() <= text.size());
    Check(text.substr(claim.offset, claim.text.size()) == claim.text);
    previous_end = claim.offset + claim.text.size();
    unsupported += claim.supported ? 0 : 1;
  }
  std::string marked = kopt::agents::MarkUnsupportedClaims(text, claims);
  Check(marked.size() == text.size() + unsupported * std::string_view(" [unsupported]").size());
  // The text's own claims, as evidence, support every (finite) claim.
  kopt::agents::EvidenceSet own;
  own.AddNumbersIn("text", text);
  for (const kopt::NumericClaim& claim : kopt::agents::CheckNumericClaims(text, own)) {
    if (std::isfinite(claim.value)) Check(claim.supported);
  }
  return 0;
}
