#include "agents/code_extraction.h"

#include <gtest/gtest.h>

#include <set>

namespace kopt::agents {
namespace {

const std::string kKernel =
    "#include <cuda_runtime.h>\n"
    "__global__ void k(const float* x, float* y, int n) { int i = threadIdx.x; if (i < n) y[i] = x[i]; }\n"
    "extern \"C\" void scale(const float* x, float* y, int n, cudaStream_t stream) {\n"
    "  k<<<1, 256, 0, stream>>>(x, y, n);\n"
    "}\n";

std::string Fenced(const std::string& language, const std::string& code) {
  return "```" + language + "\n" + code + "```\n";
}

TEST(ExtractCode, SingleBlockOfEachLanguage) {
  for (const char* language : {"cuda", "cpp", "c++", "cu", "", "CUDA", "cuda title=\"x\""}) {
    ExtractedCode code =
        ExtractCode("Here it is:\n\n" + Fenced(language, kKernel) + "\nDone.", "stop", "scale");
    EXPECT_EQ(code.outcome, ExtractionOutcome::kSingleBlock) << language << ": " << code.message;
    EXPECT_EQ(code.source, kKernel) << language;
    EXPECT_TRUE(code.usable());
    EXPECT_EQ(code.chosen_block, 0);
  }
}

TEST(ExtractCode, TildeAndLongerFences) {
  ExtractedCode tilde = ExtractCode("~~~cuda\n" + kKernel + "~~~\n", "stop", "scale");
  EXPECT_EQ(tilde.outcome, ExtractionOutcome::kSingleBlock);
  EXPECT_EQ(tilde.source, kKernel);
  // A ```` fence is not closed by ``` inside it.
  ExtractedCode nested = ExtractCode("````cuda\n" + kKernel + "```\n````\n", "stop", "scale");
  EXPECT_EQ(nested.outcome, ExtractionOutcome::kSingleBlock) << nested.message;
  EXPECT_EQ(nested.source, kKernel + "```\n");
}

TEST(ExtractCode, NonCodeBlocksAreIgnored) {
  std::string answer =
      Fenced("text", "error: something\n") + Fenced("cuda", kKernel) + Fenced("bash", "nvcc x.cu\n");
  ExtractedCode code = ExtractCode(answer, "stop", "scale");
  EXPECT_EQ(code.outcome, ExtractionOutcome::kSingleBlock) << code.message;
  EXPECT_EQ(code.source, kKernel);
  EXPECT_EQ(code.block_count, 3);
  EXPECT_EQ(code.chosen_block, 1);
}

TEST(ExtractCode, SeveralBlocksPicksTheOneDefiningTheEntryPoint) {
  std::string helper = "__device__ float twice(float v) { return 2 * v; }\n";
  std::string declaration = "extern \"C\" void scale(const float*, float*, int, cudaStream_t);\n";
  std::string answer = "First a helper:\n" + Fenced("cuda", helper) + "The declaration:\n" +
                       Fenced("cpp", declaration) + "Full file:\n" + Fenced("cuda", kKernel);
  ExtractedCode code = ExtractCode(answer, "stop", "scale");
  EXPECT_EQ(code.outcome, ExtractionOutcome::kChosenBlock) << code.message;
  EXPECT_EQ(code.source, kKernel);
  EXPECT_EQ(code.chosen_block, 2);
  EXPECT_NE(code.message.find("block 3"), std::string::npos) << code.message;
  EXPECT_NE(code.message.find("only one defining"), std::string::npos) << code.message;
}

TEST(ExtractCode, SeveralDefiningBlocksTakesTheLastComplete) {
  std::string first = kKernel;
  std::string second = "// improved\n" + kKernel;
  ExtractedCode code =
      ExtractCode(Fenced("cuda", first) + "Better:\n" + Fenced("cuda", second), "stop", "scale");
  EXPECT_EQ(code.outcome, ExtractionOutcome::kChosenBlock);
  EXPECT_EQ(code.source, second);
  EXPECT_NE(code.message.find("last complete one of 2"), std::string::npos) << code.message;

  // The last defining block is cut off: the complete earlier one is taken.
  std::string cut = kKernel.substr(0, kKernel.size() - 3);
  ExtractedCode partial = ExtractCode(Fenced("cuda", first) + "Better:\n```cuda\n" + cut, "length", "scale");
  EXPECT_EQ(partial.outcome, ExtractionOutcome::kChosenBlock) << partial.message;
  EXPECT_EQ(partial.source, first);
}

TEST(ExtractCode, SeveralBlocksNoneDefiningIsAmbiguousNotAGuess) {
  std::string a = "__global__ void a() {}\n// calls scale\n";
  std::string b = "__global__ void b() {}\n";
  ExtractedCode code = ExtractCode(Fenced("cuda", a) + Fenced("cuda", b), "stop", "scale");
  EXPECT_EQ(code.outcome, ExtractionOutcome::kAmbiguous) << code.message;
  EXPECT_TRUE(code.source.empty());
  EXPECT_FALSE(code.usable());
  ExtractedCode unmentioned = ExtractCode(Fenced("cuda", b) + Fenced("cuda", b), "stop", "scale");
  EXPECT_EQ(unmentioned.outcome, ExtractionOutcome::kMissingEntryPoint);
}

TEST(ExtractCode, UnfencedCode) {
  ExtractedCode code = ExtractCode("\n" + kKernel, "stop", "scale");
  EXPECT_EQ(code.outcome, ExtractionOutcome::kUnfencedCode) << code.message;
  EXPECT_EQ(code.source, "\n" + kKernel);
  ExtractedCode extern_first = ExtractCode(kKernel.substr(kKernel.find("extern")), "stop", "scale");
  EXPECT_EQ(extern_first.outcome, ExtractionOutcome::kUnfencedCode) << extern_first.message;
}

TEST(ExtractCode, TruncatedOutcomes) {
  std::string cut = kKernel.substr(0, kKernel.size() - 3);  // loses the last "}\n" and more
  ExtractedCode unclosed = ExtractCode("```cuda\n" + kKernel, "stop", "scale");
  EXPECT_EQ(unclosed.outcome, ExtractionOutcome::kTruncated);
  EXPECT_NE(unclosed.message.find("never closed"), std::string::npos) << unclosed.message;
  EXPECT_EQ(unclosed.source, kKernel);

  ExtractedCode length = ExtractCode(kKernel, "length", "scale");
  EXPECT_EQ(length.outcome, ExtractionOutcome::kTruncated);
  EXPECT_NE(length.message.find("token limit"), std::string::npos) << length.message;

  ExtractedCode braces = ExtractCode(Fenced("cuda", cut), "stop", "scale");
  EXPECT_EQ(braces.outcome, ExtractionOutcome::kTruncated);
  EXPECT_NE(braces.message.find("1 unclosed '{'"), std::string::npos) << braces.message;
  EXPECT_FALSE(braces.usable());
}

TEST(ExtractCode, BracesInCommentsAndLiteralsDoNotCount) {
  std::string code = kKernel + "// {\n/* { { */\nconst char* s = \"{\\\"{\"; char c = '{';\n";
  ExtractedCode extracted = ExtractCode(Fenced("cuda", code), "stop", "scale");
  EXPECT_EQ(extracted.outcome, ExtractionOutcome::kSingleBlock) << extracted.message;
}

TEST(ExtractCode, CompleteBlockThenCutProseIsUsable) {
  ExtractedCode code = ExtractCode(Fenced("cuda", kKernel) + "This works because", "length", "scale");
  EXPECT_EQ(code.outcome, ExtractionOutcome::kSingleBlock);
  EXPECT_NE(code.message.find("cut off after"), std::string::npos) << code.message;
}

TEST(ExtractCode, NoCode) {
  EXPECT_EQ(ExtractCode("", "stop", "scale").outcome, ExtractionOutcome::kNoCodeBlock);
  EXPECT_EQ(ExtractCode("  \n ", "stop", "scale").outcome, ExtractionOutcome::kNoCodeBlock);
  ExtractedCode refusal = ExtractCode("I can't help with that.", "refusal", "scale");
  EXPECT_EQ(refusal.outcome, ExtractionOutcome::kNoCodeBlock);
  EXPECT_NE(refusal.message.find("refused"), std::string::npos);
  ExtractedCode prose = ExtractCode("Use shared memory tiling to speed this up.", "stop", "scale");
  EXPECT_EQ(prose.outcome, ExtractionOutcome::kNoCodeBlock);
  EXPECT_NE(prose.message.find("no code block"), std::string::npos);
  ExtractedCode other = ExtractCode(Fenced("toml", "a = 1\n"), "stop", "scale");
  EXPECT_EQ(other.outcome, ExtractionOutcome::kNoCodeBlock);
  EXPECT_NE(other.message.find("toml"), std::string::npos);
}

TEST(ExtractCode, MissingEntryPointName) {
  std::string code = "__global__ void k(float* y) { y[0] = 1; }\nextern \"C\" void scaler(float* y) {}\n";
  ExtractedCode extracted = ExtractCode(Fenced("cuda", code), "stop", "scale");
  EXPECT_EQ(extracted.outcome, ExtractionOutcome::kMissingEntryPoint);
  EXPECT_NE(extracted.message.find("'scale'"), std::string::npos);
  EXPECT_FALSE(extracted.usable());
}

TEST(ExtractCode, OutcomeNamesAreDistinct) {
  std::set<std::string_view> names;
  for (auto outcome :
       {ExtractionOutcome::kSingleBlock, ExtractionOutcome::kChosenBlock, ExtractionOutcome::kUnfencedCode,
        ExtractionOutcome::kTruncated, ExtractionOutcome::kNoCodeBlock, ExtractionOutcome::kMissingEntryPoint,
        ExtractionOutcome::kAmbiguous}) {
    names.insert(ExtractionOutcomeName(outcome));
  }
  EXPECT_EQ(names.size(), 7u);
}

}  // namespace
}  // namespace kopt::agents
