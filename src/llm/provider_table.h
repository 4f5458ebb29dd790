// The LLM providers as data. Adding one is its client's files (x_chat.h,
// x_chat.cc: a ProviderChatClient), a Provider value (config.h) and one row of
// ProviderTable() (provider_table.cc). Everything else derives from the
// table: the names that config files and KOPT_LLM_PROVIDER accept, the
// error for an unknown name, the default base URL, the key variable, the
// inference from a base URL or a key (config.cc), the 401 hint and the
// client MakeChatClient builds (client_factory.cc). provider_table_test
// checks that every row is distinct and round-trips through ParseProvider.
//
// Thread safety: constant data and pure functions.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/status.h"
#include "llm/config.h"
#include "llm/provider_client.h"

namespace kopt::llm {

struct ProviderEntry {
  Provider provider;
  std::string_view name;              // "openai": config files, KOPT_LLM_PROVIDER, messages
  std::string_view help;              // "any OpenAI-compatible endpoint"; "" when the name says it
  std::string_view default_base_url;  // "https://api.openai.com" when no base_url is set
  std::string_view key_variable;      // "OPENAI_API_KEY": its own key variable
  // The client of the provider's wire format. Preconditions: config.provider
  // is this row's; the environment outlives the client.
  std::unique_ptr<ProviderChatClient> (*make)(const LlmConfig& config,
                                              const ProviderEnvironment& environment);
};

// Every provider once, the default (OpenAI, the wire format of most
// compatible servers) first.
std::span<const ProviderEntry> ProviderTable();

// The row of `provider`. Precondition: a Provider value (every value has a row).
const ProviderEntry& ProviderEntryOf(Provider provider);

// "openai" / "anthropic".
std::string_view ProviderName(Provider provider);

// Case-insensitive, any row's name; else InvalidInput naming ProviderNameList().
Result<Provider> ParseProvider(std::string_view text);

// The names in table order, "openai or anthropic".
std::string ProviderNameList();

// The names with their help, "openai (any OpenAI-compatible endpoint) or anthropic".
std::string ProviderHelpList();

// The variables that may hold the key of `provider`, for the 401 hint:
// "KOPT_LLM_API_KEY / OPENAI_API_KEY".
std::string KeyVariablesOf(Provider provider);

}  // namespace kopt::llm
