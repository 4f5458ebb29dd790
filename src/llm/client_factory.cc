#include "llm/client_factory.h"

#include <fmt/format.h>

#include "llm/provider_table.h"
#include "llm/response_cache.h"
#include "llm/retrying_chat.h"
#include "llm/secret_redactor.h"
#include "llm/transcript.h"

namespace kopt::llm {
namespace {

// Passes every line through the redactor before the caller's sink.
class RedactingLogSink : public LogSink {
 public:
  RedactingLogSink(LogSink* sink, const SecretRedactor* redactor) : sink_(sink), redactor_(redactor) {}
  void Log(std::string_view line) override { sink_->Log(redactor_->Redact(line)); }

 private:
  LogSink* sink_;
  const SecretRedactor* redactor_;
};

// Owns what the composed clients borrow (transport, redactor, log sink) and
// redacts every error on the way out.
class ComposedChatClient : public ChatClient {
 public:
  std::unique_ptr<SecretRedactor> redactor = std::make_unique<SecretRedactor>();
  std::unique_ptr<HttpTransport> owned_transport;
  std::unique_ptr<LogSink> log_sink;
  std::unique_ptr<ChatClient> inner;

  Result<ChatResponse> Complete(const ChatRequest& request) override {
    Result<ChatResponse> result = inner->Complete(request);
    if (!result.ok()) return redactor->Redact(result.status());
    return result;
  }
};

}  // namespace

std::unique_ptr<ProviderChatClient> MakeProviderClient(const LlmConfig& config,
                                                       const ProviderEnvironment& environment) {
  return ProviderEntryOf(config.provider).make(config, environment);
}

namespace {

Result<std::unique_ptr<ChatClient>> MakeLiveChain(const LlmConfig& config,
                                                  const ClientDependencies& dependencies,
                                                  ComposedChatClient& composed) {
  HttpTransport* transport = dependencies.transport;
  if (!transport) {
    composed.owned_transport = std::make_unique<CurlHttpTransport>();
    transport = composed.owned_transport.get();
  }
  ProviderEnvironment environment{transport, composed.redactor.get(), composed.log_sink.get()};
  RetryPolicy policy{config.max_retries, config.initial_backoff_seconds, config.max_backoff_seconds,
                     config.max_concurrency};
  std::unique_ptr<ChatClient> client = std::make_unique<RetryingChatClient>(
      MakeProviderClient(config, environment), policy, dependencies.sleeper, composed.log_sink.get());
  if (!config.cache_dir.empty()) {
    client = std::make_unique<CachingChatClient>(std::move(client), config, composed.redactor.get(),
                                                 composed.log_sink.get());
  }
  client = std::make_unique<MeteredChatClient>(std::move(client), config.prices, config.model,
                                               dependencies.ledger);
  if (config.mode == LlmMode::kRecord) {
    KOPT_ASSIGN_OR_RETURN(client,
                          TranscriptRecorder::Open(std::move(client), config.transcript_path, config.model,
                                                   composed.redactor.get(), composed.log_sink.get()));
  }
  return client;
}

}  // namespace

Result<std::unique_ptr<ChatClient>> MakeChatClient(const LlmConfig& config,
                                                   const ClientDependencies& dependencies) {
  auto composed = std::make_unique<ComposedChatClient>();
  composed->redactor->AddSecret(config.api_key);
  Status valid = ValidateLlmConfig(config);
  if (!valid.ok()) return composed->redactor->Redact(valid);
  if (dependencies.log_sink) {
    composed->log_sink = std::make_unique<RedactingLogSink>(dependencies.log_sink, composed->redactor.get());
  }
  if (config.mode == LlmMode::kReplay) {
    KOPT_ASSIGN_OR_RETURN(
        std::unique_ptr<ChatClient> replayer,
        TranscriptReplayer::Open(config.transcript_path, config.model, composed->log_sink.get()));
    composed->inner = std::make_unique<MeteredChatClient>(std::move(replayer), config.prices, config.model,
                                                          dependencies.ledger);
  } else {
    auto chain = MakeLiveChain(config, dependencies, *composed);
    if (!chain.ok()) return composed->redactor->Redact(chain.status());
    composed->inner = std::move(chain).value();
  }
  if (composed->log_sink) {
    composed->log_sink->Log(fmt::format("llm: {} client for {} at {} ({} mode)",
                                        ProviderName(config.provider), config.model, config.base_url,
                                        ModeName(config.mode)));
  }
  return std::unique_ptr<ChatClient>(std::move(composed));
}

}  // namespace kopt::llm
