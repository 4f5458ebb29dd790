// Reading one SASS instruction beyond its parse: its guard predicate, its
// printed form, its operands and the registers they name.
//
// The one place that decides what a predicate means: "@!PT" and "@!UPT"
// (constant false) never execute (compiler padding, e.g. "@!PT LDS RZ, [RZ]");
// "@PT"/"@UPT" always do; "@P0".."@P6" (with or without '!') may differ
// between the lanes of a warp; "@UP0".."@UP6" are uniform across the warp.
//
// Thread safety: pure functions over values.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profile/sass.h"

namespace kopt {

// `predicate` as SassInstruction holds it ("@!P0", "@UPT", or empty).
bool NeverExecutes(std::string_view predicate);         // @!PT, @!UPT
bool IsPerThreadPredicate(std::string_view predicate);  // @P0, @!P3: P and digits (not uniform, not PT)
inline bool NeverExecutes(const SassInstruction& instruction) {
  return NeverExecutes(instruction.predicate);
}

// The instruction as printed: "@!P0 LDG.E.128 R4, desc[UR4][R2.64]".
std::string SassText(const SassInstruction& instruction);

// True when the modifiers contain `modifier` (".WIDE", ".REL").
bool HasModifier(const SassInstruction& instruction, std::string_view modifier);

// The comma-separated operands, trimmed ("R4", "desc[UR4][R2.64]").
std::vector<std::string_view> Operands(const SassInstruction& instruction);

// The register an operand names ("R12", "-R12.reuse", "|R3|"); nullopt for RZ,
// predicates, immediates, constants and addresses.
std::optional<int> RegisterNumber(std::string_view operand);
// The first operand's register (the destination), if it names one.
std::optional<int> DestinationRegister(const SassInstruction& instruction);
// Registers written: the destination, its pair for 64-bit results, its four for 128-bit loads.
std::vector<int> WrittenRegisters(const SassInstruction& instruction);
// Registers read: those named by the operands after the first.
std::vector<int> SourceRegisters(const SassInstruction& instruction);
// Registers an address reads, in every operand's brackets: "desc[UR4][R2.64+0x10]" → 2, 3 (a ".64"
// address is a register pair); uniform registers (UR) are not counted.
std::vector<int> AddressRegisters(const SassInstruction& instruction);

// The last "0x…" number in `text`, or nullopt.
std::optional<unsigned long long> LastHexNumber(std::string_view text);
// The target of a relative call ("CALL.REL.NOINC 0xef0"): a subroutine of the function.
std::optional<unsigned long long> CallTarget(const SassInstruction& instruction);

}  // namespace kopt
