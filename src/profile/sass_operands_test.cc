#include "profile/sass_operands.h"

#include <gtest/gtest.h>

namespace kopt {
namespace {

SassInstruction Parsed(std::string_view text) {
  Result<SassInstruction> instruction = ParseSassInstruction(text);
  EXPECT_TRUE(instruction.ok()) << text;
  return instruction.ok() ? instruction.value() : SassInstruction{};
}

TEST(SassPredicate, OnlyNegatedConstantsNeverExecute) {
  EXPECT_TRUE(NeverExecutes("@!PT"));
  EXPECT_TRUE(NeverExecutes("@!UPT"));
  for (const char* predicate : {"", "@PT", "@UPT", "@P0", "@!P0", "@UP0", "@!UP0"}) {
    EXPECT_FALSE(NeverExecutes(predicate)) << predicate;
  }
  EXPECT_TRUE(NeverExecutes(Parsed("@!UPT UMOV UR4, 0x0 ;")));
  EXPECT_FALSE(NeverExecutes(Parsed("LDG.E R2, desc[UR4][R2.64] ;")));
}

TEST(SassPredicate, PerThreadPredicatesAreTheNonUniformRegisters) {
  EXPECT_TRUE(IsPerThreadPredicate("@P0"));
  EXPECT_TRUE(IsPerThreadPredicate("@!P0"));
  for (const char* predicate : {"", "@PT", "@!PT", "@UPT", "@!UPT", "@UP0", "@!UP0"}) {
    EXPECT_FALSE(IsPerThreadPredicate(predicate)) << predicate;
  }
}

TEST(SassOperands, TextOperandsAndRegisters) {
  SassInstruction instruction = Parsed("@!P0 IMAD.WIDE R4, R3, 0x4, -R8.reuse ;");
  EXPECT_EQ(SassText(instruction), "@!P0 IMAD.WIDE R4, R3, 0x4, -R8.reuse");
  EXPECT_EQ(Operands(instruction), (std::vector<std::string_view>{"R4", "R3", "0x4", "-R8.reuse"}));
  EXPECT_EQ(DestinationRegister(instruction), 4);
  EXPECT_EQ(WrittenRegisters(instruction), (std::vector<int>{4, 5}));
  EXPECT_EQ(SourceRegisters(instruction), (std::vector<int>{3, 8}));
  EXPECT_EQ(RegisterNumber("RZ"), std::nullopt);
  EXPECT_EQ(RegisterNumber("|R3|"), 3);
}

TEST(SassOperands, CallTargetIsTheRelativeCallsHexOperand) {
  EXPECT_EQ(CallTarget(Parsed("CALL.REL.NOINC 0xef0 ;")), 0xef0ULL);
  EXPECT_EQ(CallTarget(Parsed("BRA 0xef0 ;")), std::nullopt);
  EXPECT_EQ(LastHexNumber("no number"), std::nullopt);
}

TEST(SassOperands, AddressRegistersAndWideLoads) {
  SassInstruction load = Parsed("LDG.E.128 R4, desc[UR4][R2.64+0x10] ;");
  EXPECT_EQ(WrittenRegisters(load), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(AddressRegisters(load), (std::vector<int>{2, 3}));  // UR4 is uniform: not counted
  EXPECT_EQ(AddressRegisters(Parsed("LDS R4, [R3+UR5] ;")), (std::vector<int>{3}));
  EXPECT_EQ(AddressRegisters(Parsed("STG.E desc[UR4][R4.64], R7 ;")), (std::vector<int>{4, 5}));
  EXPECT_TRUE(AddressRegisters(Parsed("FFMA R7, R2, R9, 1 ;")).empty());
}

}  // namespace
}  // namespace kopt
