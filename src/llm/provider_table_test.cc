#include "llm/provider_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "llm/anthropic_chat.h"
#include "llm/openai_chat.h"

namespace kopt::llm {
namespace {

using ::testing::HasSubstr;

// Every row's name parses back to that row, in any case, and the row of its
// provider is the row itself.
TEST(ProviderTableTest, EveryNameRoundTrips) {
  for (const ProviderEntry& entry : ProviderTable()) {
    Result<Provider> parsed = ParseProvider(entry.name);
    ASSERT_TRUE(parsed.ok()) << entry.name;
    EXPECT_EQ(*parsed, entry.provider);
    std::string upper(entry.name);
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    Result<Provider> parsed_upper = ParseProvider(upper);
    ASSERT_TRUE(parsed_upper.ok()) << upper;
    EXPECT_EQ(*parsed_upper, entry.provider);
    EXPECT_EQ(&ProviderEntryOf(entry.provider), &entry);
    EXPECT_EQ(ProviderName(entry.provider), entry.name);
  }
}

// Rows are distinct in every column, and the table holds every Provider value.
TEST(ProviderTableTest, EveryRowIsDistinct) {
  std::set<Provider> providers;
  std::set<std::string_view> names, urls, keys;
  for (const ProviderEntry& entry : ProviderTable()) {
    EXPECT_FALSE(entry.name.empty());
    EXPECT_TRUE(entry.default_base_url.starts_with("https://")) << entry.name;
    EXPECT_TRUE(entry.key_variable.ends_with("_API_KEY")) << entry.name;
    EXPECT_NE(entry.make, nullptr) << entry.name;
    providers.insert(entry.provider);
    names.insert(entry.name);
    urls.insert(entry.default_base_url);
    keys.insert(entry.key_variable);
  }
  size_t rows = ProviderTable().size();
  EXPECT_EQ(providers.size(), rows);
  EXPECT_EQ(names.size(), rows);
  EXPECT_EQ(urls.size(), rows);
  EXPECT_EQ(keys.size(), rows);
  EXPECT_EQ(rows, 2u);                                             // Provider's values
  EXPECT_EQ(ProviderTable().front().provider, Provider::kOpenAi);  // the default comes first
}

// The lists that help and errors show name every row.
TEST(ProviderTableTest, HelpAndErrorsListEveryRow) {
  EXPECT_EQ(ProviderNameList(), "openai or anthropic");
  EXPECT_EQ(ProviderHelpList(), "openai (any OpenAI-compatible endpoint) or anthropic");
  Result<Provider> unknown = ParseProvider("mistral");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(), "unknown provider \"mistral\"; expected openai or anthropic");
  for (const ProviderEntry& entry : ProviderTable()) {
    EXPECT_THAT(ProviderNameList(), HasSubstr(std::string(entry.name)));
    EXPECT_THAT(ProviderHelpList(), HasSubstr(std::string(entry.name)));
    EXPECT_THAT(unknown.status().message(), HasSubstr(std::string(entry.name)));
    EXPECT_EQ(KeyVariablesOf(entry.provider), "KOPT_LLM_API_KEY / " + std::string(entry.key_variable));
  }
}

// Every row's factory makes the client of its own wire format: none falls
// through to another provider's.
TEST(ProviderTableTest, EveryProviderGetsItsOwnClient) {
  LlmConfig config;
  config.model = "m";
  config.api_key = "sk-test";
  ProviderEnvironment environment{};
  for (const ProviderEntry& entry : ProviderTable()) {
    config.provider = entry.provider;
    config.base_url = std::string(entry.default_base_url);
    std::unique_ptr<ProviderChatClient> client = entry.make(config, environment);
    ASSERT_NE(client, nullptr) << entry.name;
    bool is_openai = dynamic_cast<OpenAiChatClient*>(client.get()) != nullptr;
    bool is_anthropic = dynamic_cast<AnthropicChatClient*>(client.get()) != nullptr;
    EXPECT_EQ(is_openai, entry.provider == Provider::kOpenAi) << entry.name;
    EXPECT_EQ(is_anthropic, entry.provider == Provider::kAnthropic) << entry.name;
  }
}

}  // namespace
}  // namespace kopt::llm
