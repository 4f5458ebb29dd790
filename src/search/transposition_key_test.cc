#include "search/transposition_key.h"

#include <gtest/gtest.h>

namespace kopt {
namespace {

TEST(TranspositionKeyTest, CommentsAndWhitespaceDoNotMatter) {
  std::string a = "__global__ void k(float* x) {\n  x[0] = 1;  // set\n}\n";
  std::string b = "/* header */\n__global__   void k(float* x)\n{\n\tx[0] = 1;\n}";
  EXPECT_EQ(NormalizeSource(a), "__global__ void k(float* x) { x[0] = 1; }");
  EXPECT_EQ(SourceTranspositionKey(a), SourceTranspositionKey(b));
  EXPECT_NE(SourceTranspositionKey(a), SourceTranspositionKey("__global__ void k(float* x) { x[0] = 2; }"));
}

TEST(TranspositionKeyTest, LiteralsAreKeptVerbatim) {
  EXPECT_EQ(NormalizeSource("printf(\"a  // b\");  // c"), "printf(\"a  // b\");");
  EXPECT_EQ(NormalizeSource("char c = '/'; int n = 1'000;"), "char c = '/'; int n = 1'000;");
  EXPECT_NE(SourceTranspositionKey("s = \"a b\";"), SourceTranspositionKey("s = \"a  b\";"));
}

TEST(TranspositionKeyTest, DirectivesKeepTheirLineBreak) {
  EXPECT_EQ(NormalizeSource("  #define N 4   \n#include <x>\nint a;\n\n int  b;"),
            "#define N 4\n#include <x>\nint a; int b;");
  EXPECT_EQ(NormalizeSource("#define F(x) \\\n  (x)\nint a;"), "#define F(x) \\ (x)\nint a;");
}

TEST(TranspositionKeyTest, KindsArePrefixed) {
  EXPECT_EQ(SourceTranspositionKey("x").rfind("source:", 0), 0u);
  EXPECT_EQ(BinaryTranspositionKey("x").rfind("binary:", 0), 0u);
  EXPECT_EQ(BinaryTranspositionKey("x").size(), 7u + 64u);
}

}  // namespace
}  // namespace kopt
