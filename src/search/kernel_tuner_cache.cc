#include "search/kernel_tuner_cache.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kopt {
namespace {

using nlohmann::json;

constexpr std::string_view kCompilationFailed = "CompilationFailedConfig";
constexpr std::string_view kRuntimeFailed = "RuntimeFailedConfig";
constexpr std::string_view kInvalid = "InvalidConfig";
// Members of every entry besides the parameters (Kernel Tuner's and kopt's).
constexpr std::array<std::string_view, 11> kReservedMembers = {
    "time",           "times",     "compile_time", "verification_time", "benchmark_time", "strategy_time",
    "framework_time", "timestamp", "kopt_status",  "kopt_noise",        "kopt_findings"};

std::string_view FailureString(NodeStatus status) {
  return status == NodeStatus::kFailedCompile ? kCompilationFailed : kRuntimeFailed;
}

// Kernel Tuner's member order: the parameters first, then the results.
nlohmann::ordered_json EntryJson(const KernelTunerCacheHeader& header, const KernelTunerCacheEntry& entry) {
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  for (size_t i = 0; i < header.parameter_names.size() && i < entry.configuration.size(); ++i) {
    object[header.parameter_names[i]] = entry.configuration[i];
  }
  json times = json::array();
  double benchmark_ms = 0;
  for (double time : entry.times_s) {
    times.push_back(time * 1e3);
    benchmark_ms += time * 1e3;
  }
  if (entry.status == NodeStatus::kVerified && entry.time_s) {
    object["time"] = *entry.time_s * 1e3;
  } else {
    object["time"] = std::string(FailureString(entry.status));
  }
  object["times"] = times;
  object["compile_time"] = entry.compile_time_s * 1e3;
  object["verification_time"] = 0;
  object["benchmark_time"] = benchmark_ms;
  object["strategy_time"] = 0;
  object["framework_time"] = 0;
  object["timestamp"] = "";
  object["kopt_status"] = std::string(NodeStatusName(entry.status));
  object["kopt_noise"] = entry.noise_fraction;
  object["kopt_findings"] = entry.findings;
  return object;
}

// Kernel Tuner's correct_open_cache: a file not ending in "}\n}" (or "}}}")
// was left open; drop a trailing comma and close it.
std::string CloseText(std::string_view text, bool& was_closed) {
  std::string trimmed(text);
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) trimmed.pop_back();
  std::string tail = trimmed.size() >= 3 ? trimmed.substr(trimmed.size() - 3) : trimmed;
  was_closed = tail == "}\n}" || tail == "}}}";
  if (was_closed) return trimmed;
  if (!trimmed.empty() && trimmed.back() == ',') trimmed.pop_back();
  return trimmed + "}\n}";
}

Result<std::vector<int64_t>> IntegerList(const json& value, std::string_view what, std::string_view file) {
  if (!value.is_array()) return InvalidInput(fmt::format("{}: {} is not a list", file, what));
  std::vector<int64_t> list;
  for (const json& item : value) {
    if (!item.is_number_integer()) return InvalidInput(fmt::format("{}: {} holds a non-integer", file, what));
    list.push_back(item.get<int64_t>());
  }
  return list;
}

Result<KernelTunerCacheHeader> ParseHeader(const json& document, std::string_view file) {
  KernelTunerCacheHeader header;
  for (const char* member : {"device_name", "kernel_name", "tune_params_keys", "cache"}) {
    if (!document.contains(member))
      return InvalidInput(fmt::format("{}: not a Kernel Tuner cache: no \"{}\"", file, member));
  }
  if (!document["device_name"].is_string() || !document["kernel_name"].is_string()) {
    return InvalidInput(fmt::format("{}: device_name and kernel_name must be strings", file));
  }
  header.device_name = document["device_name"].get<std::string>();
  header.kernel_name = document["kernel_name"].get<std::string>();
  if (document.contains("problem_size") && document["problem_size"].is_array()) {
    KOPT_ASSIGN_OR_RETURN(header.problem_size, IntegerList(document["problem_size"], "problem_size", file));
  }
  if (!document["tune_params_keys"].is_array())
    return InvalidInput(fmt::format("{}: tune_params_keys is not a list", file));
  for (const json& name : document["tune_params_keys"]) {
    if (!name.is_string()) return InvalidInput(fmt::format("{}: tune_params_keys holds a non-string", file));
    std::string text = name.get<std::string>();
    if (std::find(kReservedMembers.begin(), kReservedMembers.end(), text) != kReservedMembers.end()) {
      return InvalidInput(
          fmt::format("{}: tune_params_keys: \"{}\" is a member name of every entry", file, text));
    }
    header.parameter_names.push_back(std::move(text));
  }
  if (document.contains("tune_params") && document["tune_params"].is_object()) {
    for (const auto& [name, values] : document["tune_params"].items()) {
      KOPT_ASSIGN_OR_RETURN(header.parameter_values[name], IntegerList(values, "tune_params." + name, file));
    }
  }
  if (document.contains("objective") && document["objective"].is_string()) {
    header.objective = document["objective"].get<std::string>();
  }
  if (document.contains("kopt_reference_time") && document["kopt_reference_time"].is_number()) {
    double milliseconds = document["kopt_reference_time"].get<double>();
    if (milliseconds > 0 && std::isfinite(milliseconds)) header.reference_time_s = milliseconds * 1e-3;
  }
  if (document.contains("kopt_source") && document["kopt_source"].is_string()) {
    header.source = document["kopt_source"].get<std::string>();
  }
  if (document.contains("kopt_scalars") && document["kopt_scalars"].is_object()) {
    for (const auto& [name, value] : document["kopt_scalars"].items()) {
      if (value.is_number()) header.scalars[name] = value.get<double>();
    }
  }
  return header;
}

