// SASS listing parser. Formats (CUDA 13, checked with cuobjdump/nvdisasm 13.5
// on sm_90a cubins; see tests/fixtures/sass/README.md):
//
//   cuobjdump -sass:  "Fatbin elf code:" / "arch = sm_90" / "code for sm_90a"
//                     headers, "Function : <mangled>", then two lines per
//                     instruction: "/*0080*/  @P0 LDG.E R2, desc[UR4][R2.64] ;  /* 0x... */"
//                     and "/* 0x... */" (the control word).
//   nvdisasm [-c] [-hex] [-g]: ".target sm_90a", ".section .text.<fn>,..."
//                     and ".text.<fn>:" per function, ".L_x_N:" labels,
//                     "//## File ..." line comments, the same instruction
//                     lines (the encoding comment only with -hex), and data
//                     sections whose "/*0000*/ .byte ..." lines are not code.
//
// Counting rule: instructions predicated "@!PT"/"@!UPT" never execute (the
// compiler emits them as padding, e.g. "@!PT LDS RZ, [RZ]"); they are kept in
// `instructions` but left out of class_counts, opcode_counts and the width maps
// (NeverExecutes, profile/sass_operands.h).
#include "profile/sass.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "core/text.h"
#include "profile/kernel_launch.h"
#include "profile/sass_operands.h"

namespace kopt {

namespace {

using Class = InstructionClass;

// Opcodes whose class does not depend on their modifiers, by class.
// Uniform-datapath variants ("UIADD3", "UMOV") are found by dropping the
// leading 'U' (see ClassifySassOpcode).
struct OpcodeGroup {
  Class instruction_class;
  std::string_view opcodes;  // space-separated
};
constexpr OpcodeGroup kOpcodeGroups[] = {
    {Class::kFp32,
     "FFMA FADD FMUL FMNMX FSETP FSEL FCHK FSET FSWZADD FFMA32I FADD32I FMUL32I FCMP FFMA2 FADD2 "
     "FMUL2 FMNMX3"},
    {Class::kFp64, "DFMA DADD DMUL DSETP DMNMX DSET"},
    {Class::kFp16, "HFMA2 HADD2 HMUL2 HSETP2 HMNMX2 HSET2 HFMA2_32I HADD2_32I HMUL2_32I"},
    {Class::kInteger,
     "IMAD IMAD32I IADD3 IADD IADD32I LOP3 LOP LOP32I SHF SHL SHR ISETP ISET IABS LEA VIADD "
     "VIADDMNMX VIMNMX VIMNMX3 IMNMX POPC FLO BREV BMSK SGXT IDP IDP4A IMUL IMUL32I XMAD PLOP3 "
     "PSETP BFE BFI ICMP VABSDIFF VABSDIFF4 ISCADD"},
    {Class::kConversion, "F2F F2I I2F F2FP I2FP FRND I2I F2IP I2IP"},
    {Class::kSpecialFunction, "MUFU"},
    {Class::kTensorHmma, "HMMA IMMA DMMA BMMA QMMA OMMA"},
    // Hopper wgmma, and Blackwell tcgen05 MMAs (UTC*MMA), asynchronous too.
    {Class::kTensorWarpgroup, "HGMMA QGMMA IGMMA BGMMA UTCHMMA UTCQMMA UTCIMMA UTCOMMA UTCMMA"},
    {Class::kGlobalLoad, "LDG"},
    {Class::kGlobalStore, "STG"},
    {Class::kSharedLoad, "LDS LDSM"},
    {Class::kSharedStore, "STS STSM STAS"},  // STAS: st.async to a cluster peer
    {Class::kLocalLoad, "LDL"},
    {Class::kLocalStore, "STL"},
    {Class::kConstantLoad, "LDC ULDC"},
    {Class::kGenericLoadStore, "LD ST"},
    {Class::kAsyncCopy, "LDGSTS LDGDEPBAR UTMALDG UTMASTG UTMAPF UTMACCTL UTMAREDG UBLKCP UBLKRED UBLKPF"},
    {Class::kGlobalAtomic, "ATOMG ATOM RED REDG"},
    {Class::kSharedAtomic, "ATOMS REDAS"},
    {Class::kBranch, "BRA BRX BRXU JMP JMX JMXU CALL RET EXIT BSSY BSYNC WARPSYNC BREAK BPT KILL RTT"},
    {Class::kBarrier,
     "BAR MEMBAR SYNCS WARPGROUP DEPBAR ERRBAR FENCE ARRIVES ACQBULK CGABAR_ARV CGABAR_WAIT CGAERRBAR"},
    {Class::kMove,
     "MOV MOV32I SHFL S2R S2UR CS2R SEL PRMT R2UR P2R R2P VOTE REDUX MATCH ELECT B2R R2B BMOV LEPC"},
};

const std::unordered_map<std::string_view, Class>& OpcodeTable() {
  static const auto* table = [] {
    auto* built = new std::unordered_map<std::string_view, Class>;
    for (const OpcodeGroup& group : kOpcodeGroups) {
      std::string_view opcodes = group.opcodes;
      while (!opcodes.empty()) {
        size_t space = opcodes.find(' ');
        built->emplace(opcodes.substr(0, space), group.instruction_class);
        opcodes = space == std::string_view::npos ? std::string_view() : opcodes.substr(space + 1);
      }
    }
    return built;
  }();
  return *table;
}

// Register-initialisation idioms that run on arithmetic pipes but only move a
// value: "IMAD.MOV.U32 R1, RZ, RZ, R2" and "HFMA2.MMA R1, -RZ, RZ, 0, 1.5".
bool IsMoveIdiom(std::string_view opcode, std::string_view modifiers, std::string_view operands) {
  if (opcode == "IMAD") return StartsWith(modifiers, ".MOV");
  if (opcode != "HFMA2") return false;
  size_t first_comma = operands.find(',');
  if (first_comma == std::string_view::npos) return false;
  return StartsWith(TrimWhitespace(operands.substr(first_comma + 1)), "-RZ, RZ,");
}

std::vector<std::string_view> SplitModifiers(std::string_view modifiers) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start < modifiers.size()) {
    size_t end = modifiers.find('.', start);
    if (end == std::string_view::npos) end = modifiers.size();
    if (end > start) parts.push_back(modifiers.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// ldmatrix/stmatrix: ".16.M88.4" moves four 8x8 matrices of 16-bit values,
// 32 bits per thread and matrix.
int MatrixAccessBits(const std::vector<std::string_view>& parts) {
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] != "M88" && parts[i] != "MT88") continue;
    if (i + 1 < parts.size() && (parts[i + 1] == "2" || parts[i + 1] == "4")) {
      return 32 * (parts[i + 1][0] - '0');
    }
    return 32;
  }
  return 32;
}

