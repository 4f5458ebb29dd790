#include "llm/config.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/toml_document.h"
#include "llm/provider_table.h"

namespace kopt::llm {
namespace {

std::string Lower(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

std::string Where(std::string_view file_name, const toml::node& node) {
  return fmt::format("{}:{}", file_name, node.source().begin.line);
}

Result<std::string> StringOf(const toml::node& node, std::string_view file_name, std::string_view key) {
  if (auto value = node.value<std::string>()) return *value;
  return InvalidInput(fmt::format("{}: llm.{} must be a string", Where(file_name, node), key));
}

Result<double> NumberOf(const toml::node& node, std::string_view file_name, std::string_view key) {
  if (auto value = node.value<double>()) return *value;
  return InvalidInput(
      fmt::format("{}: llm.{} must be a number (seconds or USD), e.g. 10", Where(file_name, node), key));
}

Result<int> IntegerOf(const toml::node& node, std::string_view file_name, std::string_view key) {
  if (auto value = node.value<int64_t>(); value && node.is_integer()) return static_cast<int>(*value);
  return InvalidInput(fmt::format("{}: llm.{} must be an integer, e.g. 4", Where(file_name, node), key));
}

Status ReadPrices(const toml::node& node, std::string_view file_name, LlmConfig& config) {
  const toml::table* models = node.as_table();
  if (!models) return InvalidInput(fmt::format("{}: llm.prices must be a table", Where(file_name, node)));
  for (const auto& [model_key, model_node] : *models) {
    std::string model(model_key.str());
    const toml::table* fields = model_node.as_table();
    if (!fields) {
      return InvalidInput(
          fmt::format("{}: [llm.prices.\"{}\"] must be a table with "
                      "input_usd_per_million_tokens and output_usd_per_million_tokens",
                      Where(file_name, model_node), model));
    }
    ModelPrice price;
    bool has_input = false, has_output = false;
    for (const auto& [field_key, field_node] : *fields) {
      std::string key = fmt::format("prices.\"{}\".{}", model, field_key.str());
      if (field_key.str() == "input_usd_per_million_tokens") {
        KOPT_ASSIGN_OR_RETURN(price.input_usd_per_million_tokens, NumberOf(field_node, file_name, key));
        has_input = true;
      } else if (field_key.str() == "output_usd_per_million_tokens") {
        KOPT_ASSIGN_OR_RETURN(price.output_usd_per_million_tokens, NumberOf(field_node, file_name, key));
        has_output = true;
      } else {
        return InvalidInput(
            fmt::format("{}: llm.{}: unknown key; expected input_usd_per_million_tokens "
                        "or output_usd_per_million_tokens",
                        Where(file_name, field_node), key));
      }
    }
    if (!has_input || !has_output) {
      return InvalidInput(
          fmt::format("{}: [llm.prices.\"{}\"] needs both input_usd_per_million_tokens "
                      "and output_usd_per_million_tokens",
                      Where(file_name, model_node), model));
    }
    config.prices[model] = price;
  }
  return Status::Ok();
}

Status ReadStringKey(std::string_view key, const toml::node& node, std::string_view file_name,
                     LlmConfigInputs& inputs, bool& handled) {
  handled = true;
  LlmConfig& config = inputs.values;
  if (key == "provider") {
    KOPT_ASSIGN_OR_RETURN(std::string text, StringOf(node, file_name, key));
    auto provider = ParseProvider(text);
    if (!provider.ok())
      return provider.status().WithContext(fmt::format("{}: llm.provider", Where(file_name, node)));
    inputs.provider = *provider;
  } else if (key == "mode") {
    KOPT_ASSIGN_OR_RETURN(std::string text, StringOf(node, file_name, key));
    auto mode = ParseMode(text);
    if (!mode.ok()) return mode.status().WithContext(fmt::format("{}: llm.mode", Where(file_name, node)));
    config.mode = *mode;
  } else if (key == "base_url") {
    KOPT_ASSIGN_OR_RETURN(std::string text, StringOf(node, file_name, key));
    inputs.base_url = text;
  } else if (key == "api_key") {
    KOPT_ASSIGN_OR_RETURN(std::string text, StringOf(node, file_name, key));
    inputs.file_api_key = text;
  } else if (key == "model") {
    KOPT_ASSIGN_OR_RETURN(config.model, StringOf(node, file_name, key));
  } else if (key == "cache_dir") {
    KOPT_ASSIGN_OR_RETURN(config.cache_dir, StringOf(node, file_name, key));
  } else if (key == "transcript_path") {
    KOPT_ASSIGN_OR_RETURN(config.transcript_path, StringOf(node, file_name, key));
  } else {
    handled = false;
  }
  return Status::Ok();
}

Status ReadNumberKey(std::string_view key, const toml::node& node, std::string_view file_name,
                     LlmConfig& config, bool& handled) {
  handled = true;
  if (key == "connect_timeout_seconds") {
    KOPT_ASSIGN_OR_RETURN(config.connect_timeout_seconds, NumberOf(node, file_name, key));
  } else if (key == "read_timeout_seconds") {
    KOPT_ASSIGN_OR_RETURN(config.read_timeout_seconds, NumberOf(node, file_name, key));
  } else if (key == "initial_backoff_seconds") {
    KOPT_ASSIGN_OR_RETURN(config.initial_backoff_seconds, NumberOf(node, file_name, key));
  } else if (key == "max_backoff_seconds") {
    KOPT_ASSIGN_OR_RETURN(config.max_backoff_seconds, NumberOf(node, file_name, key));
  } else if (key == "max_retries") {
    KOPT_ASSIGN_OR_RETURN(config.max_retries, IntegerOf(node, file_name, key));
  } else if (key == "max_concurrency") {
    KOPT_ASSIGN_OR_RETURN(config.max_concurrency, IntegerOf(node, file_name, key));
  } else {
    handled = false;
  }
  return Status::Ok();
}

Status ReadLlmTable(const toml::table& table, std::string_view file_name, LlmConfigInputs& inputs) {
  for (const auto& [key_node, node] : table) {
    std::string_view key = key_node.str();
    if (key == "prices") {
      KOPT_RETURN_IF_ERROR(ReadPrices(node, file_name, inputs.values));
      continue;
    }
    bool handled = false;
    KOPT_RETURN_IF_ERROR(ReadStringKey(key, node, file_name, inputs, handled));
    if (!handled) KOPT_RETURN_IF_ERROR(ReadNumberKey(key, node, file_name, inputs.values, handled));
    if (!handled) {
      return InvalidInput(
          fmt::format("{}: llm.{}: unknown key; expected one of provider, base_url, model, api_key, "
                      "connect_timeout_seconds, read_timeout_seconds, max_retries, initial_backoff_seconds, "
                      "max_backoff_seconds, max_concurrency, cache_dir, mode, transcript_path, prices",
                      Where(file_name, node), key));
    }
  }
  return Status::Ok();
}

std::optional<std::string> NonEmpty(const EnvironmentLookup& environment, const std::string& name) {
  if (!environment) return std::nullopt;
  auto value = environment(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

std::string TrimTrailingSlashes(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

Status ApplyEnvironment(const EnvironmentLookup& environment, LlmConfigInputs& inputs) {
  if (auto provider = NonEmpty(environment, "KOPT_LLM_PROVIDER")) {
    auto parsed = ParseProvider(*provider);
    if (!parsed.ok()) return parsed.status().WithContext("environment variable KOPT_LLM_PROVIDER");
    inputs.provider = *parsed;
  }
  if (auto base_url = NonEmpty(environment, "KOPT_LLM_BASE_URL")) inputs.base_url = *base_url;
  if (auto model = NonEmpty(environment, "KOPT_LLM_MODEL")) inputs.values.model = *model;
  return Status::Ok();
}

// The provider when none is named: the one whose name the base URL contains,
// else the only one whose key variable is set, else the table's first, OpenAI
// (the wire format of most compatible servers).
Provider InferProvider(const LlmConfigInputs& inputs, const EnvironmentLookup& environment) {
  const Provider default_provider = ProviderTable().front().provider;
  if (inputs.provider) return *inputs.provider;
  if (inputs.base_url) {
    std::string url = Lower(*inputs.base_url);
    for (const ProviderEntry& entry : ProviderTable()) {
      if (entry.provider != default_provider && url.find(entry.name) != std::string::npos)
        return entry.provider;
    }
    return default_provider;
  }
  std::optional<Provider> keyed;
  int keys = 0;
  for (const ProviderEntry& entry : ProviderTable()) {
    if (NonEmpty(environment, std::string(entry.key_variable))) {
      keyed = entry.provider;
      ++keys;
    }
  }
  return keys == 1 ? *keyed : default_provider;
}

std::string ChooseKey(Provider provider, const LlmConfigInputs& inputs,
                      const EnvironmentLookup& environment) {
  if (auto key = NonEmpty(environment, "KOPT_LLM_API_KEY")) return *key;
  if (auto key = NonEmpty(environment, std::string(ProviderEntryOf(provider).key_variable))) return *key;
  return inputs.file_api_key.value_or("");
}

void ApplyOverrides(const LlmConfigOverrides& overrides, LlmConfigInputs& inputs) {
  if (overrides.provider) inputs.provider = *overrides.provider;
  if (overrides.base_url) inputs.base_url = *overrides.base_url;
  if (overrides.model) inputs.values.model = *overrides.model;
  if (overrides.mode) inputs.values.mode = *overrides.mode;
  if (overrides.transcript_path) inputs.values.transcript_path = *overrides.transcript_path;
  if (overrides.cache_dir) inputs.values.cache_dir = *overrides.cache_dir;
}

}  // namespace

std::string_view ModeName(LlmMode mode) {
  switch (mode) {
    case LlmMode::kLive: return "live";
    case LlmMode::kRecord: return "record";
    case LlmMode::kReplay: return "replay";
  }
  return "live";
}

Result<LlmMode> ParseMode(std::string_view text) {
  std::string lower = Lower(text);
  if (lower == "live") return LlmMode::kLive;
  if (lower == "record") return LlmMode::kRecord;
  if (lower == "replay") return LlmMode::kReplay;
  return InvalidInput(fmt::format("unknown mode \"{}\"; expected live, record or replay", text));
}

EnvironmentLookup ProcessEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (!value) return std::nullopt;
    return std::string(value);
  };
}

Result<LlmConfigInputs> ParseLlmConfigToml(std::string_view text, std::string_view file_name) {
  KOPT_ASSIGN_OR_RETURN(toml::table root, ParseTomlDocument(text, file_name));
  LlmConfigInputs inputs;
  const toml::node* llm = root.get("llm");
  if (!llm) return inputs;
  const toml::table* table = llm->as_table();
  if (!table) return InvalidInput(fmt::format("{}: llm must be a table ([llm])", Where(file_name, *llm)));
  KOPT_RETURN_IF_ERROR(ReadLlmTable(*table, file_name, inputs));
  return inputs;
}

Result<LlmConfig> ResolveLlmConfig(LlmConfigInputs inputs, const EnvironmentLookup& environment,
                                   const LlmConfigOverrides& overrides) {
  KOPT_RETURN_IF_ERROR(ApplyEnvironment(environment, inputs));
  ApplyOverrides(overrides, inputs);
  LlmConfig config = std::move(inputs.values);
  config.provider = InferProvider(inputs, environment);
  if (inputs.base_url && !inputs.base_url->empty()) {
    config.base_url = TrimTrailingSlashes(*inputs.base_url);
  } else {
    config.base_url = std::string(ProviderEntryOf(config.provider).default_base_url);
  }
  config.api_key = ChooseKey(config.provider, inputs, environment);
  KOPT_RETURN_IF_ERROR(ValidateLlmConfig(config));
  return config;
}

Result<LlmConfig> LoadLlmConfig(const std::string& config_path, const EnvironmentLookup& environment,
                                const LlmConfigOverrides& overrides) {
  LlmConfigInputs inputs;
  if (!config_path.empty()) {
    std::ifstream stream(config_path, std::ios::binary);
    if (!stream) return NotFound(fmt::format("{}: cannot be read (LLM configuration file)", config_path));
    std::ostringstream text;
    text << stream.rdbuf();
    KOPT_ASSIGN_OR_RETURN(inputs, ParseLlmConfigToml(text.str(), config_path));
  }
  return ResolveLlmConfig(std::move(inputs), environment, overrides);
}

Status ValidateLlmConfig(const LlmConfig& config) {
  auto positive = [](double value) { return value > 0; };
  if (!positive(config.connect_timeout_seconds) || !positive(config.read_timeout_seconds)) {
    return InvalidInput("llm: connect_timeout_seconds and read_timeout_seconds must be > 0 seconds");
  }
  if (config.max_retries < 0) return InvalidInput("llm: max_retries must be >= 0");
  if (config.initial_backoff_seconds < 0 || config.max_backoff_seconds < 0) {
    return InvalidInput("llm: initial_backoff_seconds and max_backoff_seconds must be >= 0 seconds");
  }
  if (config.max_concurrency < 1) return InvalidInput("llm: max_concurrency must be >= 1");
  if (config.mode != LlmMode::kLive && config.transcript_path.empty()) {
    return InvalidInput(fmt::format("llm: mode {} needs transcript_path", ModeName(config.mode)));
  }
  if (config.mode == LlmMode::kReplay) return Status::Ok();  // no endpoint, no key
  if (config.base_url.rfind("http://", 0) != 0 && config.base_url.rfind("https://", 0) != 0) {
    return InvalidInput(
        fmt::format("llm: base_url \"{}\" must start with http:// or https://", config.base_url));
  }
  if (config.model.empty()) {
    return InvalidInput("llm: no model; set [llm] model in the config file or KOPT_LLM_MODEL");
  }
  if (config.api_key.empty()) {
    return InvalidInput(fmt::format("llm: no API key for {} at {}; set KOPT_LLM_API_KEY or {}",
                                    ProviderName(config.provider), config.base_url,
                                    ProviderEntryOf(config.provider).key_variable));
  }
  return Status::Ok();
}

std::string DescribeLlmConfig(const LlmConfig& config) {
  std::string text = fmt::format(
      "provider: {}\nbase_url: {}\nmodel: {}\napi_key: {}\nconnect_timeout: {} s\nread_timeout: {} s\n"
      "max_retries: {}\nbackoff: {} s initial, {} s max\nmax_concurrency: {}\ncache_dir: {}\nmode: {}\n"
      "transcript_path: {}\n",
      ProviderName(config.provider), config.base_url, config.model.empty() ? "(not set)" : config.model,
      config.api_key.empty() ? "(not set)" : "(set)", config.connect_timeout_seconds,
      config.read_timeout_seconds, config.max_retries, config.initial_backoff_seconds,
      config.max_backoff_seconds, config.max_concurrency,
      config.cache_dir.empty() ? "(none)" : config.cache_dir, ModeName(config.mode),
      config.transcript_path.empty() ? "(none)" : config.transcript_path);
  for (const auto& [model, price] : config.prices) {
    text += fmt::format("price {}: {} USD / million input tokens, {} USD / million output tokens\n", model,
                        price.input_usd_per_million_tokens, price.output_usd_per_million_tokens);
  }
  return text;
}

LlmConfigOverrides TranscriptOverrides(const std::string& record_path, const std::string& replay_path) {
  LlmConfigOverrides overrides;
  if (!replay_path.empty()) {
    overrides.mode = LlmMode::kReplay;
    overrides.transcript_path = replay_path;
  } else if (!record_path.empty()) {
    overrides.mode = LlmMode::kRecord;
    overrides.transcript_path = record_path;
  }
  return overrides;
}

Status CheckLlmConfig(const std::string& config_path, const std::string& record_path,
                      const std::string& replay_path) {
  return LoadLlmConfig(config_path, ProcessEnvironment(), TranscriptOverrides(record_path, replay_path))
      .status()
      .WithContext("--llm");
}

}  // namespace kopt::llm