Result<NodeStatus> FailureStatus(const json& object, std::string_view time, std::string_view where) {
  if (object.contains("kopt_status") && object["kopt_status"].is_string()) {
    std::optional<NodeStatus> status = ParseNodeStatus(object["kopt_status"].get<std::string>());
    if (status && IsFailure(*status)) return *status;
  }
  if (time == kCompilationFailed) return NodeStatus::kFailedCompile;
  if (time == kRuntimeFailed || time == kInvalid) return NodeStatus::kFailedRun;
  return InvalidInput(
      fmt::format("{}: \"time\" is \"{}\": expected a number or a Kernel Tuner failure string", where, time));
}

Result<KernelTunerCacheEntry> ParseEntry(const KernelTunerCacheHeader& header, const std::string& key,
                                         const json& object, std::string_view file) {
  std::string where = fmt::format("{}: entry \"{}\"", file, key);
  if (!object.is_object()) return InvalidInput(where + ": not an object");
  KernelTunerCacheEntry entry;
  for (const std::string& name : header.parameter_names) {
    if (!object.contains(name) || !object[name].is_number_integer()) {
      return InvalidInput(fmt::format("{}: parameter {} missing or not an integer", where, name));
    }
    entry.configuration.push_back(object[name].get<int64_t>());
  }
  if (KernelTunerCache::Key(entry.configuration) != key) {
    return InvalidInput(fmt::format("{}: the key does not match its parameter values ({})", where,
                                    KernelTunerCache::Key(entry.configuration)));
  }
  if (!object.contains("time")) return InvalidInput(where + ": no \"time\"");
  const json& time = object["time"];
  if (time.is_number()) {
    entry.time_s = time.get<double>() * 1e-3;
    if (!(*entry.time_s > 0) || !std::isfinite(*entry.time_s)) {
      return InvalidInput(where + ": \"time\" is not a positive finite number");
    }
  } else if (time.is_string()) {
    KOPT_ASSIGN_OR_RETURN(entry.status, FailureStatus(object, time.get<std::string>(), where));
  } else {
    return InvalidInput(where + ": \"time\" is neither a number nor a string");
  }
  if (object.contains("times") && object["times"].is_array()) {
    for (const json& sample : object["times"]) {
      if (sample.is_number()) entry.times_s.push_back(sample.get<double>() * 1e-3);
    }
  }
  if (object.contains("compile_time") && object["compile_time"].is_number()) {
    entry.compile_time_s = object["compile_time"].get<double>() * 1e-3;
  }
  if (object.contains("kopt_noise") && object["kopt_noise"].is_number()) {
    entry.noise_fraction = object["kopt_noise"].get<double>();
  }
  if (object.contains("kopt_findings") && object["kopt_findings"].is_array()) {
    for (const json& finding : object["kopt_findings"]) {
      if (finding.is_string()) entry.findings.push_back(finding.get<std::string>());
    }
  }
  return entry;
}

}  // namespace

std::string KernelTunerCache::Key(const std::vector<int64_t>& configuration) {
  return fmt::format("{}", fmt::join(configuration, ","));
}

const KernelTunerCacheEntry* KernelTunerCache::Best() const {
  const KernelTunerCacheEntry* best = nullptr;
  for (const auto& [key, entry] : entries) {
    if (entry.status != NodeStatus::kVerified || !entry.time_s) continue;
    if (best == nullptr || *entry.time_s < *best->time_s) best = &entry;
  }
  return best;
}

