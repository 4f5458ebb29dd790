#include "profile/sass.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fixture_reader.h"
#include "profile/ptxas_report.h"

namespace kopt {
namespace {

// A one-function cuobjdump listing holding `instruction_lines` (each a full
// instruction text such as "LDG.E R2, desc[UR4][R2.64] ;").
std::string Listing(const std::vector<std::string>& instruction_lines) {
  std::string text = "\n\tcode for sm_90a\n\t.target\tsm_90a\n\n\t\tFunction : _Z1kPf\n";
  text += "\t.headerflags\t@\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n";
  unsigned offset = 0;
  for (const std::string& line : instruction_lines) {
    char address[16];
    std::snprintf(address, sizeof(address), "%04x", offset);
    text += "        /*" + std::string(address) + "*/                   " + line +
            "                    /* 0x0000000000000000 */\n";
    text += "                                                              /* 0x000fc80000000000 */\n";
    offset += 16;
  }
  return text;
}

SassInstruction ParseOne(const std::string& text) {
  Result<SassInstruction> instruction = ParseSassInstruction(text);
  EXPECT_TRUE(instruction.ok()) << text << ": " << instruction.status().message();
  return instruction.ok() ? *instruction : SassInstruction{};
}

struct ClassCase {
  const char* text;
  InstructionClass expected;
};
// Instructions as sm_75..sm_100 listings print them, plus unknown opcodes.
const ClassCase kClassCases[] = {
    {"FFMA R1, R2, R3, R4 ;", InstructionClass::kFp32},
    {"FADD.FTZ R5, R2, R5 ;", InstructionClass::kFp32},
    {"FSETP.GEU.AND P0, PT, R1, RZ, PT ;", InstructionClass::kFp32},
    {"DFMA R2, R4, R6, R2 ;", InstructionClass::kFp64},
    {"DADD R2, R4, R6 ;", InstructionClass::kFp64},
    {"DMUL R2, R4, R6 ;", InstructionClass::kFp64},
    {"HFMA2.MMA R13, R2, R9, R2 ;", InstructionClass::kFp16},
    {"HADD2.F32 R0, -RZ, R2.H0_H0 ;", InstructionClass::kFp16},
    {"IMAD.WIDE.U32 R2, R5, 0x4, R2 ;", InstructionClass::kInteger},
    {"IADD3 R1, R2, R3, RZ ;", InstructionClass::kInteger},
    {"LOP3.LUT P0, RZ, R9, 0x1f, RZ, 0xc0, !PT ;", InstructionClass::kInteger},
    {"UIADD3 UR4, UR4, 0x1, URZ ;", InstructionClass::kInteger},
    {"USHF.L.U32 UR5, UR4, 0xb, URZ ;", InstructionClass::kInteger},
    {"F2FP.F16.F32.PACK_AB R0, R1, R2 ;", InstructionClass::kConversion},
    {"I2FP.F32.S32 R0, R1 ;", InstructionClass::kConversion},
    {"F2I.TRUNC.NTZ R0, R1 ;", InstructionClass::kConversion},
    {"MUFU.EX2 R0, R1 ;", InstructionClass::kSpecialFunction},
    {"MUFU.RSQ R0, R1 ;", InstructionClass::kSpecialFunction},
    {"HMMA.16816.F32 R4, R12, R24, R4 ;", InstructionClass::kTensorHmma},
    {"HMMA.1688.F32.TF32 R4, R12, R24, R4 ;", InstructionClass::kTensorHmma},
    {"IMMA.16832.S8.S8 R4, R12, R24, R4 ;", InstructionClass::kTensorHmma},
    {"DMMA.884 R4, R12, R24, R4 ;", InstructionClass::kTensorHmma},
    {"HGMMA.64x192x16.F32 R24, gdesc[UR44], RZ, !UPT ;", InstructionClass::kTensorWarpgroup},
    {"HGMMA.64x128x16.F32.BF16 R24, gdesc[UR8].tnspB, R24 ;", InstructionClass::kTensorWarpgroup},
    {"QGMMA.64x8x32.F32.E4M3.E4M3 R24, gdesc[UR8], R24 ;", InstructionClass::kTensorWarpgroup},
    {"IGMMA.64x8x32.S8.S8 R24, gdesc[UR8], R24 ;", InstructionClass::kTensorWarpgroup},
    {"LDG.E R3, desc[UR6][R16.64] ;", InstructionClass::kGlobalLoad},
    {"STG.E.128 desc[UR4][R2.64], R4 ;", InstructionClass::kGlobalStore},
    {"LDS R0, [R2] ;", InstructionClass::kSharedLoad},
    {"LDSM.16.M88.4 R4, [R2] ;", InstructionClass::kSharedLoad},
    {"STS [R2], R0 ;", InstructionClass::kSharedStore},
    {"STSM.16.M88.4 [R2], R4 ;", InstructionClass::kSharedStore},
    {"LDL.LU R4, [R1+0x278] ;", InstructionClass::kLocalLoad},
    {"STL [R1+0x278], R4 ;", InstructionClass::kLocalStore},
    {"LDC.64 R2, c[0x0][0x210] ;", InstructionClass::kConstantLoad},
    {"ULDC.64 UR4, c[0x0][0x208] ;", InstructionClass::kConstantLoad},
    {"LD.E R2, [R4.64] ;", InstructionClass::kGenericLoadStore},
    {"ST.E [R4.64], R2 ;", InstructionClass::kGenericLoadStore},
    {"LDGSTS.E.BYPASS.128 [R3], desc[UR6][R4.64] ;", InstructionClass::kAsyncCopy},
    {"LDGDEPBAR ;", InstructionClass::kAsyncCopy},
    {"UTMALDG.2D [UR8], [UR4] ;", InstructionClass::kAsyncCopy},
    {"UTMASTG.2D [UR4], [UR8] ;", InstructionClass::kAsyncCopy},
    {"UBLKCP.S.G [UR4], [UR6], UR8 ;", InstructionClass::kAsyncCopy},
    {"ATOMG.E.ADD.STRONG.GPU PT, R5, desc[UR8][R4.64], R13 ;", InstructionClass::kGlobalAtomic},
    {"REDG.E.ADD.F32.FTZ.RN.STRONG.GPU desc[UR8][R4.64], R13 ;", InstructionClass::kGlobalAtomic},
    {"RED.E.ADD.STRONG.GPU [R2.64], R5 ;", InstructionClass::kGlobalAtomic},
    {"ATOMS.POPC.INC.32 RZ, [R10+UR4] ;", InstructionClass::kSharedAtomic},
    {"BRA 0x1b0 ;", InstructionClass::kBranch},
    {"BRA.U.ANY `(.L_x_2) ;", InstructionClass::kBranch},
    {"EXIT ;", InstructionClass::kBranch},
    {"CALL.REL.NOINC 0x2b0 ;", InstructionClass::kBranch},
    {"RET.REL.NODEC R6 0x0 ;", InstructionClass::kBranch},
    {"BSSY B0, 0x1c0 ;", InstructionClass::kBranch},
    {"WARPSYNC.ALL ;", InstructionClass::kBranch},
    {"BAR.SYNC.DEFER_BLOCKING 0x0 ;", InstructionClass::kBarrier},
    {"MEMBAR.SC.GPU ;", InstructionClass::kBarrier},
    {"SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4], R6 ;", InstructionClass::kBarrier},
    {"WARPGROUP.DEPBAR.LE gsb0, 0x0 ;", InstructionClass::kBarrier},
    {"DEPBAR.LE SB0, 0x0 ;", InstructionClass::kBarrier},
    {"FENCE.VIEW.ASYNC.S ;", InstructionClass::kBarrier},
    {"MOV R0, 0x4000 ;", InstructionClass::kMove},
    {"UMOV UR4, 0x400 ;", InstructionClass::kMove},
    {"SHFL.DOWN PT, R5, R2, 0x10, 0x1f ;", InstructionClass::kMove},
    {"S2R R6, SR_CTAID.X ;", InstructionClass::kMove},
    {"CS2R R10, SRZ ;", InstructionClass::kMove},
    {"IMAD.MOV.U32 R11, RZ, RZ, RZ ;", InstructionClass::kMove},
    {"HFMA2.MMA R12, -RZ, RZ, 0, 1.78813934326171875e-07 ;", InstructionClass::kMove},
    {"NOP ;", InstructionClass::kOther},
    {"TEX.SCR.LL R0, R2, R0, 0x0, 0x5a, 2D, 0x1 ;", InstructionClass::kOther},
    {"FROBNICATE.X R1, R2 ;", InstructionClass::kOther},
};

TEST(SassClassify, OpcodeTable) {
  for (const ClassCase& test_case : kClassCases) {
    SassInstruction instruction = ParseOne(test_case.text);
    EXPECT_EQ(InstructionClassName(instruction.instruction_class), InstructionClassName(test_case.expected))
        << test_case.text;
  }
}

TEST(SassClassify, EveryClassHasADistinctName) {
  std::set<std::string_view> names;
  for (int index = 0; index < static_cast<int>(InstructionClass::kCount); ++index) {
    std::string_view name = InstructionClassName(static_cast<InstructionClass>(index));
    EXPECT_NE(name, "unknown");
    names.insert(name);
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(InstructionClass::kCount));
}

TEST(SassClassify, AccessWidths) {
  struct Case {
    const char* text;
    int bits;
  };
  const Case cases[] = {
      {"LDG.E R2, desc[UR4][R2.64] ;", 32},
      {"LDG.E.64 R2, desc[UR4][R2.64] ;", 64},
      {"LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;", 128},
      {"LDG.E.128.STRONG.GPU R4, desc[UR4][R2.64] ;", 128},
      {"LDG.E.U8 R2, desc[UR4][R2.64] ;", 8},
      {"LDG.E.S8 R2, desc[UR4][R2.64] ;", 8},
      {"LDG.E.U16 R2, desc[UR4][R2.64] ;", 16},
      {"LDG.E.S16 R2, desc[UR4][R2.64] ;", 16},
      {"LDG.E.LTC128B.128 R4, desc[UR4][R2.64] ;", 128},
      {"STG.E desc[UR4][R2.64], R5 ;", 32},
      {"STG.E.64 desc[UR4][R2.64], R4 ;", 64},
      {"LDS.128 R4, [R2] ;", 128},
      {"LDS.U8 R4, [R2] ;", 8},
      {"STS.64 [R2], R4 ;", 64},
      {"LDSM.16.M88.4 R4, [R2] ;", 128},
      {"LDSM.16.MT88.2 R4, [R2] ;", 64},
      {"LDSM.16.M88 R4, [R2] ;", 32},
      {"STL.128 [R1+0x10], R8 ;", 128},
      {"LDL.LU R4, [R1+0x278] ;", 32},
      {"LDGSTS.E.BYPASS.128 [R3], desc[UR6][R4.64] ;", 128},
      {"ATOMG.E.CAS.64.STRONG.GPU PT, R4, [R2.64], R4, R6 ;", 64},
      {"ATOMS.POPC.INC.32 RZ, [R10+UR4] ;", 32},
      {"FFMA R1, R2, R3, R4 ;", 0},
      {"UTMALDG.2D [UR8], [UR4] ;", 0},
      {"HMMA.16816.F32 R4, R12, R24, R4 ;", 0},
  };
  for (const Case& test_case : cases) {
    EXPECT_EQ(ParseOne(test_case.text).access_bits, test_case.bits) << test_case.text;
  }
}

TEST(SassInstruction, SplitsPredicateOpcodeModifiersAndOperands) {
  SassInstruction load =
      ParseOne("@!P0 LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;   /* 0x0000000402047981 */");
  EXPECT_EQ(load.predicate, "@!P0");
  EXPECT_EQ(load.opcode, "LDG");
  EXPECT_EQ(load.modifiers, ".E.128.CONSTANT");
  EXPECT_EQ(load.operands, "R4, desc[UR4][R2.64]");

  EXPECT_EQ(ParseOne("@PT BRA 0x10 ;").predicate, "@PT");
  EXPECT_EQ(ParseOne("@!UP1 BRA 0x10 ;").predicate, "@!UP1");
  EXPECT_EQ(ParseOne("@UPT UMOV UR4, 0x1 ;").predicate, "@UPT");
  SassInstruction exit = ParseOne("EXIT ;");
  EXPECT_EQ(exit.predicate, "");
  EXPECT_EQ(exit.modifiers, "");
  EXPECT_EQ(exit.operands, "");
  // No semicolon (some tools), and old dual-issue braces.
  EXPECT_EQ(ParseOne("MOV R1, c[0x0][0x20]").operands, "R1, c[0x0][0x20]");
  EXPECT_EQ(ParseOne("{ FADD R1, R2, R3 ; }").opcode, "FADD");
}

TEST(SassInstruction, RejectsTextWithoutAnOpcode) {
  EXPECT_FALSE(ParseSassInstruction("").ok());
  EXPECT_FALSE(ParseSassInstruction(";").ok());
  EXPECT_FALSE(ParseSassInstruction("lowercase r1, r2 ;").ok());
  EXPECT_FALSE(ParseSassInstruction("@P0").ok());
  EXPECT_FALSE(ParseSassInstruction("@P0&x LDG R1 ;").ok());
  EXPECT_FALSE(ParseSassInstruction("LDG,E R1 ;").ok());
}

TEST(SassParse, CountsClassesOpcodesAndWidths) {
  auto listing = ParseSass(Listing({"LDG.E.128 R4, desc[UR4][R2.64] ;", "LDG.E R8, desc[UR4][R2.64] ;",
                                    "@P0 LDG.E.128 R12, desc[UR4][R6.64] ;", "FFMA R1, R2, R3, R4 ;",
                                    "STG.E.64 desc[UR4][R2.64], R4 ;", "LDS.128 R4, [R2] ;", "STS [R2], R0 ;",
                                    "STL [R1], R4 ;", "EXIT ;"}),
                           "k.sass");
  ASSERT_TRUE(listing.ok()) << listing.status().message();
  ASSERT_EQ(listing->functions.size(), 1u);
  const SassFunction& function = listing->functions[0];
  EXPECT_EQ(function.mangled_name, "_Z1kPf");
  EXPECT_EQ(function.demangled_name, "k(float*)");
  EXPECT_EQ(function.architecture, "sm_90a");
  EXPECT_EQ(function.InstructionCount(), 9);
  EXPECT_EQ(function.Count(InstructionClass::kGlobalLoad), 3);
  EXPECT_EQ(function.Count(InstructionClass::kFp32), 1);
  EXPECT_EQ(function.opcode_counts.at("LDG"), 3);
  EXPECT_EQ(function.global_load_widths, (std::map<int, int>{{32, 1}, {128, 2}}));
  EXPECT_EQ(function.global_store_widths, (std::map<int, int>{{64, 1}}));
  EXPECT_EQ(function.shared_load_widths, (std::map<int, int>{{128, 1}}));
  EXPECT_EQ(function.shared_store_widths, (std::map<int, int>{{32, 1}}));
  EXPECT_TRUE(function.HasLocalMemoryTraffic());
  EXPECT_EQ(function.instructions[1].offset, 0x10u);
  EXPECT_EQ(function.instructions[2].predicate, "@P0");
}

TEST(SassParse, NeverExecutedPaddingIsListedButNotCounted) {
  auto listing =
      ParseSass(Listing({"@!PT LDS RZ, [RZ] ;", "@!PT LDS RZ, [RZ] ;", "LDS R0, [R2] ;"}), "k.sass");
  ASSERT_TRUE(listing.ok());
  const SassFunction& function = listing->functions[0];
  EXPECT_EQ(function.InstructionCount(), 3);
  EXPECT_EQ(function.Count(InstructionClass::kSharedLoad), 1);
  EXPECT_EQ(function.shared_load_widths, (std::map<int, int>{{32, 1}}));
}

TEST(SassParse, NoLocalTrafficWithoutLdlOrStl) {
  auto listing = ParseSass(Listing({"LDG.E R2, desc[UR4][R2.64] ;", "EXIT ;"}), "k.sass");
  ASSERT_TRUE(listing.ok());
  EXPECT_FALSE(listing->functions[0].HasLocalMemoryTraffic());
}

TEST(SassParse, MultipleFunctionsAndFatbinArchitectures) {
  std::string text =
      "\nFatbin elf code:\n================\narch = sm_80\ncode version = [1,8]\nhost = linux\n"
      "\tcode for sm_80\n\t\tFunction : _Z1aPf\n        /*0000*/  FFMA R1, R2, R3, R4 ;  /* 0x0 */\n"
      "\t\tFunction : _Z1bPf\n        /*0000*/  DFMA R2, R4, R6, R2 ;  /* 0x0 */\n"
      "\nFatbin elf code:\n================\narch = sm_90\n"
      "\t\tFunction : _Z1aPf\n        /*0000*/  HMMA.16816.F32 R4, R12, R24, R4 ;  /* 0x0 */\n"
      "\nFatbin ptx code:\n================\narch = sm_90\ncompressed\n";
  auto listing = ParseSass(text, "fatbin.sass");
  ASSERT_TRUE(listing.ok()) << listing.status().message();
  ASSERT_EQ(listing->functions.size(), 3u);
  EXPECT_EQ(listing->functions[0].architecture, "sm_80");
  EXPECT_EQ(listing->functions[1].architecture, "sm_80");
  EXPECT_EQ(listing->functions[1].Count(InstructionClass::kFp64), 1);
  EXPECT_EQ(listing->functions[2].architecture, "sm_90");
  EXPECT_EQ(listing->functions[2].Count(InstructionClass::kTensorHmma), 1);
  EXPECT_EQ(FindSassFunction(*listing, "b"), &listing->functions[1]);
  EXPECT_EQ(FindSassFunction(*listing, "a"), &listing->functions[0]);
  EXPECT_EQ(FindSassFunction(*listing, "void b(float*)"), &listing->functions[1]);
  EXPECT_EQ(FindSassFunction(*listing, "_Z1bPf"), &listing->functions[1]);
  EXPECT_EQ(FindSassFunction(*listing, "c"), nullptr);
}

TEST(SassParse, NvdisasmListingWithLabelsAndDataSections) {
  std::string text =
      "\t.target\tsm_90a\n\n"
      "//--------------------- .nv.info._Z1kPf --------------------------\n"
      "\t.section\t.nv.info._Z1kPf,\"\",@\"SHT_CUDA_INFO\"\n"
      "        /*0000*/ \t.byte\t0x04, 0x2f\n"
      "//--------------------- .text._Z1kPf --------------------------\n"
      "\t.section\t.text._Z1kPf,\"ax\",@progbits\n"
      "        .global         _Z1kPf\n"
      "_Z1kPf:\n"
      ".text._Z1kPf:\n"
      "\t//## File \"k.cu\", line 3\n"
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
      ".L_x_0:\n"
      "        /*0010*/              @!P0 BRA `(.L_x_0) ;\n"
      "        /*0020*/                   EXIT ;\n"
      "//--------------------- .nv.constant0._Z1kPf --------------------------\n"
      "\t.section\t.nv.constant0._Z1kPf,\"a\",@progbits\n"
      "        /*0000*/ \t.zero\t548\n";
  auto listing = ParseSass(text, "k.nvdisasm");
  ASSERT_TRUE(listing.ok()) << listing.status().message();
  ASSERT_EQ(listing->functions.size(), 1u);
  const SassFunction& function = listing->functions[0];
  EXPECT_EQ(function.mangled_name, "_Z1kPf");
  EXPECT_EQ(function.architecture, "sm_90a");
  EXPECT_EQ(function.InstructionCount(), 3);
  EXPECT_EQ(function.Count(InstructionClass::kBranch), 2);
  EXPECT_EQ(function.instructions[1].predicate, "@!P0");
}

// nvdisasm -g's line comments give each instruction its source line (file base name and line).
TEST(SassFixtures, NvdisasmLineInfoGivesEachInstructionItsSourceLine) {
  auto listing = ParseSass(ReadFixture("h200/uncoalesced_loads/sass_lineinfo.txt"), "sass_lineinfo.txt");
  ASSERT_TRUE(listing.ok()) << listing.status().message();
  const SassFunction* function = FindSassFunction(*listing, "uncoalesced_loads");
  ASSERT_NE(function, nullptr);
  std::map<unsigned long long, std::string> lines;
  for (const SassInstruction& instruction : function->instructions)
    lines[instruction.offset] = instruction.source_line;
  EXPECT_EQ(lines[0x0000], "uncoalesced_loads.cu:8");
  EXPECT_EQ(lines[0x0010], "uncoalesced_loads.cu:9");
  EXPECT_EQ(lines[0x00c0], "uncoalesced_loads.cu:10");  // the LDG
  EXPECT_EQ(lines[0x0110], "uncoalesced_loads.cu:11");  // EXIT
  const SassFunction* helper = FindSassFunction(*listing, "fill_random");
  ASSERT_NE(helper, nullptr);
  EXPECT_EQ(helper->instructions.front().source_line, "example_common.cuh:30");
  // cuobjdump -sass has no line comments.
  auto plain = ParseSass(ReadFixture("h200/uncoalesced_loads/sass.txt"), "sass.txt");
  ASSERT_TRUE(plain.ok());
  for (const SassInstruction& instruction : plain->functions.front().instructions)
    EXPECT_TRUE(instruction.source_line.empty());
}

TEST(SassParse, CrlfLineEndings) {
  std::string text = Listing({"FFMA R1, R2, R3, R4 ;", "EXIT ;"});
  std::string crlf;
  for (char c : text) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  auto listing = ParseSass(crlf, "k.sass");
  ASSERT_TRUE(listing.ok()) << listing.status().message();
  EXPECT_EQ(listing->functions[0].InstructionCount(), 2);
}

TEST(SassErrors, EmptyInput) {
  auto listing = ParseSass("  \n\n", "empty.sass");
  ASSERT_FALSE(listing.ok());
  EXPECT_EQ(listing.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(listing.status().message().find("empty.sass"), std::string::npos);
  EXPECT_NE(listing.status().message().find("empty"), std::string::npos);
}

TEST(SassErrors, BinaryInput) {
  std::string cubin(
      "\x7f"
      "ELF\x02\x01\x01\x33\x07\x00\x00\x00",
      12);
  auto listing = ParseSass(cubin, "k.cubin");
  ASSERT_FALSE(listing.ok());
  EXPECT_NE(listing.status().message().find("k.cubin: binary data"), std::string::npos);
  EXPECT_NE(listing.status().message().find("cuobjdump -sass"), std::string::npos);
}

TEST(SassErrors, TextWithoutFunctions) {
  auto listing = ParseSass("hello\nworld\n", "notes.txt");
  ASSERT_FALSE(listing.ok());
  EXPECT_NE(listing.status().message().find("notes.txt: no function found"), std::string::npos);
}

TEST(SassErrors, InstructionsWithoutAHeader) {
  auto listing = ParseSass("        /*0000*/  FFMA R1, R2, R3, R4 ;\n        /*0010*/  EXIT ;\n", "cut.sass");
  ASSERT_FALSE(listing.ok());
  EXPECT_NE(listing.status().message().find("cut.sass: 2 instruction lines but no function header"),
            std::string::npos);
}

TEST(SassErrors, MalformedInstructionNamesFileAndLine) {
  std::string text = Listing({"FFMA R1, R2, R3, R4 ;", "@P0", "EXIT ;"});
  auto listing = ParseSass(text, "bad.sass");
  ASSERT_FALSE(listing.ok());
  // Line 1 is empty, 2-4 headers, 5-8 the first instruction's two lines and the bad one.
  EXPECT_NE(listing.status().message().find("bad.sass:9:"), std::string::npos) << listing.status().message();
  EXPECT_NE(listing.status().message().find("predicate"), std::string::npos);
}

TEST(SassErrors, FunctionHeaderWithoutName) {
  auto listing = ParseSass("\t\tFunction : \n", "k.sass");
  ASSERT_FALSE(listing.ok());
  EXPECT_NE(listing.status().message().find("k.sass:1:"), std::string::npos);
}

TEST(SassErrors, GarbageNeverCrashes) {
  const char* inputs[] = {"/*",
                          "/**/",
                          "/*0*/",
                          "/*zz*/ FFMA ;",
                          "Function :",
                          ".text.:",
                          "/*00000000000000000*/ X ;",
                          "\t\tFunction : k\n/*0000*/ @",
                          "\t\tFunction : k\n/*0000*/ ;;;;",
                          "arch = sm_",
                          "\t\tFunction : k\n/*0000*/ @!!P0 BRA ;"};
  for (const char* input : inputs) {
    auto listing = ParseSass(input, "garbage");
    if (!listing.ok()) EXPECT_FALSE(listing.status().message().empty());
  }
}

// Real listings: cuobjdump and nvdisasm 13.5 over cubins nvcc 13.0 built for
// sm_90a (tests/fixtures/sass/generate.sh).
TEST(SassFixtures, CuobjdumpMixedKernels) {
  auto listing = ParseSass(ReadFixture("sass/cuobjdump_sm90a_mix.txt"), "cuobjdump_sm90a_mix.txt");
  ASSERT_TRUE(listing.ok()) << listing.status().message();
  ASSERT_EQ(listing->functions.size(), 8u);
  for (const SassFunction& function : listing->functions) {
    EXPECT_EQ(function.architecture, "sm_90a");
    EXPECT_GT(function.InstructionCount(), 0);
    EXPECT_EQ(function.instructions.size() * 16, function.instructions.back().offset + 16)
        << function.mangled_name;
  }
  const SassFunction* vector_copy = FindSassFunction(*listing, "vector_copy");
  ASSERT_NE(vector_copy, nullptr);
  EXPECT_EQ(vector_copy->global_load_widths, (std::map<int, int>{{128, 1}}));
  EXPECT_EQ(vector_copy->global_store_widths, (std::map<int, int>{{128, 1}}));

  const SassFunction* narrow = FindSassFunction(*listing, "narrow_wide");
  ASSERT_NE(narrow, nullptr);
  EXPECT_EQ(narrow->global_load_widths, (std::map<int, int>{{8, 1}, {16, 1}, {64, 1}}));

  const SassFunction* special = FindSassFunction(*listing, "special_functions");
  ASSERT_NE(special, nullptr);
  EXPECT_EQ(special->Count(InstructionClass::kSpecialFunction), 8);
  EXPECT_EQ(special->opcode_counts.at("MUFU"), 8);

  const SassFunction* double_math = FindSassFunction(*listing, "double_math");
  ASSERT_NE(double_math, nullptr);
  EXPECT_EQ(double_math->Count(InstructionClass::kFp64), 4);

  const SassFunction* atomics = FindSassFunction(*listing, "atomics");
  ASSERT_NE(atomics, nullptr);
  EXPECT_EQ(atomics->Count(InstructionClass::kGlobalAtomic), 3);  // one ATOMG, two REDG
  EXPECT_EQ(atomics->Count(InstructionClass::kSharedAtomic), 1);
  EXPECT_EQ(atomics->Count(InstructionClass::kBarrier), 2);
  EXPECT_FALSE(atomics->HasLocalMemoryTraffic());

  const SassFunction* local = FindSassFunction(*listing, "local_array");
  ASSERT_NE(local, nullptr);
  EXPECT_TRUE(local->HasLocalMemoryTraffic());
  EXPECT_EQ(local->Count(InstructionClass::kLocalStore), 16);
  EXPECT_EQ(local->Count(InstructionClass::kLocalLoad), 2);

  const SassFunction* templated = FindSassFunction(*listing, "ns::shuffle_reduce<4>");
  ASSERT_NE(templated, nullptr);
  EXPECT_EQ(templated->demangled_name, "void ns::shuffle_reduce<4>(float const*, float*)");
  EXPECT_EQ(templated->Count(InstructionClass::kMove) >= 5, true);  // SHFL.DOWN ×5 and more
  EXPECT_EQ(templated->opcode_counts.at("SHFL"), 5);

  const SassFunction* half = FindSassFunction(*listing, "half_math");
  ASSERT_NE(half, nullptr);
  EXPECT_EQ(half->Count(InstructionClass::kFp16), 1);
}

TEST(SassFixtures, CuobjdumpHmma) {
  auto listing = ParseSass(ReadFixture("sass/cuobjdump_sm90a_hmma.txt"), "cuobjdump_sm90a_hmma.txt");
  ASSERT_TRUE(listing.ok()) << listing.status().message();
  const SassFunction* gemm = FindSassFunction(*listing, "wmma_gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->Count(InstructionClass::kTensorHmma), 10);
  EXPECT_EQ(gemm->Count(InstructionClass::kTensorWarpgroup), 0);
}

TEST(SassFixtures, CuobjdumpHopperWgmmaAndTma) {
  auto listing = ParseSass(ReadFixture("sass/cuobjdump_sm90a_hopper.txt"), "cuobjdump_sm90a_hopper.txt");
  ASSERT_TRUE(listing.ok()) << listing.status().message();
  ASSERT_EQ(listing->functions.size(), 1u);
  const SassFunction& kernel = listing->functions[0];
  EXPECT_EQ(kernel.Count(InstructionClass::kTensorWarpgroup), 1);
  EXPECT_EQ(kernel.Count(InstructionClass::kTensorHmma), 0);
  EXPECT_EQ(kernel.opcode_counts.at("UTMALDG"), 1);
  EXPECT_EQ(kernel.opcode_counts.at("LDGSTS"), 1);
  EXPECT_EQ(kernel.Count(InstructionClass::kAsyncCopy), 3);  // LDGSTS, LDGDEPBAR, UTMALDG
  EXPECT_GE(kernel.Count(InstructionClass::kBarrier), 6);    // SYNCS ×4, WARPGROUP ×2, DEPBAR, FENCE
  // Three "@!PT LDS RZ, [RZ]" paddings are listed but not counted.
  EXPECT_EQ(kernel.opcode_counts.at("LDS"), 1);
}

TEST(SassFixtures, NvdisasmMatchesCuobjdump) {
  auto from_cuobjdump = ParseSass(ReadFixture("sass/cuobjdump_sm90a_hopper.txt"), "cuobjdump");
  auto from_nvdisasm = ParseSass(ReadFixture("sass/nvdisasm_hex_sm90a_hopper.txt"), "nvdisasm");
  ASSERT_TRUE(from_cuobjdump.ok() && from_nvdisasm.ok()) << from_nvdisasm.status().message();
  ASSERT_EQ(from_nvdisasm->functions.size(), 1u);
  EXPECT_EQ(from_nvdisasm->functions[0].mangled_name, from_cuobjdump->functions[0].mangled_name);
  EXPECT_EQ(from_nvdisasm->functions[0].architecture, "sm_90a");
  EXPECT_EQ(from_nvdisasm->functions[0].class_counts, from_cuobjdump->functions[0].class_counts);
  EXPECT_EQ(from_nvdisasm->functions[0].opcode_counts, from_cuobjdump->functions[0].opcode_counts);
}

TEST(SassFixtures, NvdisasmWithLineInfoMatchesCuobjdump) {
  auto from_cuobjdump = ParseSass(ReadFixture("sass/cuobjdump_sm90a_mix.txt"), "cuobjdump");
  auto from_nvdisasm = ParseSass(ReadFixture("sass/nvdisasm_lineinfo_sm90a_mix.txt"), "nvdisasm");
  ASSERT_TRUE(from_cuobjdump.ok() && from_nvdisasm.ok()) << from_nvdisasm.status().message();
  ASSERT_EQ(from_nvdisasm->functions.size(), from_cuobjdump->functions.size());
  for (const SassFunction& function : from_cuobjdump->functions) {
    const SassFunction* other = FindSassFunction(*from_nvdisasm, function.mangled_name);
    ASSERT_NE(other, nullptr) << function.mangled_name;
    // -lineinfo may change scheduling slightly; the memory mix must not change.
    EXPECT_EQ(other->global_load_widths, function.global_load_widths) << function.mangled_name;
    EXPECT_EQ(other->Count(InstructionClass::kLocalStore), function.Count(InstructionClass::kLocalStore));
  }
}

TEST(SassFixtures, NvdisasmAllSectionsSkipsData) {
  auto listing = ParseSass(ReadFixture("sass/nvdisasm_all_sections_sm90a_hmma.txt"),
                           "nvdisasm_all_sections_sm90a_hmma.txt");
  ASSERT_TRUE(listing.ok()) << listing.status().message();
  ASSERT_EQ(listing->functions.size(), 1u);
  EXPECT_EQ(listing->functions[0].Count(InstructionClass::kTensorHmma), 10);
  EXPECT_EQ(
      listing->functions[0].Count(InstructionClass::kOther),
      listing->functions[0].opcode_counts.count("NOP") ? listing->functions[0].opcode_counts.at("NOP") : 0);
}

TEST(SassFixtures, FatbinWithTwoArchitecturesAndPtx) {
  auto listing =
      ParseSass(ReadFixture("sass/cuobjdump_fatbin_sm75_sm100.txt"), "cuobjdump_fatbin_sm75_sm100.txt");
  ASSERT_TRUE(listing.ok()) << listing.status().message();
  ASSERT_EQ(listing->functions.size(), 2u);
  EXPECT_EQ(listing->functions[0].architecture, "sm_75");
  EXPECT_EQ(listing->functions[1].architecture, "sm_100");
  EXPECT_GT(listing->functions[0].Count(InstructionClass::kTensorHmma), 0);  // HMMA.1688 on Turing
  EXPECT_GT(listing->functions[1].Count(InstructionClass::kTensorHmma), 0);
}

// Listings captured on the H200 (tests/fixtures/h200/<kernel>/sass.txt and
// ptxas.txt), when present: every opcode but NOP is classified, and a kernel
// with local-memory instructions has a stack frame in its ptxas report.
TEST(SassFixtures, H200CapturedListings) {
  std::filesystem::path root = std::filesystem::path(KOPT_FIXTURE_DIR) / "h200";
  int parsed = 0;
  if (std::filesystem::is_directory(root)) {
    for (const auto& entry : std::filesystem::directory_iterator(root)) {
      std::string folder = "h200/" + entry.path().filename().string();
      if (!std::filesystem::is_regular_file(entry.path() / "sass.txt")) continue;
      auto listing = ParseSass(ReadFixture(folder + "/sass.txt"), folder + "/sass.txt");
      ASSERT_TRUE(listing.ok()) << listing.status().message();
      auto ptxas = ParsePtxasReport(ReadFixture(folder + "/ptxas.txt"), folder + "/ptxas.txt");
      for (const SassFunction& function : listing->functions) {
        EXPECT_EQ(function.architecture, "sm_90a") << folder;
        for (const SassInstruction& instruction : function.instructions) {
          if (instruction.opcode == "NOP") continue;
          EXPECT_NE(instruction.instruction_class, InstructionClass::kOther)
              << folder << ": unclassified " << instruction.opcode << instruction.modifiers;
        }
        if (!ptxas.ok()) continue;
        const PtxasFunctionReport* resources = FindPtxasFunction(*ptxas, function.mangled_name);
        ASSERT_NE(resources, nullptr) << folder << " " << function.mangled_name;
        EXPECT_GT(resources->registers, 0) << folder << " " << function.mangled_name;
        if (function.HasLocalMemoryTraffic()) {
          EXPECT_GT(resources->stack_frame_bytes, 0) << folder << " " << function.mangled_name;
        }
      }
      ++parsed;
    }
  }
  if (parsed == 0) GTEST_SKIP() << "no tests/fixtures/h200/*/sass.txt yet";
}

}  // namespace
}  // namespace kopt
