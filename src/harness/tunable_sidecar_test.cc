#include "harness/tunable_sidecar.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harness/tuning_space.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::string_view kSidecar = R"(# BLOCK_SIZE and ITEMS of k.cu
restrict = ["BLOCK_SIZE * ITEMS <= n", "ITEMS <= 4"]

[[parameter]]
name = "BLOCK_SIZE"
values = [64, 128, 256]
role = "block_size"

[[parameter]]
name = "ITEMS"
range = "1..8"
step = "*2"
role = "items_per_thread"
default = 2

[[flag]]
name = "FAST_MATH"
option = "-use_fast_math"
role = "fast_math"
)";

constexpr std::string_view kCode = R"(#ifndef BLOCK_SIZE
#define BLOCK_SIZE 128
#endif
#ifndef ITEMS
#define ITEMS 2
#endif
__global__ void k(float* x) { x[threadIdx.x * ITEMS] = BLOCK_SIZE; }
)";

class TunableSidecarTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("kopt_sidecar_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string Write(const std::string& name, std::string_view text) {
    std::string path = (root_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  fs::path root_;
};

TEST(SidecarDirectivesTest, EachTableBecomesADirectiveOnItsOwnLine) {
  Result<std::string> directives = SidecarDirectives(kSidecar, "k.tune.toml");
  ASSERT_TRUE(directives.ok()) << directives.status().message();
  Result<TunableDeclarations> declared =
      ParseTunableDeclarations(*directives, "k.tune.toml", ScalarValues{{"n", 1024}});
  ASSERT_TRUE(declared.ok()) << declared.status().message();
  ASSERT_EQ(declared->parameters.size(), 3u);
  EXPECT_EQ(declared->parameters[0].line, 4);  // the line of its [[parameter]]
  EXPECT_EQ(declared->parameters[1].default_value, 2);
  EXPECT_EQ(declared->parameters[2].compile_option, "-use_fast_math");
  ASSERT_EQ(declared->restrictions.size(), 2u);
  EXPECT_EQ(declared->restrictions[0].text, "BLOCK_SIZE * ITEMS <= n");
  EXPECT_EQ(SidecarPathFor("dir/k.cu"), "dir/k.tune.toml");
}

TEST(SidecarDirectivesTest, ErrorsNameTheSidecarAndItsLine) {
  EXPECT_THAT(SidecarDirectives("[[parameter]]\nname = \"B\"\nvalues = [1, \"x\"]\n", "s.toml").status().message(),
              StartsWith("s.toml:3: [[parameter]] values: expected an array of integers"));
  EXPECT_THAT(SidecarDirectives("[[parameter]]\nname = \"B\"\ncolour = 1\n", "s.toml").status().message(),
              StartsWith("s.toml:3: [[parameter]]: unknown key \"colour\""));
  EXPECT_THAT(SidecarDirectives("[[parameter]]\nrole = \"other\"\n", "s.toml").status().message(),
              StartsWith("s.toml:1: [[parameter]] needs a name"));
  EXPECT_THAT(SidecarDirectives("tune = 1\n", "s.toml").status().message(),
              StartsWith("s.toml:1: unknown key \"tune\""));
  // restrict after a table header is that table's key in TOML: said so.
  EXPECT_THAT(SidecarDirectives("[[parameter]]\nname = \"B\"\nvalues = [1]\nrole = \"other\"\nrestrict = [\"B < 2\"]\n",
                                "s.toml")
                  .status()
                  .message(),
              HasSubstr("s.toml:5: restrict goes at the top of the file"));
  EXPECT_THAT(SidecarDirectives("[[parameter]\n", "s.toml").status().message(), StartsWith("s.toml:1:"));
  // A declaration error found after the translation still names the sidecar's line.
  Result<std::string> directives =
      SidecarDirectives("\n\n[[parameter]]\nname = \"B\"\nrange = \"8..1\"\nrole = \"other\"\n", "s.toml");
  ASSERT_TRUE(directives.ok());
  EXPECT_EQ(ParseTunableDeclarations(*directives, "s.toml", {}).status().message(),
            "s.toml:3: kopt:tune B: range=8..1: the low end is above the high end");
}

TEST_F(TunableSidecarTest, LoadTunableSourceAddsTheSidecarAndKeepsTheCodesLines) {
  std::string candidate = Write("k.cu", kCode);
  Write("k.tune.toml", kSidecar);
  Result<std::string> source = LoadTunableSource(candidate, ScalarValues{{"n", 1024}});
  ASSERT_TRUE(source.ok()) << source.status().message();
  EXPECT_THAT(*source, HasSubstr("#line 1\n" + std::string(kCode)));
  Result<TuningSpace> space = TuningSpace::FromSource(*source, candidate, ScalarValues{{"n", 1024}});
  ASSERT_TRUE(space.ok()) << space.status().message();
  EXPECT_EQ(space->dimensions(), 3u);
  // Without a sidecar the file is returned as it is.
  std::string plain = Write("plain.cu", kCode);
  EXPECT_EQ(*LoadTunableSource(plain, {}), kCode);
}

TEST_F(TunableSidecarTest, TheSidecarIsCheckedAgainstTheCode) {
  std::string candidate = Write("k.cu", "__global__ void k(float* x) { x[0] = 1; }\n");
  Write("k.tune.toml", "[[parameter]]\nname = \"BLOCK_SIZE\"\nvalues = [64]\nrole = \"block_size\"\n");
  EXPECT_THAT(LoadTunableSource(candidate, {}).status().message(),
              HasSubstr("k.tune.toml:1: kopt:tune BLOCK_SIZE: declared but never used in the code"));
  std::string both = Write("both.cu", "// kopt:tune B values=1 role=other\nint B;\n");
  Write("both.tune.toml", "[[parameter]]\nname = \"C\"\nvalues = [1]\nrole = \"other\"\n");
  EXPECT_THAT(LoadTunableSource(both, {}).status().message(), HasSubstr("declare them in one place"));
  EXPECT_EQ(LoadTunableSource((root_ / "missing.cu").string(), {}).status().kind(), ErrorKind::kNotFound);
}

}  // namespace
}  // namespace kopt
