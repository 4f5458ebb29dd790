#include "agents/number_check.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kopt::agents {
namespace {

std::vector<std::string> Texts(std::string_view text) {
  std::vector<std::string> texts;
  for (const ClaimToken& token : ExtractNumericClaims(text)) texts.push_back(token.text);
  return texts;
}

ClaimToken OnlyClaim(std::string_view text) {
  std::vector<ClaimToken> tokens = ExtractNumericClaims(text);
  EXPECT_EQ(tokens.size(), 1u) << text;
  return tokens.empty() ? ClaimToken{} : tokens.front();
}

bool Supported(std::string_view text, const EvidenceSet& evidence) {
  std::vector<NumericClaim> claims = CheckNumericClaims(text, evidence);
  EXPECT_EQ(claims.size(), 1u) << text;
  return !claims.empty() && claims.front().supported;
}

TEST(NumberCheckTest, ExtractsUnitsAndConvertsToCanonicalUnits) {
  ClaimToken bandwidth = OnlyClaim("DRAM runs at 2.1 TB/s here");
  EXPECT_EQ(bandwidth.text, "2.1 TB/s");
  EXPECT_EQ(bandwidth.unit, "byte/s");
  EXPECT_DOUBLE_EQ(bandwidth.Value(), 2.1e12);
  EXPECT_EQ(bandwidth.decimals, 1);

  EXPECT_EQ(OnlyClaim("took 57.7 µs").unit, "s");
  EXPECT_NEAR(OnlyClaim("took 57.7 µs").Value(), 57.7e-6, 1e-12);
  EXPECT_NEAR(OnlyClaim("took 57.7 us").Value(), 57.7e-6, 1e-12);
  EXPECT_NEAR(OnlyClaim("took 1.18ms").Value(), 1.18e-3, 1e-12);
  EXPECT_NEAR(OnlyClaim("took 850 ns").Value(), 850e-9, 1e-15);
  EXPECT_EQ(OnlyClaim("at 80.3%").unit, "%");
  EXPECT_EQ(OnlyClaim("1.25× slower").unit, "x");
  EXPECT_EQ(OnlyClaim("3.5x faster").unit, "x");
  EXPECT_EQ(OnlyClaim("66.8 TFLOP/s of FP32").unit, "FLOP/s");
  EXPECT_DOUBLE_EQ(OnlyClaim("66.8 TFLOP/s of FP32").Value(), 66.8e12);
  EXPECT_DOUBLE_EQ(OnlyClaim("114 GFLOPS").Value(), 114e9);
  EXPECT_EQ(OnlyClaim("134 MFLOP of work").unit, "FLOP");
  EXPECT_EQ(OnlyClaim("0.0294 FLOP/B").unit, "FLOP/byte");
  EXPECT_DOUBLE_EQ(OnlyClaim("4.56 GB moved").Value(), 4.56e9);
  EXPECT_EQ(OnlyClaim("1.02 KB shared").unit, "byte");
  EXPECT_EQ(OnlyClaim("4 bytes per sector").unit, "byte");
  EXPECT_EQ(OnlyClaim("378 cycles").unit, "cycle");
  EXPECT_EQ(OnlyClaim("16 registers per thread").unit, "register");
  EXPECT_EQ(OnlyClaim("256 threads").unit, "thread");
  EXPECT_EQ(OnlyClaim("1 block").unit, "block");
  EXPECT_EQ(OnlyClaim("132 SMs").unit, "SM");
  EXPECT_EQ(OnlyClaim("32-bit loads").unit, "bit");
  EXPECT_EQ(OnlyClaim("there are 32 of them").unit, "");
}

TEST(NumberCheckTest, MultipliersAndSeparators) {
  EXPECT_DOUBLE_EQ(OnlyClaim("67.1M sectors").Value(), 67.1e6);
  EXPECT_EQ(OnlyClaim("67.1M sectors").unit, "sector");
  EXPECT_DOUBLE_EQ(OnlyClaim("67.1 Msector").Value(), 67.1e6);
  EXPECT_DOUBLE_EQ(OnlyClaim("2.1 million requests").Value(), 2.1e6);
  EXPECT_EQ(OnlyClaim("2.1 million requests").unit, "request");
  EXPECT_DOUBLE_EQ(OnlyClaim("a grid of 262,144 blocks").Value(), 262144);
  EXPECT_DOUBLE_EQ(OnlyClaim("1.5e+09 bytes").Value(), 1.5e9);
}

TEST(NumberCheckTest, IgnoresIdentifiersOrdinalsListMarkersAndCode) {
  EXPECT_TRUE(Texts("on sm_90 with an H200 using float4 and __shfl_xor_sync").empty());
  EXPECT_TRUE(Texts("use HMMA.16816 and x2 and the 1st and 2nd loops").empty());
  EXPECT_TRUE(Texts("1. What the kernel does\n2) What limits it\n  3. Why\n(4) fix").empty());
  EXPECT_TRUE(Texts("## 1. Summary").empty());
  EXPECT_TRUE(Texts("write `a[i * 32]` instead").empty());
  EXPECT_TRUE(Texts("```cuda\nint x = 42;\nfloat y = 3.5;\n```\n").empty());
  EXPECT_TRUE(Texts("call __shfl_xor_sync(0xffffffff, value, 16) and a[32]").empty());
  EXPECT_TRUE(Texts("CUDA 12.4.1 is installed").empty());
  EXPECT_TRUE(Texts("a 2D tile").empty());
  // But a number after a list marker is a claim.
  EXPECT_EQ(Texts("1. DRAM is at 80%"), std::vector<std::string>{"80%"});
}

TEST(NumberCheckTest, SourceLinesSassOffsetsAndDimensionTuples) {
  ClaimToken line = OnlyClaim("see kernel.cu:42 for it");
  EXPECT_EQ(line.unit, "line");
  EXPECT_DOUBLE_EQ(line.Value(), 42);
  EXPECT_EQ(OnlyClaim("on line 17").unit, "line");
  ClaimToken offset = OnlyClaim("the load at 0x00c0 stalls");
  EXPECT_EQ(offset.unit, "offset");
  EXPECT_DOUBLE_EQ(offset.Value(), 192);
  EXPECT_EQ(Texts("grid 262144×1×1"), (std::vector<std::string>{"262144", "1", "1"}));
  EXPECT_EQ(ExtractNumericClaims("grid 262144×1×1").front().unit, "");
}

TEST(NumberCheckTest, RangesShareTheUnitOfTheirSecondNumber) {
  std::vector<ClaimToken> tokens = ExtractNumericClaims("use 128–256 threads or 60-80%");
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[0].unit, "thread");
  EXPECT_EQ(tokens[1].unit, "thread");
  EXPECT_EQ(tokens[2].unit, "%");
  EXPECT_EQ(tokens[3].unit, "%");
}

