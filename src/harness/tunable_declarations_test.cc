#include "harness/tunable_declarations.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::string_view kSource = R"(// a vectorized kernel
// kopt:tune BLOCK_SIZE values=512,64,128,256 role=block_size
// kopt:tune ITEMS range=1..8 step=*2 role=items_per_thread
// kopt:restrict BLOCK_SIZE * ITEMS <= 4096
// kopt:restrict BLOCK_SIZE <= n
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef ITEMS
#define ITEMS 4
#endif
__global__ void k(float* x) { x[threadIdx.x * ITEMS] = BLOCK_SIZE; }
)";

Result<TunableDeclarations> Parse(std::string_view source) {
  return ParseTunableDeclarations(source, "k.cu", ScalarValues{{"n", 1024}});
}

std::string ErrorOf(std::string_view source) {
  Result<TunableDeclarations> parsed = Parse(source);
  if (parsed.ok()) return "(parsed)";
  return parsed.status().message();
}

TEST(TunableDeclarationsTest, ParsesParametersRestrictionsAndDefaults) {
  Result<TunableDeclarations> parsed = Parse(kSource);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->parameters.size(), 2u);
  const TunableParameter& block = parsed->parameters[0];
  EXPECT_EQ(block.name, "BLOCK_SIZE");
  EXPECT_THAT(block.values, ElementsAre(64, 128, 256, 512));
  EXPECT_EQ(block.role, ParameterRole::kBlockSize);
  EXPECT_EQ(block.default_value, 256);  // from the #ifndef guard
  EXPECT_EQ(block.line, 2);
  EXPECT_THAT(parsed->parameters[1].values, ElementsAre(1, 2, 4, 8));
  EXPECT_EQ(parsed->parameters[1].default_value, 4);
  ASSERT_EQ(parsed->restrictions.size(), 2u);
  EXPECT_EQ(parsed->restrictions[0].left, "BLOCK_SIZE * ITEMS");
  EXPECT_EQ(parsed->restrictions[0].comparison, ComparisonOperator::kLessEqual);
  EXPECT_EQ(parsed->restrictions[0].right, "4096");
  EXPECT_EQ(parsed->restrictions[1].line, 5);
  EXPECT_TRUE(CheckDeclarationsAgainstSource(*parsed, kSource).ok());
}

TEST(TunableDeclarationsTest, RangeWithAdditiveStepAndMiddleDefault) {
  Result<TunableDeclarations> parsed = Parse("// kopt:tune U range=2..10 step=+4 role=unroll\nint x = U;\n");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_THAT(parsed->parameters[0].values, ElementsAre(2, 6, 10));
  EXPECT_EQ(parsed->parameters[0].default_value, 6);
}

TEST(TunableDeclarationsTest, NoDirectivesGiveEmptyDeclarations) {
  Result<TunableDeclarations> parsed = Parse("// kopt bench candidate\n__global__ void k() {}\n");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->empty());
  EXPECT_TRUE(CheckDeclarationsAgainstSource(*parsed, "#ifndef X\n#define X 1\n#endif\n").ok());
}

