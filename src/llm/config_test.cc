#include "llm/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

namespace kopt::llm {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

EnvironmentLookup FakeEnvironment(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    auto found = values.find(name);
    if (found == values.end()) return std::nullopt;
    return found->second;
  };
}

TEST(LlmConfigTest, ParsesEveryKeyOfTheLlmTable) {
  constexpr std::string_view kText = R"(
[other]
ignored = 1
[llm]
provider = "anthropic"
base_url = "http://localhost:8080/"
model = "claude-test"
connect_timeout_seconds = 3
read_timeout_seconds = 60.5
max_retries = 2
initial_backoff_seconds = 0.5
max_backoff_seconds = 8
max_concurrency = 7
cache_dir = "/tmp/cache"
mode = "record"
transcript_path = "run.jsonl"
[llm.prices."claude-test"]
input_usd_per_million_tokens = 3
output_usd_per_million_tokens = 15
)";
  auto inputs = ParseLlmConfigToml(kText, "kopt.toml");
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  auto config = ResolveLlmConfig(*inputs, FakeEnvironment({{"ANTHROPIC_API_KEY", "sk-ant-secret"}}));
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->provider, Provider::kAnthropic);
  EXPECT_EQ(config->base_url, "http://localhost:8080");
  EXPECT_EQ(config->model, "claude-test");
  EXPECT_EQ(config->api_key, "sk-ant-secret");
  EXPECT_DOUBLE_EQ(config->connect_timeout_seconds, 3);
  EXPECT_DOUBLE_EQ(config->read_timeout_seconds, 60.5);
  EXPECT_EQ(config->max_retries, 2);
  EXPECT_DOUBLE_EQ(config->initial_backoff_seconds, 0.5);
  EXPECT_DOUBLE_EQ(config->max_backoff_seconds, 8);
  EXPECT_EQ(config->max_concurrency, 7);
  EXPECT_EQ(config->cache_dir, "/tmp/cache");
  EXPECT_EQ(config->mode, LlmMode::kRecord);
  EXPECT_EQ(config->transcript_path, "run.jsonl");
  ASSERT_EQ(config->prices.count("claude-test"), 1u);
  EXPECT_DOUBLE_EQ(config->prices["claude-test"].input_usd_per_million_tokens, 3);
  EXPECT_DOUBLE_EQ(config->prices["claude-test"].output_usd_per_million_tokens, 15);
}

TEST(LlmConfigTest, DefaultsWithoutFile) {
  auto config =
      ResolveLlmConfig({}, FakeEnvironment({{"OPENAI_API_KEY", "sk-open"}, {"KOPT_LLM_MODEL", "m"}}));
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->provider, Provider::kOpenAi);
  EXPECT_EQ(config->base_url, "https://api.openai.com");
  EXPECT_DOUBLE_EQ(config->connect_timeout_seconds, 10);
  EXPECT_DOUBLE_EQ(config->read_timeout_seconds, 120);
  EXPECT_EQ(config->max_retries, 4);
  EXPECT_DOUBLE_EQ(config->initial_backoff_seconds, 1);
  EXPECT_DOUBLE_EQ(config->max_backoff_seconds, 30);
  EXPECT_EQ(config->max_concurrency, 4);
  EXPECT_EQ(config->mode, LlmMode::kLive);
  EXPECT_TRUE(config->prices.empty());
}

TEST(LlmConfigTest, UnknownKeyNamesKeyAndLine) {
  auto inputs = ParseLlmConfigToml("[llm]\nmodel = \"m\"\nmodle = \"x\"\n", "kopt.toml");
  ASSERT_FALSE(inputs.ok());
  EXPECT_THAT(inputs.status().message(), HasSubstr("kopt.toml:3"));
  EXPECT_THAT(inputs.status().message(), HasSubstr("llm.modle"));
}

TEST(LlmConfigTest, WrongTypeNamesKeyLineAndExpectedForm) {
  auto inputs = ParseLlmConfigToml("[llm]\n\nmax_retries = \"four\"\n", "a.toml");
  ASSERT_FALSE(inputs.ok());
  EXPECT_THAT(inputs.status().message(), HasSubstr("a.toml:3"));
  EXPECT_THAT(inputs.status().message(), HasSubstr("max_retries must be an integer"));
  auto timeout = ParseLlmConfigToml("[llm]\nread_timeout_seconds = \"slow\"\n", "a.toml");
  ASSERT_FALSE(timeout.ok());
  EXPECT_THAT(timeout.status().message(), HasSubstr("a.toml:2: llm.read_timeout_seconds must be a number"));
}

TEST(LlmConfigTest, BadProviderModeAndPrices) {
  auto provider = ParseLlmConfigToml("[llm]\nprovider = \"azure\"\n", "a.toml");
  ASSERT_FALSE(provider.ok());
  EXPECT_THAT(provider.status().message(), HasSubstr("a.toml:2: llm.provider"));
  EXPECT_THAT(provider.status().message(), HasSubstr("expected openai or anthropic"));
  auto mode = ParseLlmConfigToml("[llm]\nmode = \"dry\"\n", "a.toml");
  ASSERT_FALSE(mode.ok());
  EXPECT_THAT(mode.status().message(), HasSubstr("expected live, record or replay"));
  auto price = ParseLlmConfigToml("[llm.prices.\"m\"]\ninput_usd_per_million_tokens = 1\n", "a.toml");
  ASSERT_FALSE(price.ok());
  EXPECT_THAT(price.status().message(), HasSubstr("output_usd_per_million_tokens"));
}