int WidthOfModifier(std::string_view part) {
  static const auto* widths = new std::unordered_map<std::string_view, int>{
      {"8", 8},    {"U8", 8},   {"S8", 8},  {"16", 16},  {"U16", 16}, {"S16", 16}, {"32", 32},   {"U32", 32},
      {"S32", 32}, {"F32", 32}, {"64", 64}, {"U64", 64}, {"S64", 64}, {"F64", 64}, {"128", 128},
  };
  auto found = widths->find(part);
  return found == widths->end() ? 0 : found->second;
}

bool IsMemoryAccess(Class instruction_class, std::string_view opcode) {
  switch (instruction_class) {
    case Class::kGlobalLoad:
    case Class::kGlobalStore:
    case Class::kSharedLoad:
    case Class::kSharedStore:
    case Class::kLocalLoad:
    case Class::kLocalStore:
    case Class::kConstantLoad:
    case Class::kGenericLoadStore:
    case Class::kGlobalAtomic:
    case Class::kSharedAtomic: return true;
    case Class::kAsyncCopy: return opcode == "LDGSTS";
    default: return false;
  }
}

// Bits moved per thread: the widest width modifier, 32 when there is none.
int AccessBits(Class instruction_class, std::string_view opcode, std::string_view modifiers) {
  if (!IsMemoryAccess(instruction_class, opcode)) return 0;
  std::vector<std::string_view> parts = SplitModifiers(modifiers);
  if (opcode == "LDSM" || opcode == "STSM") return MatrixAccessBits(parts);
  int bits = 0;
  for (std::string_view part : parts) bits = std::max(bits, WidthOfModifier(part));
  return bits == 0 ? 32 : bits;
}

bool IsOpcodeStart(char c) {
  return c >= 'A' && c <= 'Z';
}
bool IsOpcodeCharacter(char c) {
  return IsOpcodeStart(c) || (c >= '0' && c <= '9') || c == '_';
}