TEST(TunableDeclarationsTest, ErrorsNameFileLineAndParameter) {
  EXPECT_EQ(ErrorOf("\n// kopt:tune B values=1,x role=block_size\n"),
            "k.cu:2: kopt:tune B: values=: \"x\" is not an integer");
  EXPECT_EQ(ErrorOf("// kopt:tune B range=8..1 role=block_size\n"),
            "k.cu:1: kopt:tune B: range=8..1: the low end is above the high end");
  EXPECT_THAT(ErrorOf("// kopt:tune B values=1 role=blocksize\n"),
              HasSubstr("k.cu:1: kopt:tune B: role=blocksize is not a role; expected one of: block_size"));
  EXPECT_THAT(ErrorOf("// kopt:tune B values=1\n"), HasSubstr("kopt:tune B: role= is missing"));
  EXPECT_THAT(ErrorOf("// kopt:tune B values=1,1 role=other\n"), HasSubstr("a value is listed twice"));
  EXPECT_THAT(ErrorOf("// kopt:tune B values=1 role=other\n// kopt:tune B values=2 role=other\n"),
              HasSubstr("k.cu:2: kopt:tune B: declared twice"));
  EXPECT_THAT(ErrorOf("// kopt:tune 2B values=1 role=other\n"), HasSubstr("not a C identifier"));
  EXPECT_THAT(ErrorOf("// kopt:tune B values=1 range=1..2 role=other\n"),
              HasSubstr("exactly one of values= and range="));
  EXPECT_THAT(ErrorOf("// kopt:tune B range=1..4 step=*1 role=other\n"), HasSubstr("step=*1: expected"));
  EXPECT_THAT(ErrorOf("// kopt:tune B values=1,2 role=other default=3\n"),
              HasSubstr("kopt:tune B: the default 3 is not among the declared values"));
  EXPECT_THAT(ErrorOf("// kopt:tune B values=1 role=other colour=red\n"),
              HasSubstr("\"colour=red\" is not a key"));
  EXPECT_THAT(ErrorOf("// kopt:tuning B\n"), HasSubstr("\"kopt:tuning\" is not a directive"));
  EXPECT_THAT(ErrorOf("// kopt:tune B range=1..100000 role=other\n"), HasSubstr("more than 4096 values"));
}

TEST(TunableDeclarationsTest, FlagParametersAreOnOffOrValued) {
  constexpr std::string_view kFlags = R"(// kopt:flag FAST_MATH option=-use_fast_math role=fast_math
// kopt:flag MAX_REGISTERS option=-maxrregcount={} values=32,64,255 role=max_registers default=255
__global__ void k(float* x) { x[0] = 1; }
)";
  Result<TunableDeclarations> parsed = Parse(kFlags);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->parameters.size(), 2u);
  const TunableParameter& fast = parsed->parameters[0];
  EXPECT_THAT(fast.values, ElementsAre(0, 1));
  EXPECT_EQ(fast.default_value, 0);
  EXPECT_EQ(fast.role, ParameterRole::kFastMath);
  EXPECT_EQ(CompileFlagOf(fast, 0), std::nullopt);
  EXPECT_EQ(CompileFlagOf(fast, 1), "-use_fast_math");
  const TunableParameter& registers = parsed->parameters[1];
  EXPECT_EQ(registers.default_value, 255);
  EXPECT_EQ(CompileFlagOf(registers, 64), "-maxrregcount=64");
  EXPECT_EQ(CompileFlagOf(parsed->parameters[1], 32), "-maxrregcount=32");
  // Flag parameters need not appear in the code.
  EXPECT_TRUE(CheckDeclarationsAgainstSource(*parsed, kFlags).ok());
  TunableParameter macro;
  macro.values = {1};
  EXPECT_EQ(CompileFlagOf(macro, 1), std::nullopt);
}

TEST(TunableDeclarationsTest, FlagErrorsNameTheFlag) {
  EXPECT_EQ(ErrorOf("// kopt:flag F role=fast_math\n"),
            "k.cu:1: kopt:flag F: option= is missing (e.g. option=-use_fast_math or option=-maxrregcount={})");
  EXPECT_THAT(ErrorOf("// kopt:flag F option=-Xcompiler=-fplugin=x.so role=other\n"),
              HasSubstr("k.cu:1: kopt:flag F: option=-Xcompiler=-fplugin=x.so gives \"-Xcompiler=-fplugin=x.so\" "
                        "for value 1, which is not a flag kopt accepts"));
  EXPECT_THAT(ErrorOf("// kopt:flag R option=-maxrregcount={} values=8,32 role=max_registers\n"),
              HasSubstr("gives \"-maxrregcount=8\" for value 8"));
  EXPECT_THAT(ErrorOf("// kopt:flag F option=-use_fast_math values=0,1 role=fast_math\n"),
              HasSubstr("option=-use_fast_math takes no value"));
  EXPECT_THAT(ErrorOf("// kopt:tune B values=1 role=other option=-use_fast_math\n"),
              HasSubstr("\"option=-use_fast_math\" is not a key=value of kopt:tune"));
  EXPECT_THAT(ErrorOf("// kopt:flag F option=-use_fast_math role=fast_math default=2\n"),
              HasSubstr("kopt:flag F: the default 2 is not among the declared values"));
}

