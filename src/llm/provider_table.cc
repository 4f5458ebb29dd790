#include "llm/provider_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/text.h"
#include "llm/anthropic_chat.h"
#include "llm/openai_chat.h"

namespace kopt::llm {
namespace {

template <typename Client>
std::unique_ptr<ProviderChatClient> MakeClient(const LlmConfig& config,
                                               const ProviderEnvironment& environment) {
  return std::make_unique<Client>(config, environment);
}

constexpr ProviderEntry kProviderTable[] = {
    {Provider::kOpenAi, "openai", "any OpenAI-compatible endpoint", "https://api.openai.com",
     "OPENAI_API_KEY", MakeClient<OpenAiChatClient>},
    {Provider::kAnthropic, "anthropic", "", "https://api.anthropic.com", "ANTHROPIC_API_KEY",
     MakeClient<AnthropicChatClient>},
};

// "a", "a or b", "a, b or c" over the rows, each as `item` writes it.
template <typename Item>
std::string JoinRows(Item item) {
  std::vector<std::string> items;
  for (const ProviderEntry& entry : kProviderTable) items.push_back(item(entry));
  return AlternativesText(std::vector<std::string_view>(items.begin(), items.end()));
}

}  // namespace

std::span<const ProviderEntry> ProviderTable() {
  return kProviderTable;
}

const ProviderEntry& ProviderEntryOf(Provider provider) {
  for (const ProviderEntry& entry : kProviderTable) {
    if (entry.provider == provider) return entry;
  }
  return kProviderTable[0];  // not reached: provider_table_test checks every value has a row
}

std::string_view ProviderName(Provider provider) {
  return ProviderEntryOf(provider).name;
}

Result<Provider> ParseProvider(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const ProviderEntry& entry : kProviderTable) {
    if (lower == entry.name) return entry.provider;
  }
  return InvalidInput(fmt::format("unknown provider \"{}\"; expected {}", text, ProviderNameList()));
}

std::string ProviderNameList() {
  return JoinRows([](const ProviderEntry& entry) { return std::string(entry.name); });
}

std::string ProviderHelpList() {
  return JoinRows([](const ProviderEntry& entry) {
    return entry.help.empty() ? std::string(entry.name) : fmt::format("{} ({})", entry.name, entry.help);
  });
}

std::string KeyVariablesOf(Provider provider) {
  return fmt::format("KOPT_LLM_API_KEY / {}", ProviderEntryOf(provider).key_variable);
}

}  // namespace kopt::llm