// "@P0", "@!PT", "@!UP1": '@', an optional '!', then a short register name.
bool IsValidPredicate(std::string_view predicate) {
  std::string_view name = predicate.substr(1);
  if (StartsWith(name, "!")) name.remove_prefix(1);
  if (name.empty() || name.size() > 6) return false;
  for (char c : name) {
    if (!IsOpcodeCharacter(c)) return false;
  }
  return true;
}

size_t FindWhitespace(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) return i;
  }
  return std::string_view::npos;
}

// The statement of an instruction line: drops the encoding comment, the old
// dual-issue braces and everything from the ';' on.
std::string_view InstructionStatement(std::string_view text) {
  size_t comment = text.find("/*");
  if (comment != std::string_view::npos) text = text.substr(0, comment);
  size_t semicolon = text.find(';');
  if (semicolon != std::string_view::npos) text = text.substr(0, semicolon);
  text = TrimWhitespace(text);
  if (StartsWith(text, "{")) text = TrimWhitespace(text.substr(1));
  if (EndsWith(text, "}")) text = TrimWhitespace(text.substr(0, text.size() - 1));
  return text;
}

}  // namespace

std::string_view InstructionClassName(InstructionClass instruction_class) {
  switch (instruction_class) {
    case Class::kFp32: return "fp32";
    case Class::kFp64: return "fp64";
    case Class::kFp16: return "fp16";
    case Class::kInteger: return "integer";
    case Class::kConversion: return "conversion";
    case Class::kSpecialFunction: return "special_function";
    case Class::kTensorHmma: return "tensor_hmma";
    case Class::kTensorWarpgroup: return "tensor_warpgroup";
    case Class::kGlobalLoad: return "global_load";
    case Class::kGlobalStore: return "global_store";
    case Class::kSharedLoad: return "shared_load";
    case Class::kSharedStore: return "shared_store";
    case Class::kLocalLoad: return "local_load";
    case Class::kLocalStore: return "local_store";
    case Class::kConstantLoad: return "constant_load";
    case Class::kGenericLoadStore: return "generic_load_store";
    case Class::kAsyncCopy: return "async_copy";
    case Class::kGlobalAtomic: return "global_atomic";
    case Class::kSharedAtomic: return "shared_atomic";
    case Class::kBranch: return "branch";
    case Class::kBarrier: return "barrier";
    case Class::kMove: return "move";
    case Class::kOther: return "other";
    case Class::kCount: break;
  }
  return "unknown";
}

InstructionClass ClassifySassOpcode(std::string_view opcode, std::string_view modifiers,
                                    std::string_view operands) {
  if (IsMoveIdiom(opcode, modifiers, operands)) return Class::kMove;
  const auto& table = OpcodeTable();
  auto found = table.find(opcode);
  if (found != table.end()) return found->second;
  if (opcode.size() > 1 && opcode.front() == 'U') {
    found = table.find(opcode.substr(1));
    if (found != table.end()) return found->second;
  }
  return Class::kOther;
}

Result<SassInstruction> ParseSassInstruction(std::string_view text) {
  std::string_view statement = InstructionStatement(text);
  SassInstruction instruction;
  if (StartsWith(statement, "@")) {
    size_t end = FindWhitespace(statement);
    std::string_view predicate = statement.substr(0, end);
    if (end == std::string_view::npos || !IsValidPredicate(predicate)) {
      return InvalidInput(
          fmt::format("bad predicate \"{}\"; expected @P0, @!PT, @UP1 or similar followed "
                      "by an opcode",
                      Abbreviate(predicate, 40)));
    }
    instruction.predicate = std::string(predicate);
    statement = TrimWhitespace(statement.substr(end));
  }
  size_t end = FindWhitespace(statement);
  std::string_view mnemonic = statement.substr(0, end);
  size_t opcode_end = 0;
  while (opcode_end < mnemonic.size() && IsOpcodeCharacter(mnemonic[opcode_end])) ++opcode_end;
  bool modifiers_follow = opcode_end == mnemonic.size() || mnemonic[opcode_end] == '.';
  if (mnemonic.empty() || !IsOpcodeStart(mnemonic.front()) || !modifiers_follow) {
    return InvalidInput(fmt::format("\"{}\" is not an instruction; expected an opcode such as LDG.E.128",
                                    Abbreviate(statement, 60)));
  }
  instruction.opcode = std::string(mnemonic.substr(0, opcode_end));
  instruction.modifiers = std::string(mnemonic.substr(opcode_end));
  if (end != std::string_view::npos)
    instruction.operands = std::string(TrimWhitespace(statement.substr(end)));
  instruction.instruction_class =
      ClassifySassOpcode(instruction.opcode, instruction.modifiers, instruction.operands);
  instruction.access_bits =
      AccessBits(instruction.instruction_class, instruction.opcode, instruction.modifiers);
  return instruction;
}