TEST(TunableDeclarationsTest, DefaultMustMatchTheGuard) {
  EXPECT_THAT(ErrorOf("// kopt:tune B values=1,2 role=other default=1\n#ifndef B\n#define B 2\n#endif\n"),
              HasSubstr("k.cu:1: kopt:tune B: default=1 but the source's #ifndef B defines 2"));
}

TEST(TunableDeclarationsTest, RestrictionErrors) {
  EXPECT_THAT(
      ErrorOf("// kopt:tune B values=1 role=other\n// kopt:restrict B * C <= 4\n"),
      HasSubstr("k.cu:2: kopt:restrict B * C <= 4: \"C\" is neither a declared parameter nor a task scalar"));
  EXPECT_THAT(ErrorOf("// kopt:tune B values=1 role=other\n// kopt:restrict B + 4\n"),
              HasSubstr("expected a comparison"));
  EXPECT_THAT(ErrorOf("// kopt:tune B values=1 role=other\n// kopt:restrict 1 < B < 4\n"),
              HasSubstr("one comparison per line"));
  EXPECT_THAT(ErrorOf("// kopt:tune B values=1 role=other\n// kopt:restrict B * <= 4\n"),
              HasSubstr("column"));
  // Division by zero at the defaults is not a declaration error.
  EXPECT_EQ(ErrorOf("// kopt:tune B values=0,1 role=other\n// kopt:restrict 4 / B >= 1\n"), "(parsed)");
}

TEST(TunableDeclarationsTest, SourceChecks) {
  std::string unused = "// kopt:tune B values=1,2 role=other\n__global__ void k() {}\n";
  Result<TunableDeclarations> parsed = Parse(unused);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(CheckDeclarationsAgainstSource(*parsed, unused).message(),
            "k.cu:1: kopt:tune B: declared but never used in the code");

  std::string unguarded = "// kopt:tune B values=1,2 role=other\n#define B 2\nint x = B;\n";
  parsed = Parse(unguarded);
  ASSERT_TRUE(parsed.ok());
  EXPECT_THAT(
      CheckDeclarationsAgainstSource(*parsed, unguarded).message(),
      HasSubstr("k.cu:2: kopt:tune B: #define B without an #ifndef B guard would override the tuned value"));

  std::string undeclared =
      "// kopt:tune B values=1,2 role=other\nint x = B;\n#ifndef TILE\n#define TILE 32\n#endif\nint y = "
      "TILE;\n";
  parsed = Parse(undeclared);
  ASSERT_TRUE(parsed.ok());
  EXPECT_THAT(CheckDeclarationsAgainstSource(*parsed, undeclared).message(),
              HasSubstr("k.cu:4: TILE: a guarded (#ifndef) macro that no kopt:tune declares"));
}

TEST(TunableDeclarationsTest, UseInsideACommentIsNotAUse) {
  std::string source = "// kopt:tune B values=1,2 role=other\n/* B */ int x; // B\n";
  Result<TunableDeclarations> parsed = Parse(source);
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(CheckDeclarationsAgainstSource(*parsed, source).ok());
}

TEST(TunableDeclarationsTest, RoleNamesRoundTrip) {
  for (ParameterRole role : AllParameterRoles()) {
    EXPECT_EQ(ParseParameterRole(ParameterRoleName(role)), role);
  }
  EXPECT_EQ(AllParameterRoles().size(), 18u);
  EXPECT_FALSE(ParseParameterRole("warp_size").has_value());
}

TEST(TunableDeclarationsTest, GuardedDefault) {
  EXPECT_EQ(GuardedDefault("#ifndef B\n#  define B 64\n#endif\n", "B"), 64);
  EXPECT_EQ(GuardedDefault("#define B 64\n", "B"), std::nullopt);
  EXPECT_EQ(GuardedDefault("#ifndef B\n#define B (64)\n#endif\n", "B"), std::nullopt);
}

}  // namespace
}  // namespace kopt
