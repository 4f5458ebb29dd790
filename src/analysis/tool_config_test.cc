#include "analysis/tool_config.h"

#include <gtest/gtest.h>

#include <set>

namespace kopt {
namespace {

TEST(ToolConfig, OverridesAThreshold) {
  auto options = ParseToolConfig(
      "[tools.healthy]\nmin_speed_of_light = 85\n\n[orchestration]\nhealthy_percent = 95\n", "k.toml");
  ASSERT_TRUE(options.ok()) << options.status().message();
  EXPECT_DOUBLE_EQ(options->threshold_overrides["healthy"]["min_speed_of_light"], 85);
  EXPECT_DOUBLE_EQ(options->healthy_percent, 95);
  auto thresholds = ResolveThresholds(*FindTool("healthy"), *options);
  EXPECT_DOUBLE_EQ(thresholds["min_speed_of_light"], 85);
  EXPECT_DOUBLE_EQ(thresholds["max_other_gain"], 0.10);
}

void ExpectError(const std::string& text, const std::string& fragment) {
  auto options = ParseToolConfig(text, "k.toml");
  ASSERT_FALSE(options.ok()) << text;
  EXPECT_EQ(options.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(options.status().message().find(fragment), std::string::npos) << options.status().message();
}

TEST(ToolConfig, BadInputNamesFileLineAndKey) {
  ExpectError("[tools.no_such_tool]\nx = 1\n", "k.toml:1: [tools.no_such_tool]: no such tool");
  ExpectError("[tools.healthy]\nno_such_threshold = 1\n", "k.toml:2: tools.healthy.no_such_threshold");
  ExpectError("[tools.healthy]\nmin_speed_of_light = \"high\"\n", "is not a number");
  ExpectError("[tools.healthy\n", "k.toml:1:");
  ExpectError("colour = 1\n", "unknown top-level key \"colour\"");
  ExpectError("[orchestration]\nspeed = 3\n", "orchestration.speed: unknown key");
}

// A misspelt tool or threshold name gets the nearest one suggested (issue 35).
TEST(ToolConfig, MisspeltNamesSuggestTheNearest) {
  ExpectError("[tools.uncoalesced_load]\nenabled = false\n",
              "no such tool (did you mean \"uncoalesced_loads\"?)");
  ExpectError("[tools.healthy]\nmin_speed_of_lite = 80\n", "(did you mean \"min_speed_of_light\"?)");
  ExpectError("[tools.healthy]\nenabled = \"no\"\n", "tools.healthy.enabled: expected true or false");
}

// `enabled = false` turns a tool off: it does not run and the kernel's notes say so.
TEST(ToolConfig, EnabledFalseTurnsAToolOff) {
  auto options =
      ParseToolConfig("[tools.tail_effect]\nenabled = false\n[tools.healthy]\nenabled = true\n", "k.toml");
  ASSERT_TRUE(options.ok()) << options.status().message();
  EXPECT_EQ(options->disabled_tools, (std::set<std::string>{"tail_effect"}));
}

TEST(ToolConfig, OutOfRangeThresholdsAreRefusedNotSilentlyApplied) {
  ExpectError("[tools.healthy]\nmin_speed_of_light = 150\n",
              "min_speed_of_light = 150: out of range; expected a percentage from 0 to 100");
  ExpectError("[tools.healthy]\nmin_speed_of_light = -1\n", "out of range");
  ExpectError("[tools.launch_overhead]\nmin_launches = -10\n", "expected a number of at least 0");
  ExpectError("[tools.launch_overhead]\nmin_gain = 2\n", "expected a fraction from 0 to 1");
  EXPECT_TRUE(ParseToolConfig("[tools.healthy]\nmin_speed_of_light = 100\n", "k.toml").ok());
}

}  // namespace
}  // namespace kopt