namespace {

void CountInstruction(SassFunction& function, const SassInstruction& instruction) {
  if (NeverExecutes(instruction)) return;
  ++function.class_counts[static_cast<size_t>(instruction.instruction_class)];
  ++function.opcode_counts[instruction.opcode];
  switch (instruction.instruction_class) {
    case Class::kGlobalLoad: ++function.global_load_widths[instruction.access_bits]; break;
    case Class::kGlobalStore: ++function.global_store_widths[instruction.access_bits]; break;
    case Class::kSharedLoad: ++function.shared_load_widths[instruction.access_bits]; break;
    case Class::kSharedStore: ++function.shared_store_widths[instruction.access_bits]; break;
    default: break;
  }
}

// An offset comment "/*0080*/": returns the offset and the text after it, or
// nullopt when the line does not start with one.
std::optional<std::pair<unsigned long long, std::string_view>> SplitOffset(std::string_view line) {
  if (!StartsWith(line, "/*")) return std::nullopt;
  size_t close = line.find("*/", 2);
  if (close == std::string_view::npos || close == 2 || close > 2 + 16) return std::nullopt;
  unsigned long long offset = 0;
  for (char c : line.substr(2, close - 2)) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    offset = offset * 16 + static_cast<unsigned long long>(std::isdigit(static_cast<unsigned char>(c))
                                                               ? c - '0'
                                                               : std::tolower(c) - 'a' + 10);
  }
  return std::make_pair(offset, TrimWhitespace(line.substr(close + 2)));
}

// An architecture name as printed in headers: "sm_90", "sm_90a", "sm_100f".
std::optional<std::string> ArchitectureToken(std::string_view text) {
  text = TrimWhitespace(text);
  if (!StartsWith(text, "sm_") || text.size() > 12) return std::nullopt;
  for (char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return std::nullopt;
  }
  return std::string(text);
}

// Longer mangled names are kept as they are: the demangler recurses on them.
constexpr size_t kMaxDemangledLength = 16384;

// "file.cu:42" from nvdisasm -g's `//## File "/path/to/file.cu", line 42` (the part before any
// "inlined at": where the code is); the file's base name only. Empty when the comment is malformed.
std::string SourceLineOfComment(std::string_view comment) {
  size_t open = comment.find('"');
  size_t close = open == std::string_view::npos ? open : comment.find('"', open + 1);
  if (close == std::string_view::npos) return "";
  std::string_view path = comment.substr(open + 1, close - open - 1);
  std::string_view rest = comment.substr(close + 1);
  size_t line_word = rest.find("line ");
  if (line_word == std::string_view::npos) return "";
  std::string_view digits = rest.substr(line_word + 5);
  size_t end = 0;
  while (end < digits.size() && digits[end] >= '0' && digits[end] <= '9') ++end;
  if (end == 0 || path.empty()) return "";
  size_t slash = path.find_last_of('/');
  if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  return fmt::format("{}:{}", path, digits.substr(0, end));
}

class SassListingParser {
 public:
  explicit SassListingParser(std::string_view file_name) : file_name_(file_name) {}

  Status ParseLine(std::string_view raw_line, size_t line_number);
  Result<SassListing> Finish();

 private:
  void ParseHeader(std::string_view line);
  Status StartFunction(std::string_view name, size_t line_number);
  Status ParseInstructionLine(unsigned long long offset, std::string_view text, size_t line_number);

  std::string_view file_name_;
  SassListing listing_;
  bool in_function_ = false;
  std::string architecture_;
  std::string source_line_;  // from the last "//## File" comment of the current function

  size_t orphan_instructions_ = 0;
};