std::string KernelTunerCacheHeaderText(const KernelTunerCacheHeader& header) {
  nlohmann::ordered_json values =
      nlohmann::ordered_json::object();  // tune_params_keys order, as Kernel Tuner
  for (const std::string& name : header.parameter_names) {
    if (auto list = header.parameter_values.find(name); list != header.parameter_values.end())
      values[name] = list->second;
  }
  for (const auto& [name, list] : header.parameter_values) {
    if (!values.contains(name)) values[name] = list;
  }
  std::string kopt_members;
  if (header.reference_time_s)
    kopt_members +=
        fmt::format("\"kopt_reference_time\": {},\n", json(*header.reference_time_s * 1e3).dump());
  if (!header.source.empty())
    kopt_members += fmt::format("\"kopt_source\": {},\n", json(header.source).dump());
  if (!header.scalars.empty())
    kopt_members += fmt::format("\"kopt_scalars\": {},\n", json(header.scalars).dump());
  return fmt::format(
      "{{\n\"device_name\": {},\n\"kernel_name\": {},\n\"problem_size\": {},\n"
      "\"tune_params_keys\": {},\n\"tune_params\": {},\n\"objective\": {},\n{}\"cache\": {{",
      json(header.device_name).dump(), json(header.kernel_name).dump(), json(header.problem_size).dump(),
      json(header.parameter_names).dump(), values.dump(), json(header.objective).dump(), kopt_members);
}

std::string KernelTunerCacheLine(const KernelTunerCacheHeader& header, const KernelTunerCacheEntry& entry) {
  return fmt::format("\n{}: {},", json(KernelTunerCache::Key(entry.configuration)).dump(),
                     EntryJson(header, entry).dump());
}

std::string KernelTunerCacheText(const KernelTunerCache& cache) {
  std::string text = KernelTunerCacheHeaderText(cache.header);
  for (const auto& [key, entry] : cache.entries) text += KernelTunerCacheLine(cache.header, entry);
  if (text.back() == ',') text.pop_back();
  return text + "}\n}";
}

Result<KernelTunerCache> ParseKernelTunerCache(std::string_view text, std::string_view file) {
  KernelTunerCache cache;
  json document = json::parse(text, nullptr, false);
  if (document.is_discarded()) document = json::parse(CloseText(text, cache.was_closed), nullptr, false);
  if (document.is_discarded() && !cache.was_closed) {
    // A line cut mid-write: drop it and close again.
    size_t last_line = std::string_view(text).find_last_of('\n');
    if (last_line != std::string_view::npos) {
      bool ignored = false;
      document = json::parse(CloseText(text.substr(0, last_line), ignored), nullptr, false);
    }
  }
  if (document.is_discarded() || !document.is_object()) {
    return InvalidInput(fmt::format("{}: not a Kernel Tuner cache (not JSON, even closed)", file));
  }
  KOPT_ASSIGN_OR_RETURN(cache.header, ParseHeader(document, file));
  if (!document["cache"].is_object())
    return InvalidInput(fmt::format("{}: \"cache\" is not an object", file));
  for (const auto& [key, object] : document["cache"].items()) {
    KOPT_ASSIGN_OR_RETURN(KernelTunerCacheEntry entry, ParseEntry(cache.header, key, object, file));
    cache.entries.emplace(key, std::move(entry));
  }
  return cache;
}

Status AppendKernelTunerCacheEntry(const std::string& path, const KernelTunerCacheHeader& header,
                                   const KernelTunerCacheEntry& entry) {
  std::error_code error;
  bool exists = std::filesystem::exists(path, error);
  std::string prefix;
  if (!exists) {
    prefix = KernelTunerCacheHeaderText(header);
  } else {
    std::ifstream in(path, std::ios::binary);
    std::stringstream contents;
    contents << in.rdbuf();
    bool was_closed = false;
    std::string text = contents.str();
    (void)CloseText(text, was_closed);
    if (was_closed) {  // reopen: drop the closing "}\n}" and append after a comma
      while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
      text.resize(text.size() - 3);
      bool empty_cache = !text.empty() && text.back() == '{';
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << text << (empty_cache ? "" : ",");
      if (!out) return Unavailable(fmt::format("{}: cannot rewrite the cache file", path));
    }
  }
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << prefix << KernelTunerCacheLine(header, entry);
  out.flush();
  if (!out) return Unavailable(fmt::format("{}: cannot append to the cache file", path));
  return Status::Ok();
}

}  // namespace kopt
