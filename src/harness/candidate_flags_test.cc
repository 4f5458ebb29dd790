#include "harness/candidate_flags.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(CandidateFlagsTest, AcceptsCodeGenerationFlagsOnly) {
  for (std::string_view flag : {"-use_fast_math", "-prec-div=false", "-ftz=true", "-maxrregcount=64",
                                "-maxrregcount=255", "-Xptxas=-dlcm=cg", "-Xptxas=-O2",
                                "--extra-device-vectorization"}) {
    EXPECT_TRUE(IsAllowedCandidateFlag(flag)) << flag;
  }
  // Anything that runs tools, adds paths or reaches the host compiler or linker is refused.
  for (std::string_view flag : {"-Xcompiler=-fplugin=/tmp/p.so", "-I/etc", "--run", "-ccbin=/bin/sh",
                                "-Xlinker=-rpath", "-maxrregcount=8", "-maxrregcount=300", "-maxrregcount=6x",
                                "-Xptxas=-dlcm=xx", "--keep", "-o", ""}) {
    EXPECT_FALSE(IsAllowedCandidateFlag(flag)) << flag;
  }
}

TEST(CandidateFlagsTest, ReadsEveryKoptNvccLineNormalizedAndOnce) {
  constexpr std::string_view kSource =
      "// kopt:nvcc -use_fast_math\n"
      "__global__ void k() {}\n"
      "  //kopt:nvcc -Xptxas -dlcm=cg -use_fast_math\n"
      "// kopt:nvccx -I/etc is not the directive\n";
  Result<std::vector<std::string>> flags = CandidateCompileFlags(kSource, "k.cu");
  ASSERT_TRUE(flags.ok()) << flags.status().message();
  EXPECT_THAT(*flags, ElementsAre("-use_fast_math", "-Xptxas=-dlcm=cg"));
  Result<std::vector<std::string>> none = CandidateCompileFlags("__global__ void k() {}\n", "k.cu");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(CandidateFlagsTest, ARefusedFlagNamesFileLineAndFlag) {
  Result<std::vector<std::string>> flags =
      CandidateCompileFlags("\n\n// kopt:nvcc -use_fast_math -Xcompiler -fplugin=x.so\n", "k.cu");
  ASSERT_FALSE(flags.ok());
  EXPECT_THAT(flags.status().message(), HasSubstr("k.cu:3: kopt:nvcc -Xcompiler: not an accepted flag"));
  EXPECT_THAT(flags.status().message(), HasSubstr("-maxrregcount=N"));
  EXPECT_THAT(CandidateCompileFlags("// kopt:nvcc\n", "k.cu").status().message(),
              HasSubstr("k.cu:1: kopt:nvcc names no flag"));
}

TEST(CandidateFlagsTest, FlagsLineRoundTrips) {
  std::string line = CandidateFlagsLine({"-use_fast_math", "-maxrregcount=64"});
  EXPECT_EQ(line, "// kopt:nvcc -use_fast_math -maxrregcount=64");
  Result<std::vector<std::string>> flags = CandidateCompileFlags(line, "k.cu");
  ASSERT_TRUE(flags.ok());
  EXPECT_THAT(*flags, ElementsAre("-use_fast_math", "-maxrregcount=64"));
}

}  // namespace
}  // namespace kopt