Status SassListingParser::ParseLine(std::string_view raw_line, size_t line_number) {
  std::string_view line = TrimWhitespace(raw_line);
  if (StartsWith(line, "//## File")) {
    source_line_ = SourceLineOfComment(line);
    return Status::Ok();
  }
  if (line.empty() || StartsWith(line, "//")) return Status::Ok();
  if (auto offset = SplitOffset(line)) {
    return ParseInstructionLine(offset->first, offset->second, line_number);
  }
  if (StartsWith(line, "Function :") || StartsWith(line, "Function:")) {
    return StartFunction(line.substr(line.find(':') + 1), line_number);
  }
  if (StartsWith(line, ".text.") && EndsWith(line, ":")) {
    return StartFunction(line.substr(6, line.size() - 7), line_number);
  }
  ParseHeader(line);
  return Status::Ok();
}

// Headers that set the architecture or end the current function.
void SassListingParser::ParseHeader(std::string_view line) {
  if (StartsWith(line, "Fatbin ")) {
    in_function_ = false;
    architecture_.clear();
    return;
  }
  std::optional<std::string> architecture;
  if (StartsWith(line, "arch =")) architecture = ArchitectureToken(line.substr(6));
  if (StartsWith(line, "code for ")) architecture = ArchitectureToken(line.substr(9));
  if (StartsWith(line, ".target")) architecture = ArchitectureToken(line.substr(7));
  if (architecture) {
    architecture_ = *architecture;
    return;
  }
  if (StartsWith(line, ".section") && line.find(".text.") == std::string_view::npos) {
    in_function_ = false;  // nvdisasm: a data section follows
  }
}

Status SassListingParser::StartFunction(std::string_view name, size_t line_number) {
  name = TrimWhitespace(name);
  size_t end = FindWhitespace(name);
  if (end != std::string_view::npos) name = name.substr(0, end);
  if (name.empty()) {
    return InvalidInput(
        fmt::format("{}:{}: function header without a name; expected \"Function : "
                    "<mangled name>\" or \".text.<mangled name>:\"",
                    file_name_, line_number));
  }
  SassFunction function;
  function.mangled_name = std::string(name);
  function.demangled_name = name.size() <= kMaxDemangledLength ? Demangle(name) : function.mangled_name;
  function.architecture = architecture_;
  listing_.functions.push_back(std::move(function));
  in_function_ = true;
  source_line_.clear();
  return Status::Ok();
}

Status SassListingParser::ParseInstructionLine(unsigned long long offset, std::string_view text,
                                               size_t line_number) {
  // nvdisasm data sections print "/*0000*/ .byte 0x..": not code.
  if (text.empty() || text.front() == '.') return Status::Ok();
  if (!in_function_) {
    ++orphan_instructions_;
    return Status::Ok();
  }
  Result<SassInstruction> instruction = ParseSassInstruction(text);
  if (!instruction.ok()) {
    return instruction.status().WithContext(fmt::format("{}:{}", file_name_, line_number));
  }
  instruction->offset = offset;
  instruction->source_line = source_line_;
  SassFunction& function = listing_.functions.back();
  CountInstruction(function, *instruction);
  function.instructions.push_back(std::move(instruction).value());
  return Status::Ok();
}

Result<SassListing> SassListingParser::Finish() {
  if (!listing_.functions.empty()) return std::move(listing_);
  if (orphan_instructions_ > 0) {
    return InvalidInput(
        fmt::format("{}: {} instruction lines but no function header; expected \"Function : "
                    "<name>\" (cuobjdump -sass) or \".text.<name>:\" (nvdisasm) before them",
                    file_name_, orphan_instructions_));
  }
  return InvalidInput(
      fmt::format("{}: no function found; expected the output of cuobjdump -sass or nvdisasm "
                  "(\"Function : <name>\" or \".text.<name>:\" followed by instructions)",
                  file_name_));
}

}  // namespace

Result<SassListing> ParseSass(std::string_view text, std::string_view file_name) {
  if (TrimWhitespace(text).empty()) {
    return InvalidInput(
        fmt::format("{}: the file is empty; expected the output of cuobjdump -sass or nvdisasm", file_name));
  }
  if (LooksBinary(text)) {
    return InvalidInput(
        fmt::format("{}: binary data, not a SASS listing; disassemble a cubin or executable "
                    "first with cuobjdump -sass or nvdisasm",
                    file_name));
  }
  SassListingParser parser(file_name);
  KOPT_RETURN_IF_ERROR(ForEachLine(text, [&parser](std::string_view line, size_t line_number) {
    return parser.ParseLine(line, line_number);
  }));
  return parser.Finish();
}

const SassFunction* FindSassFunction(const SassListing& listing, std::string_view function_name) {
  return FindByFunctionName(listing.functions, function_name);
}

}  // namespace kopt
