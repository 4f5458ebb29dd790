// MakeChatClient: the one way kopt builds a ChatClient from an LlmConfig.
//
// Composition, innermost first:
//   HttpTransport (curl unless given) -> provider (OpenAI-compatible or
//   Anthropic wire format) -> retries with backoff and the concurrency limit
//   -> response cache (when cache_dir is set) -> usage metering (cost per
//   call, UsageLedger) -> transcript recorder (record mode).
// Replay mode is the transcript replayer under metering: no key, no
// transport, no network.
//
// Every error message, log line, cache file and transcript line passes
// through a SecretRedactor that knows the key.
//
// Ownership: the dependencies are borrowed and must outlive the client; null
// transport means a CurlHttpTransport owned by the client; null log sink or
// ledger means none.
// Thread safety: the client may be used from several threads at once.
#pragma once

#include <memory>

#include "core/status.h"
#include "llm/chat.h"
#include "llm/config.h"
#include "llm/http_transport.h"
#include "llm/log_sink.h"
#include "llm/provider_client.h"
#include "llm/usage_ledger.h"

namespace kopt::llm {

class Sleeper;  // retrying_chat.h

struct ClientDependencies {
  HttpTransport* transport = nullptr;  // null: libcurl
  LogSink* log_sink = nullptr;         // null: no verbose log
  UsageLedger* ledger = nullptr;       // null: no run totals
  Sleeper* sleeper = nullptr;          // null: really sleeps between retries (tests inject)
};

// Validates the config (ValidateLlmConfig) and builds the client. Replay mode
// reads and checks the whole transcript here, so a malformed transcript fails
// before any work starts.
Result<std::unique_ptr<ChatClient>> MakeChatClient(const LlmConfig& config,
                                                   const ClientDependencies& dependencies = {});

// The client that speaks `config.provider`'s wire format: its row's factory
// (provider_table.h).
std::unique_ptr<ProviderChatClient> MakeProviderClient(const LlmConfig& config,
                                                       const ProviderEnvironment& environment);

}  // namespace kopt::llm
