#include "harness/tuning_space.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

namespace kopt {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::string_view kSource = R"(// kopt:tune BLOCK_SIZE values=64,128,256,512 role=block_size
// kopt:tune ITEMS range=1..8 step=*2 role=items_per_thread
// kopt:restrict BLOCK_SIZE * ITEMS <= 1024
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef ITEMS
#define ITEMS 4
#endif
__global__ void k(float* x) { x[threadIdx.x * ITEMS] = BLOCK_SIZE; }
)";

TuningSpace Space(std::string_view source = kSource) {
  Result<TuningSpace> space = TuningSpace::FromSource(source, "k.cu", ScalarValues{{"n", 4096}});
  EXPECT_TRUE(space.ok()) << space.status().message();
  return std::move(space).value();
}

TEST(TuningSpaceTest, EnumeratesValidConfigurationsInMixedRadixOrder) {
  TuningSpace space = Space();
  EXPECT_EQ(space.CartesianSize(), 16u);
  std::vector<Configuration> all = space.Enumerate(100);
  // 512 * 4 and 512 * 8 and 256 * 8 break the restriction.
  ASSERT_EQ(all.size(), 13u);
  EXPECT_EQ(all.front(), (Configuration{64, 1}));
  EXPECT_EQ(all[1], (Configuration{64, 2}));
  EXPECT_EQ(all.back(), (Configuration{512, 2}));
  EXPECT_EQ(space.Enumerate(3).size(), 3u);
  EXPECT_FALSE(space.Contains({512, 4}));
  EXPECT_FALSE(space.Contains({100, 1}));
  EXPECT_FALSE(space.Contains({64}));
}

TEST(TuningSpaceTest, DefaultIsTheGuardOrTheNearestValidConfiguration) {
  EXPECT_EQ(Space().Default(), (Configuration{256, 4}));
  std::string source(kSource);
  source.replace(source.find("#define ITEMS 4"), 15, "#define ITEMS 8");
  EXPECT_EQ(Space(source).Default(), (Configuration{128, 8}));  // {256, 8} breaks it; one step away
}

TEST(TuningSpaceTest, StepAndValueIndex) {
  TuningSpace space = Space();
  EXPECT_EQ(space.Step({256, 4}, 0, 1), (Configuration{512, 4}));
  EXPECT_EQ(space.Step({256, 4}, 1, -2), (Configuration{256, 1}));
  EXPECT_EQ(space.Step({512, 4}, 0, 1), std::nullopt);
  EXPECT_EQ(space.ValueIndex({256, 4}, 0), 2u);
}

TEST(TuningSpaceTest, KeysFollowKernelTuner) {
  TuningSpace space = Space();
  EXPECT_EQ(space.Key({256, 4}), "256,4");
  Result<Configuration> parsed = space.ParseKey("128,2");
  ASSERT_TRUE(parsed.ok());
  EXPECT_THAT(*parsed, ElementsAre(128, 2));
  EXPECT_THAT(space.ParseKey("128").status().message(), HasSubstr("1 values for 2 parameters"));
  EXPECT_THAT(space.ParseKey("100,2").status().message(),
              HasSubstr("BLOCK_SIZE = 100 is not a declared value"));
  EXPECT_THAT(space.ParseKey("a,2").status().message(), HasSubstr("not a list of integers"));
  EXPECT_EQ(space.Describe({256, 4}), "BLOCK_SIZE=256 ITEMS=4");
}

TEST(TuningSpaceTest, MaterializeRoundTrips) {
  TuningSpace space = Space();
  std::string source = space.Materialize({128, 8});
  EXPECT_THAT(source,
              HasSubstr("// kopt:config BLOCK_SIZE=128 ITEMS=8\n#define BLOCK_SIZE 128\n#define ITEMS 8\n"
                        "#line 1\n// kopt:tune BLOCK_SIZE"));
  std::optional<MaterializedSource> parsed = ParseMaterialized(source);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->seed_source, kSource);
  EXPECT_THAT(parsed->configuration, ElementsAre(128, 8));
  EXPECT_THAT(parsed->names, ElementsAre("BLOCK_SIZE", "ITEMS"));
  // The materialized file is itself a valid tunable source (its prelude is skipped).
  EXPECT_FALSE(ParseMaterialized(kSource).has_value());
  EXPECT_FALSE(ParseMaterialized("// kopt:config B=1\n#define B 2\n#line 1\n").has_value());
}

TEST(TuningSpaceTest, SampleReturnsValidConfigurations) {
  TuningSpace space = Space();
  std::mt19937_64 generator(7);
  std::set<Configuration> seen;
  for (int i = 0; i < 200; ++i) {
    std::optional<Configuration> sample = space.Sample(generator);
    ASSERT_TRUE(sample.has_value());
    EXPECT_TRUE(space.Contains(*sample));
    seen.insert(*sample);
  }
  EXPECT_EQ(seen.size(), 13u);
}

TEST(TuningSpaceTest, ClearMessages) {
  EXPECT_THAT(TuningSpace::FromSource("__global__ void k() {}\n", "k.cu", {}).status().message(),
              HasSubstr("k.cu: not tunable"));
  Result<TuningSpace> excluded = TuningSpace::FromSource(
      "// kopt:tune B values=1,2 role=other\n// kopt:restrict B > 2\nint x = B;\n", "k.cu", {});
  EXPECT_THAT(
      excluded.status().message(),
      HasSubstr("k.cu: the restrictions exclude every one of the 2 configurations:\n  line 2: B > 2"));
  Result<TuningSpace> unused = TuningSpace::FromSource("// kopt:tune B values=1,2 role=other\n", "k.cu", {});
  EXPECT_THAT(unused.status().message(), HasSubstr("declared but never used"));
}

TEST(TuningSpaceTest, RestrictionsUseScalarsAndTreatDivisionByZeroAsBroken) {
  TuningSpace space =
      Space("// kopt:tune B values=0,1,2 role=other\n// kopt:restrict n / B >= 2048\nint x = B;\n");
  EXPECT_THAT(space.Enumerate(10), ElementsAre(Configuration{1}, Configuration{2}));
}

TEST(TuningSpaceTest, FlagParametersMaterializeAsAKoptNvccLine) {
  constexpr std::string_view kFlagged = R"(// kopt:tune BLOCK_SIZE values=128,256 role=block_size
// kopt:flag FAST_MATH option=-use_fast_math role=fast_math
// kopt:flag REGISTERS option=-maxrregcount={} values=64,255 role=max_registers default=255
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
__global__ void k(float* x) { x[threadIdx.x] = BLOCK_SIZE; }
)";
  TuningSpace space = Space(kFlagged);
  EXPECT_EQ(space.CartesianSize(), 8u);
  EXPECT_EQ(space.Default(), (Configuration{256, 0, 255}));
  std::string fast = space.Materialize({128, 1, 64});
  EXPECT_THAT(fast, HasSubstr("#define FAST_MATH 1\n#define REGISTERS 64\n"
                              "// kopt:nvcc -use_fast_math -maxrregcount=64\n#line 1\n"));
  std::optional<MaterializedSource> parsed = ParseMaterialized(fast);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->configuration, (Configuration{128, 1, 64}));
  EXPECT_EQ(parsed->seed_source, kFlagged);
  // Off at 0: no flag line at all, only -maxrregcount=255 for the cap.
  std::string plain = space.Materialize({128, 0, 255});
  EXPECT_THAT(plain, HasSubstr("#define REGISTERS 255\n// kopt:nvcc -maxrregcount=255\n#line 1\n"));
}

}  // namespace
}  // namespace kopt
