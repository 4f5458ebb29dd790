// SASS parser: `cuobjdump -sass` and `nvdisasm` listings → per-kernel
// instruction mix.
//
// Input is untrusted text (fuzzed: fuzz/sass_fuzz.cc). Unknown opcodes are
// counted under InstructionClass::kOther, never an error; a listing with no
// function is an error naming the file.
//
// Thread safety: pure functions over values.
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kopt {

enum class InstructionClass {
  kFp32,              // FFMA, FADD, FMUL, FMNMX, FSETP, FSEL, FCHK, ...
  kFp64,              // DFMA, DADD, DMUL, DSETP, DMNMX, ...
  kFp16,              // HFMA2, HADD2, HMUL2, HSETP2, ... (packed half/bf16 on the FMA pipe)
  kInteger,           // IMAD, IADD3, LOP3, SHF, ISETP, IABS, LEA, VIADD, POPC, FLO, ...
  kConversion,        // F2F, F2I, I2F, F2FP, I2FP, FRND
  kSpecialFunction,   // MUFU.*
  kTensorHmma,        // HMMA, IMMA, DMMA, BMMA: mma.sync (Ampere-style) tensor core path
  kTensorWarpgroup,   // HGMMA, QGMMA, IGMMA, BGMMA: Hopper wgmma
  kGlobalLoad,        // LDG
  kGlobalStore,       // STG
  kSharedLoad,        // LDS, LDSM
  kSharedStore,       // STS, STSM
  kLocalLoad,         // LDL
  kLocalStore,        // STL
  kConstantLoad,      // LDC, ULDC
  kGenericLoadStore,  // LD, ST (generic address space)
  kAsyncCopy,         // LDGSTS, LDGDEPBAR, UTMALDG, UTMASTG, UBLKCP, UTMAPF, ...
  kGlobalAtomic,      // ATOMG, ATOM, RED, REDG
  kSharedAtomic,      // ATOMS
  kBranch,            // BRA, BRX, JMP, JMX, CALL, RET, EXIT, BSSY, BSYNC, WARPSYNC
  kBarrier,           // BAR, MEMBAR, SYNCS.*, WARPGROUP.*, DEPBAR, ERRBAR, FENCE
  kMove,              // MOV, SHFL, S2R, S2UR, CS2R, SEL, PRMT, R2UR, ...
  kOther,             // NOP and anything not classified
  kCount
};

std::string_view InstructionClassName(InstructionClass instruction_class);

struct SassInstruction {
  unsigned long long offset = 0;  // byte offset in the function (/*0080*/)
  std::string predicate;          // "@P0", "@!PT", or empty
  std::string opcode;             // base opcode: "LDG"
  std::string modifiers;          // ".E.128.CONSTANT" (with leading dot), or empty
  std::string operands;           // text between opcode and ';'
  InstructionClass instruction_class = InstructionClass::kOther;
  int access_bits = 0;  // width of a memory access in bits (32 when no width suffix); 0 otherwise
  std::string
      source_line;  // "kernel.cu:42" (file base name) from nvdisasm -g's "//## File" comments; or empty
};

struct SassFunction {
  std::string mangled_name;    // as in "Function : _Z5saxpyPKfPffi"
  std::string demangled_name;  // Demangle(mangled_name)
  std::string architecture;    // "sm_90", from the listing header when present
  std::vector<SassInstruction> instructions;

  // Static counts. Instructions predicated @!PT/@!UPT never execute (compiler
  // padding): they stay in `instructions` but are left out of the counts and widths.
  std::array<int, static_cast<size_t>(InstructionClass::kCount)> class_counts{};
  std::map<std::string, int> opcode_counts;  // base opcode → static count
  // Memory access widths: bits → static instruction count, per space.
  std::map<int, int> global_load_widths, global_store_widths, shared_load_widths, shared_store_widths;

  int Count(InstructionClass instruction_class) const {
    return class_counts[static_cast<size_t>(instruction_class)];
  }
  bool HasLocalMemoryTraffic() const {
    return Count(InstructionClass::kLocalLoad) + Count(InstructionClass::kLocalStore) > 0;
  }
  int InstructionCount() const { return static_cast<int>(instructions.size()); }
};

struct SassListing {
  std::vector<SassFunction> functions;
};

// Parses a cuobjdump -sass or nvdisasm listing. `file_name` is used in errors.
Result<SassListing> ParseSass(std::string_view text, std::string_view file_name);

// The function whose demangled name's FunctionNameOf equals `function_name`
// (see profile/kernel_launch.h), or nullptr.
const SassFunction* FindSassFunction(const SassListing& listing, std::string_view function_name);

// Parses one instruction as printed after its offset, e.g.
// "@!P0 LDG.E.128 R4, desc[UR4][R2.64] ;" (an encoding comment after the ';'
// is ignored). Fills every field but `offset`. Also suits the SASS column of
// ncu's source page. An error when the text holds no opcode.
Result<SassInstruction> ParseSassInstruction(std::string_view text);

// The class of a base opcode ("LDG", "UIADD3"), given its modifiers
// (".E.128") and operands. Unknown opcodes are kOther.
InstructionClass ClassifySassOpcode(std::string_view opcode, std::string_view modifiers = {},
                                    std::string_view operands = {});

}  // namespace kopt
