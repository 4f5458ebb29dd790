// Number check: finds every numeric claim in a text an LLM wrote and checks
// it against the evidence the deterministic analysis produced.
//
// A claim is a number with its unit as written: "2.1 TB/s", "45%", "3.5×",
// "57.7 µs", "128 registers", "0x00c0" (a SASS offset), "kernel.cu:42" or
// "line 42" (a source line), or a plain count ("32"). Units are converted to
// a canonical unit (byte/s, FLOP/s, FLOP, FLOP/byte, s, byte, %, x, cycle,
// register, thread, block, warp, SM, sector, inst, bit, Hz, line, offset, …):
// 2.1 TB/s = 2.1e12 byte/s; 45% = 0.45 as a fraction.
//
// Not claims: numbers inside identifiers (sm_90, H200, float4, __shfl_xor_sync,
// x2), ordinals (1st, 2nd), ordinal list markers at the start of a line
// ("1. ", "2) ", "(3) "), version strings (12.4.1), numbers inside inline code
// spans (`a[i * 32]`) and fenced code blocks, and arguments of calls or
// subscripts written in the text (`f(16)`, `a[32]`).
//
// A claim matches an evidence value of a compatible unit when the evidence,
// expressed in the claim's written unit, rounds to the written value at its
// written precision (3.86 TB/s supports "3.9 TB/s" and "4 TB/s"), or lies
// within 2% of it. Plain counts match a value of any unit. Signs are ignored.
//
// Thread safety: pure functions; EvidenceSet is a value.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/narrative.h"

namespace kopt::agents {

// A number found in text, before checking.
struct ClaimToken {
  std::string text;    // as written, unit included ("2.1 TB/s")
  size_t offset = 0;   // byte offset in the text
  double written = 0;  // the number as written, sign dropped (2.1)
  int decimals = 0;    // digits written after the decimal point (1)
  double scale = 1;    // canonical units per written unit (1e12 for TB/s)
  std::string unit;    // canonical unit ("byte/s"); "" for a plain count
  double Value() const { return written * scale; }
};

// Every claim of `text`, in order of appearance.
std::vector<ClaimToken> ExtractNumericClaims(std::string_view text);

// One value the analysis stated, in canonical units.
struct EvidenceValue {
  std::string label;  // what it is: "DRAM achieved bandwidth (stage 1)"
  double value = 0;
  std::string unit;  // canonical
};

// The values a narrative may cite.
class EvidenceSet {
 public:
  // `unit` in kopt's units (ncu base units, "byte/s", "ns", "%", "fraction",
  // "FLOP/s", "register/thread", "x", "line", "offset", "" …); converted to the
  // canonical unit (ns → s, fraction → %). Non-finite values are dropped.
  void Add(std::string label, double value, std::string_view unit);
  // Adds every claim of a sentence the deterministic report wrote (a root
  // cause, a gain method), labelled `label`.
  void AddNumbersIn(const std::string& label, std::string_view text);

  const std::vector<EvidenceValue>& values() const { return values_; }
  // The first value supporting the claim, or nullptr.
  const EvidenceValue* Find(const ClaimToken& claim) const;

 private:
  std::vector<EvidenceValue> values_;
};

// True when `evidence` (canonical units) supports `claim`'s number at the
// written precision or within 2% (units are not compared here).
bool ValueSupports(const ClaimToken& claim, double evidence);

// Extracts and checks every claim of `text`.
std::vector<NumericClaim> CheckNumericClaims(std::string_view text, const EvidenceSet& evidence);

// `text` with " [unsupported]" after every unsupported claim (offsets index
// `text`, as CheckNumericClaims returned them).
std::string MarkUnsupportedClaims(std::string_view text, const std::vector<NumericClaim>& claims);

}  // namespace kopt::agents
