#include "harness/task_baselines.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <system_error>

#include "core/enum_names.h"
#include "core/file_io.h"

namespace kopt {
namespace {

using nlohmann::json;

constexpr size_t kMaxDocumentBytes = size_t{16} << 20;

Status Malformed(const std::string& path, const std::string& what) {
  return InvalidInput(
      fmt::format("{}: {} (expected a kopt.baselines document, version 1: docs/suite.md "
                  "\"Baselines\")",
                  path, what));
}

constexpr EnumNameTable<PytorchBaseline, 3> kBaselineNames = {
    {{PytorchBaseline::kEager, "eager"},
     {PytorchBaseline::kTf32, "tf32"},
     {PytorchBaseline::kTorchCompile, "torch_compile"}}};
constexpr EnumNameTable<PytorchBaseline, 3> kBaselineTitles = {
    {{PytorchBaseline::kEager, "eager"},
     {PytorchBaseline::kTf32, "TF32"},
     {PytorchBaseline::kTorchCompile, "torch.compile"}}};

Status ReadEntry(const json& entry, size_t index, const std::string& path, TaskBaselines& baselines) {
  std::string where = fmt::format("baselines[{}]", index);
  if (!entry.is_object()) return Malformed(path, where + " is not an object");
  if (!entry.contains("name") || !entry["name"].is_string())
    return Malformed(path, where + ".name is not a string");
  std::optional<PytorchBaseline> kind = EnumFromName(kBaselineNames, entry["name"].get<std::string>());
  if (!kind) return Status::Ok();
  TaskBaseline& baseline = baselines.baselines[static_cast<size_t>(*kind)];
  if (entry.contains("time_s")) {
    const json& time = entry["time_s"];
    if (!time.is_number() || !(time.get<double>() > 0) || !std::isfinite(time.get<double>()))
      return Malformed(path, where + ".time_s is not a positive number of seconds");
    baseline.time_s = time.get<double>();
    baseline.note.clear();
  } else if (entry.contains("note") && entry["note"].is_string()) {
    baseline.note = entry["note"].get<std::string>();
  }
  if (entry.contains("peak_memory_bytes")) {
    const json& bytes = entry["peak_memory_bytes"];
    if (!bytes.is_number_integer() || bytes.get<int64_t>() < 0)
      return Malformed(path, where + ".peak_memory_bytes is not a byte count");
    baseline.peak_memory_bytes = bytes.get<int64_t>();
  }
  return Status::Ok();
}

}  // namespace

std::string_view PytorchBaselineName(PytorchBaseline baseline) {
  return EnumName(kBaselineNames, baseline);
}

std::string_view PytorchBaselineTitle(PytorchBaseline baseline) {
  return EnumName(kBaselineTitles, baseline);
}

Result<TaskBaselines> ParseTaskBaselines(std::string_view text, const std::string& path) {
  json document = json::parse(text, nullptr, false);
  if (document.is_discarded() || !document.is_object()) return Malformed(path, "not a JSON object");
  if (!document.contains("schema") || document["schema"] != "kopt.baselines")
    return Malformed(path, "\"schema\" is not \"kopt.baselines\"");
  if (!document.contains("schema_version") || document["schema_version"] != 1)
    return Malformed(path, "\"schema_version\" is not 1");
  TaskBaselines baselines;
  baselines.path = path;
  if (document.contains("gpu")) {
    if (!document["gpu"].is_string()) return Malformed(path, "\"gpu\" is not a string");
    baselines.gpu = document["gpu"].get<std::string>();
  }
  if (!document.contains("baselines") || !document["baselines"].is_array())
    return Malformed(path, "\"baselines\" is not an array");
  size_t index = 0;
  for (const json& entry : document["baselines"])
    KOPT_RETURN_IF_ERROR(ReadEntry(entry, index++, path, baselines));
  return baselines;
}

Result<std::optional<TaskBaselines>> ReadTaskBaselines(const std::string& directory) {
  std::filesystem::path path = std::filesystem::path(directory) / "baselines.json";
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return std::optional<TaskBaselines>();
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path.string(), kMaxDocumentBytes));
  KOPT_ASSIGN_OR_RETURN(TaskBaselines baselines, ParseTaskBaselines(text, path.string()));
  return std::optional<TaskBaselines>(std::move(baselines));
}

}  // namespace kopt