TEST(LlmConfigTest, TomlSyntaxErrorNamesLine) {
  auto inputs = ParseLlmConfigToml("[llm]\nmodel = \n", "bad.toml");
  ASSERT_FALSE(inputs.ok());
  EXPECT_THAT(inputs.status().message(), HasSubstr("bad.toml:2"));
}

TEST(LlmConfigTest, EnvironmentOverridesFileAndKoptKeyOverridesProviderKeys) {
  auto inputs = ParseLlmConfigToml("[llm]\nmodel = \"file-model\"\napi_key = \"file-key-1234\"\n", "a.toml");
  ASSERT_TRUE(inputs.ok());
  auto config = ResolveLlmConfig(*inputs, FakeEnvironment({{"KOPT_LLM_MODEL", "env-model"},
                                                           {"OPENAI_API_KEY", "openai-key-1234"},
                                                           {"KOPT_LLM_API_KEY", "kopt-key-1234"}}));
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->model, "env-model");
  EXPECT_EQ(config->api_key, "kopt-key-1234");
  auto without_env = ResolveLlmConfig(*inputs, FakeEnvironment({}));
  ASSERT_TRUE(without_env.ok());
  EXPECT_EQ(without_env->api_key, "file-key-1234");
}

TEST(LlmConfigTest, OverridesBeatEnvironment) {
  LlmConfigOverrides overrides;
  overrides.model = "cli-model";
  overrides.base_url = "http://127.0.0.1:9";
  auto config = ResolveLlmConfig(
      {}, FakeEnvironment({{"KOPT_LLM_MODEL", "env"}, {"KOPT_LLM_API_KEY", "k-1234"}}), overrides);
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->model, "cli-model");
  EXPECT_EQ(config->base_url, "http://127.0.0.1:9");
}

TEST(LlmConfigTest, InfersProvider) {
  auto from_url = ResolveLlmConfig({}, FakeEnvironment({{"KOPT_LLM_BASE_URL", "https://api.anthropic.com/"},
                                                        {"KOPT_LLM_API_KEY", "k-1234"},
                                                        {"KOPT_LLM_MODEL", "m"}}));
  ASSERT_TRUE(from_url.ok());
  EXPECT_EQ(from_url->provider, Provider::kAnthropic);
  auto local = ResolveLlmConfig({}, FakeEnvironment({{"KOPT_LLM_BASE_URL", "http://localhost:8000/v1"},
                                                     {"KOPT_LLM_API_KEY", "k-1234"},
                                                     {"KOPT_LLM_MODEL", "m"}}));
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->provider, Provider::kOpenAi);
  auto from_key =
      ResolveLlmConfig({}, FakeEnvironment({{"ANTHROPIC_API_KEY", "ant-1234"}, {"KOPT_LLM_MODEL", "m"}}));
  ASSERT_TRUE(from_key.ok());
  EXPECT_EQ(from_key->provider, Provider::kAnthropic);
  EXPECT_EQ(from_key->base_url, "https://api.anthropic.com");
  EXPECT_EQ(from_key->api_key, "ant-1234");
  auto explicit_provider = ResolveLlmConfig({}, FakeEnvironment({{"KOPT_LLM_PROVIDER", "OpenAI"},
                                                                 {"ANTHROPIC_API_KEY", "a-1234"},
                                                                 {"OPENAI_API_KEY", "o-1234"},
                                                                 {"KOPT_LLM_MODEL", "m"}}));
  ASSERT_TRUE(explicit_provider.ok());
  EXPECT_EQ(explicit_provider->provider, Provider::kOpenAi);
  EXPECT_EQ(explicit_provider->api_key, "o-1234");
}

TEST(LlmConfigTest, MissingKeyOrModelIsAClearError) {
  auto no_key = ResolveLlmConfig({}, FakeEnvironment({{"KOPT_LLM_MODEL", "m"}}));
  ASSERT_FALSE(no_key.ok());
  EXPECT_THAT(no_key.status().message(), HasSubstr("KOPT_LLM_API_KEY"));
  auto no_model = ResolveLlmConfig({}, FakeEnvironment({{"OPENAI_API_KEY", "k-1234"}}));
  ASSERT_FALSE(no_model.ok());
  EXPECT_THAT(no_model.status().message(), HasSubstr("KOPT_LLM_MODEL"));
}

TEST(LlmConfigTest, ReplayNeedsTranscriptButNoKey) {
  LlmConfigOverrides overrides;
  overrides.mode = LlmMode::kReplay;
  auto missing = ResolveLlmConfig({}, FakeEnvironment({}), overrides);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("transcript_path"));
  overrides.transcript_path = "t.jsonl";
  auto config = ResolveLlmConfig({}, FakeEnvironment({}), overrides);
  EXPECT_TRUE(config.ok()) << config.status().message();
}

TEST(LlmConfigTest, DescriptionNeverShowsTheKey) {
  LlmConfig config;
  config.api_key = "sk-very-secret-key";
  config.model = "m";
  config.prices["m"] = {1, 2};
  std::string text = DescribeLlmConfig(config);
  EXPECT_THAT(text, Not(HasSubstr("sk-very-secret-key")));
  EXPECT_THAT(text, HasSubstr("api_key: (set)"));
  EXPECT_THAT(text, HasSubstr("price m"));
}

TEST(LlmConfigTest, LoadLlmConfigNamesAMissingFile) {
  auto config = LoadLlmConfig("/nonexistent/kopt.toml", FakeEnvironment({}));
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), HasSubstr("/nonexistent/kopt.toml"));
}

}  // namespace
}  // namespace kopt::llm