TEST(NumberCheckTest, UnitConversionsMatch) {
  EvidenceSet evidence;
  evidence.Add("DRAM bandwidth", 2.1e12, "byte/s");
  evidence.Add("duration", 1180000, "ns");
  evidence.Add("occupancy share", 0.45, "fraction");
  EXPECT_TRUE(Supported("2100 GB/s", evidence));
  EXPECT_TRUE(Supported("2.1 TB/s", evidence));
  EXPECT_TRUE(Supported("2,100 GB/s", evidence));
  EXPECT_TRUE(Supported("1.18 ms", evidence));
  EXPECT_TRUE(Supported("1180 µs", evidence));
  EXPECT_TRUE(Supported("45%", evidence));
  EXPECT_TRUE(Supported("a share of 0.45", evidence));
  EXPECT_FALSE(Supported("2.1 GB/s", evidence));
  EXPECT_FALSE(Supported("1.18 s", evidence));
  EXPECT_FALSE(Supported("2.1 ms", evidence));  // right number, wrong unit
}

TEST(NumberCheckTest, RoundingAtTheWrittenPrecisionAndTwoPercent) {
  EvidenceSet evidence;
  evidence.Add("DRAM bandwidth", 3.86e12, "byte/s");
  evidence.Add("sector share", 87.5, "%");
  EXPECT_TRUE(Supported("3.86 TB/s", evidence));
  EXPECT_TRUE(Supported("3.9 TB/s", evidence));
  EXPECT_TRUE(Supported("4 TB/s", evidence));      // rounds at precision 0
  EXPECT_TRUE(Supported("3,900 GB/s", evidence));  // within 2%
  EXPECT_FALSE(Supported("3.5 TB/s", evidence));
  EXPECT_FALSE(Supported("4.0 TB/s", evidence));  // 3.86 rounds to 3.9 at one decimal; 3.6% off
  EXPECT_TRUE(Supported("88%", evidence));
  EXPECT_TRUE(Supported("87.5%", evidence));
  EXPECT_TRUE(Supported("87%", evidence));  // within 2%
  EXPECT_FALSE(Supported("85%", evidence));
  EXPECT_FALSE(Supported("90%", evidence));
}

