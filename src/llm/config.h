// LlmConfig: which endpoint, model and key kopt's LLM users talk to, with
// timeouts, retries, concurrency, cache, record/replay and the price table.
//
// Sources, lowest precedence first: built-in defaults, the [llm] table of a
// TOML file, the environment, then LlmConfigOverrides (command-line options).
//
//   [llm]
//   provider = "openai"            # or "anthropic"; inferred when absent
//   base_url = "https://api.openai.com"
//   model = "gpt-4o"
//   api_key = "..."                # discouraged: prefer the environment
//   connect_timeout_seconds = 10
//   read_timeout_seconds = 120
//   max_retries = 4
//   initial_backoff_seconds = 1
//   max_backoff_seconds = 30
//   max_concurrency = 4
//   cache_dir = ""                 # empty: no response cache
//   mode = "live"                  # "live" | "record" | "replay"
//   transcript_path = ""           # required by record and replay
//   [llm.prices."gpt-4o"]
//   input_usd_per_million_tokens = 2.5
//   output_usd_per_million_tokens = 10
//
// Environment: KOPT_LLM_API_KEY (overrides both provider keys),
// OPENAI_API_KEY, ANTHROPIC_API_KEY, KOPT_LLM_BASE_URL, KOPT_LLM_MODEL,
// KOPT_LLM_PROVIDER.
//
// Inference (ResolveLlmConfig): without an explicit provider, a base URL
// containing "anthropic" means anthropic, any other base URL openai; without a
// base URL, ANTHROPIC_API_KEY set and OPENAI_API_KEY unset means anthropic,
// else openai. The base URL defaults to https://api.openai.com or
// https://api.anthropic.com. The key is KOPT_LLM_API_KEY, else the chosen
// provider's variable, else the file's api_key.
//
// The API key is a secret: it is never part of an error message, a log line,
// a transcript or a cache file (see secret_redactor.h). DescribeLlmConfig
// prints everything else.
//
// Thread safety: values and pure functions.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace kopt::llm {

// The LLM providers; each has one row of ProviderTable() (provider_table.h),
// where its name, default base URL, key variable and client are.
enum class Provider { kOpenAi, kAnthropic };

enum class LlmMode {
  kLive,    // talk to the endpoint
  kRecord,  // talk to the endpoint and append every exchange to transcript_path
  kReplay,  // answer from transcript_path only; no key, no network
};

// "live" / "record" / "replay".
std::string_view ModeName(LlmMode mode);
Result<LlmMode> ParseMode(std::string_view text);

struct ModelPrice {
  double input_usd_per_million_tokens = 0;
  double output_usd_per_million_tokens = 0;
};

struct LlmConfig {
  Provider provider = Provider::kOpenAi;
  std::string base_url;  // scheme://host[:port][/prefix], no trailing '/'
  std::string model;
  std::string api_key;  // secret
  double connect_timeout_seconds = 10;
  double read_timeout_seconds = 120;  // no byte received for this long: a timeout
  int max_retries = 4;                // retries after the first attempt
  double initial_backoff_seconds = 1;
  double max_backoff_seconds = 30;
  int max_concurrency = 4;  // HTTP requests in flight at once, whole client
  std::string cache_dir;    // empty: no response cache
  LlmMode mode = LlmMode::kLive;
  std::string transcript_path;  // record / replay
  // model name -> price. No built-in prices: a model missing here has
  // ChatResponse::cost_known == false.
  std::map<std::string, ModelPrice> prices;
};

// Returns the value of an environment variable, or nullopt when unset.
using EnvironmentLookup = std::function<std::optional<std::string>(const std::string& name)>;
// The process environment (getenv).
EnvironmentLookup ProcessEnvironment();

// What the command line may set; unset fields leave the config as it is.
struct LlmConfigOverrides {
  std::optional<Provider> provider;
  std::optional<std::string> base_url;
  std::optional<std::string> model;
  std::optional<LlmMode> mode;
  std::optional<std::string> transcript_path;
  std::optional<std::string> cache_dir;
};

// The config as written in a file and the environment, before inference.
// Unset optionals were not given anywhere.
struct LlmConfigInputs {
  LlmConfig values;  // defaults, overwritten by what the file gives
  std::optional<Provider> provider;
  std::optional<std::string> base_url;
  std::optional<std::string> file_api_key;
};

// Parses the [llm] table of TOML text (other tables are ignored, so the file
// may be shared with other settings). Errors name file_name, the line and the
// key, and the expected form. A file without [llm] gives the defaults.
Result<LlmConfigInputs> ParseLlmConfigToml(std::string_view text, std::string_view file_name);

// The overrides of `--llm-record PATH` / `--llm-replay PATH` (both empty:
// none; replay wins when both are given).
LlmConfigOverrides TranscriptOverrides(const std::string& record_path, const std::string& replay_path);

// Reads `config_path` (empty: no file) and the environment, applies the
// overrides, infers and validates (ResolveLlmConfig).
Result<LlmConfig> LoadLlmConfig(const std::string& config_path, const EnvironmentLookup& environment,
                                const LlmConfigOverrides& overrides = {});

// What a command's --llm needs before any work: LoadLlmConfig over the
// process environment with the transcript overrides succeeds. Its error is
// the configuration's, prefixed "--llm" (the command then exits 2).
Status CheckLlmConfig(const std::string& config_path, const std::string& record_path,
                      const std::string& replay_path);

// The same from already parsed inputs (for tests and for callers that hold
// the TOML text).
Result<LlmConfig> ResolveLlmConfig(LlmConfigInputs inputs, const EnvironmentLookup& environment,
                                   const LlmConfigOverrides& overrides = {});

// Checks ranges and the mode's needs: a key and a model in live and record
// mode, a transcript path in record and replay mode.
Status ValidateLlmConfig(const LlmConfig& config);

// One line per setting, the key shown as "(set)" or "(not set)".
std::string DescribeLlmConfig(const LlmConfig& config);

}  // namespace kopt::llm
