#include "profile/cuda_source.h"

#include <gtest/gtest.h>

#include <string>

#include "fixture_reader.h"

namespace kopt {
namespace {

constexpr char kKernel[] = R"(#define TILE 32
#define PAD 1u
// a comment with __global__ void fake() { for (;;) {} }
__global__ void __launch_bounds__(256) scale(float* out, const float* in, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const char* text = "for (int j = 0; j < n; ++j) {";
  for (int j = 0; j < n; ++j) {
    out[i] = a * in[i];
  }
}

__device__ int counter;

__device__ float helper(float x) { return x * 2.0f; }
)";

TEST(CudaSourceTest, FindsFunctionsParametersLoopsAndMacros) {
  Result<CudaSourceModel> model = ParseCudaSource(kKernel, "scale.cu");
  ASSERT_TRUE(model.ok()) << model.status().message();
  ASSERT_EQ(model->functions.size(), 2u);
  const CudaFunction& scale = model->functions[0];
  EXPECT_EQ(scale.name, "scale");
  EXPECT_TRUE(scale.is_kernel);
  EXPECT_EQ(scale.pointer_parameters, (std::set<std::string>{"out", "in"}));
  EXPECT_TRUE(scale.integer_names.count("n"));
  EXPECT_TRUE(scale.integer_names.count("i"));
  EXPECT_TRUE(scale.lane_varying.count("i"));
  EXPECT_EQ(model->functions[1].name, "helper");
  EXPECT_FALSE(model->functions[1].is_kernel);
  ASSERT_EQ(model->loops.size(), 1u) << "the loops in the comment and the string are blanked";
  EXPECT_EQ(model->LineOf(model->loops[0].first), 7);
  EXPECT_EQ(model->macros.at("TILE"), 32);
  EXPECT_EQ(model->macros.at("PAD"), 1);
  size_t store = model->code.find("out[i]");
  EXPECT_TRUE(model->InLoop(store));
  EXPECT_FALSE(model->InLoop(model->code.find("int i =")));
}

TEST(CudaSourceTest, BlankingKeepsOffsetsAndLines) {
  std::string source = "a /* x\ny */ b // c\n\"s\\\"q\" 'c' d";
  std::string code = BlankCommentsAndLiterals(source);
  ASSERT_EQ(code.size(), source.size());
  EXPECT_EQ(code, "a     \n     b     \n           d");
}

TEST(CudaSourceTest, BlankCommentsKeepsLiterals) {
  std::string text = "f(\"/proc\"); // \"/dev\"\nasm(\"mov.u64 %0, %%globaltimer;\"); /* x */ 'a'";
  std::string blanked = BlankComments(text);
  ASSERT_EQ(blanked.size(), text.size());
  EXPECT_NE(blanked.find("/proc"), std::string::npos);
  EXPECT_NE(blanked.find("%%globaltimer"), std::string::npos);
  EXPECT_EQ(blanked.find("/dev"), std::string::npos);
  EXPECT_EQ(blanked.find(" x "), std::string::npos);
  EXPECT_EQ(BlankCommentsAndLiterals(text).find("/proc"), std::string::npos);
}

TEST(CudaSourceTest, EvaluatesIntegerExpressionsWithMacros) {
  std::map<std::string, long long> macros = {{"BN", 64}, {"TILE", 32}};
  EXPECT_EQ(EvaluateIntegerExpression("32", macros), 32);
  EXPECT_EQ(EvaluateIntegerExpression("BN + 4", macros), 68);
  EXPECT_EQ(EvaluateIntegerExpression("(TILE*2)/4u", macros), 16);
  EXPECT_EQ(EvaluateIntegerExpression("N", macros), std::nullopt);
  EXPECT_EQ(EvaluateIntegerExpression("4 / 0", macros), std::nullopt);
  EXPECT_EQ(EvaluateIntegerExpression("2 +", macros), std::nullopt);
}

TEST(CudaSourceTest, ExpressionsNestedTooDeepOrOverflowingAreUnknown) {
  std::map<std::string, long long> macros = {{"BIG", 1LL << 62}};
  std::string nested =
      std::string(kMaxExpressionNesting, '(') + "1" + std::string(kMaxExpressionNesting, ')');
  EXPECT_EQ(EvaluateIntegerExpression(nested, macros), 1);
  std::string deeper = "(" + nested + ")";
  EXPECT_EQ(EvaluateIntegerExpression(deeper, macros), std::nullopt);
  std::string very_deep = std::string(100000, '(') + "1";
  EXPECT_EQ(EvaluateIntegerExpression(very_deep, macros), std::nullopt);
  EXPECT_EQ(EvaluateIntegerExpression("BIG * 4", macros), std::nullopt);
  EXPECT_EQ(EvaluateIntegerExpression("BIG + BIG", macros), std::nullopt);
  EXPECT_EQ(EvaluateIntegerExpression("(0 - BIG - BIG) / (0 - 1)", macros), std::nullopt);
}

TEST(CudaSourceTest, SourceNestedTooDeepIsInvalidInput) {
  std::string fine = "__global__ void k() {" + std::string(kMaxCudaSourceNesting - 1, '{') +
                     std::string(kMaxCudaSourceNesting - 1, '}') + "}";
  EXPECT_TRUE(ParseCudaSource(fine, "fine.cu").ok());
  std::string deep = "__global__ void k() {\n" + std::string(kMaxCudaSourceNesting, '(');
  Result<CudaSourceModel> model = ParseCudaSource(deep, "deep.cu");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_EQ(model.status().message(), "deep.cu:2: brackets nested deeper than 256");
  // Brackets in comments and literals do not count.
  std::string commented = "// " + std::string(1000, '(') + "\n\"" + std::string(1000, '{') + "\"";
  EXPECT_TRUE(ParseCudaSource(commented, "commented.cu").ok());
}

TEST(CudaSourceTest, MalformedSourcesParseToWhatCanBeRead) {
  for (const char* source : {"", "__global__", "__global__ void k(", "__global__ void k() {", "}}}{{{",
                             "/* unterminated", "\"unterminated", "for (", "do {", "#define", "#define X"}) {
    Result<CudaSourceModel> model = ParseCudaSource(source, "bad.cu");
    ASSERT_TRUE(model.ok()) << source;
    EXPECT_TRUE(model->functions.empty()) << source;
  }
}

TEST(CudaSourceTest, ParsesTheExampleKernels) {
  for (const char* name : {"shared_bank_conflicts", "uncoalesced_loads"}) {
    std::string source = ReadFixture(std::string("../../examples/kernels/") + name + ".cu");
    ASSERT_FALSE(source.empty()) << name;
    Result<CudaSourceModel> model = ParseCudaSource(source, name);
    ASSERT_TRUE(model.ok()) << model.status().message();
    EXPECT_FALSE(model->functions.empty()) << name;
  }
}

TEST(CudaSourceTest, SourceNames) {
  EXPECT_EQ(SourceNameOf("ns::gemm<128>"), "gemm");
  EXPECT_EQ(SourceNameOf("saxpy"), "saxpy");
  EXPECT_EQ(SourceNameOf("a::b::c"), "c");
}

TEST(CudaSourceTest, IdentifiersJoinMemberAccess) {
  std::string code = "x = threadIdx.x + a.y * 3.5f;";
  std::vector<SourceToken> tokens = SourceIdentifiers(code, 0, code.size());
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].text, "x");
  EXPECT_EQ(tokens[1].text, "threadIdx.x");
  EXPECT_EQ(tokens[2].text, "a.y");
  EXPECT_EQ(tokens[2].offset, code.find("a.y"));
  EXPECT_EQ(MatchingBracket("f(a[(1)], b)", 1), 11u);
  EXPECT_EQ(MatchingBracket("f(a", 1), std::string_view::npos);
}

}  // namespace
}  // namespace kopt