TEST(NumberCheckTest, PlainCountsMatchAnyUnitAndCompoundUnitsMatchTheirPrefix) {
  EvidenceSet evidence;
  evidence.Add("sectors per request", 32, "sector/request");
  evidence.Add("registers", 16, "register/thread");
  evidence.Add("bytes per sector", 4, "byte/sector");
  evidence.Add("ratio", 1.25, "x");
  evidence.Add("line", 42, "line");
  evidence.Add("offset", 192, "offset");
  EXPECT_TRUE(Supported("there were 32 of them", evidence));
  EXPECT_TRUE(Supported("32 sectors per request", evidence));
  EXPECT_TRUE(Supported("16 registers", evidence));
  EXPECT_TRUE(Supported("4 bytes of each sector", evidence));
  EXPECT_TRUE(Supported("1.25×", evidence));
  EXPECT_TRUE(Supported("kernel.cu:42", evidence));
  EXPECT_TRUE(Supported("at 0x00c0", evidence));
  EXPECT_FALSE(Supported("at 0x00d0", evidence));
  EXPECT_FALSE(Supported("kernel.cu:43", evidence));
  EXPECT_FALSE(Supported("3.5× faster", evidence));
  EXPECT_FALSE(Supported("32 threads", evidence));
}

TEST(NumberCheckTest, EvidenceFromSentencesOfTheReport) {
  EvidenceSet evidence;
  evidence.AddNumbersIn("finding 1 gain method", "excess share 77.8% × L2 throughput 96.3% = 74.9%");
  EXPECT_TRUE(Supported("77.8%", evidence));
  EXPECT_TRUE(Supported("74.9%", evidence));
  EXPECT_FALSE(Supported("70.9%", evidence));
}

TEST(NumberCheckTest, MarksUnsupportedClaimsInPlace) {
  EvidenceSet evidence;
  evidence.Add("DRAM", 80.3, "%");
  std::string text = "DRAM is at 80% and a fix gives 3.5× speedup, 12 µs saved.";
  std::vector<NumericClaim> claims = CheckNumericClaims(text, evidence);
  ASSERT_EQ(claims.size(), 3u);
  EXPECT_TRUE(claims[0].supported);
  EXPECT_EQ(claims[0].evidence_label, "DRAM");
  EXPECT_FALSE(claims[1].supported);
  EXPECT_FALSE(claims[2].supported);
  EXPECT_EQ(MarkUnsupportedClaims(text, claims),
            "DRAM is at 80% and a fix gives 3.5× [unsupported] speedup, 12 µs [unsupported] saved.");
}

TEST(NumberCheckTest, SignsAndNonFiniteEvidence) {
  EvidenceSet evidence;
  evidence.Add("nan", std::nan(""), "%");
  evidence.Add("gain", 20, "%");
  EXPECT_EQ(evidence.values().size(), 1u);
  EXPECT_TRUE(Supported("-20%", evidence));
  EXPECT_TRUE(Supported("−20%", evidence));
}

}  // namespace
}  // namespace kopt::agents
