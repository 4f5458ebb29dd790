#include "hw/ceilings_table.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/file_io.h"
#include "core/text.h"

namespace kopt {
namespace {

// The fastest measured duration per work size among the points `keep` accepts.
std::map<double, const CeilingPoint*> FastestBySize(const CeilingsTable& table,
                                                    bool (*keep)(const CeilingPoint&)) {
  std::map<double, const CeilingPoint*> fastest;
  for (const CeilingPoint& point : table.points) {
    if (!keep(point) || point.work <= 0 || point.median_ns <= 0) continue;
    auto [it, inserted] = fastest.emplace(point.work, &point);
    if (!inserted && point.median_ns < it->second->median_ns) it->second = &point;
  }
  return fastest;
}

std::string Describe(const CeilingPoint& point) {
  std::string text =
      point.blocks_per_sm > 0 ? fmt::format("{} {} blocks/SM", point.op, point.blocks_per_sm) : point.op;
  return text + (point.timing == "ncu" ? " (ncu-timed)" : "");
}

std::optional<AchievableCeiling> Interpolate(const std::map<double, const CeilingPoint*>& curve, double work,
                                             std::string_view what, bool below_smallest) {
  if (curve.empty() || work <= 0) return std::nullopt;
  AchievableCeiling ceiling;
  ceiling.work = work;
  auto upper = curve.lower_bound(work);
  if (upper == curve.begin() && upper->first > work && !below_smallest) return std::nullopt;
  if (upper == curve.begin()) {  // at or below the smallest size: its duration (latency-bound)
    const CeilingPoint& point = *upper->second;
    ceiling.duration_ns = point.median_ns;
    ceiling.basis = fmt::format("{}: {} at {:.0f} {} (the smallest size measured)", what, Describe(point),
                                point.work, point.unit);
  } else if (upper == curve.end()) {  // above the largest: its rate
    const CeilingPoint& point = *std::prev(upper)->second;
    ceiling.duration_ns = point.median_ns * work / point.work;
    ceiling.basis = fmt::format("{}: {} at {:.0f} {} (the largest size measured), scaled", what,
                                Describe(point), point.work, point.unit);
  } else {
    const CeilingPoint& high = *upper->second;
    const CeilingPoint& low = *std::prev(upper)->second;
    double t = (std::log(work) - std::log(low.work)) / (std::log(high.work) - std::log(low.work));
    ceiling.duration_ns = low.median_ns + t * (high.median_ns - low.median_ns);
    ceiling.basis = fmt::format("{}: between {} at {:.0f} and {} at {:.0f} {}", what, Describe(low), low.work,
                                Describe(high), high.work, high.unit);
  }
  ceiling.per_second = ceiling.duration_ns > 0 ? work / (ceiling.duration_ns * 1e-9) : 0;
  return ceiling;
}

bool IsColdDram(const CeilingPoint& point) {
  return point.cold && (point.op == "copy" || point.op == "read") && point.unit == "byte";
}
bool IsFma(const CeilingPoint& point) {
  return point.op == "fma" && point.unit == "flop";
}

std::string Quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (static_cast<unsigned char>(c) >= 0x20) out.push_back(c);
  }
  return out + "\"";
}

Status PointError(std::string_view file, size_t index, std::string_view field, std::string_view expected) {
  return InvalidInput(fmt::format("{}: point {}: field \"{}\" must be {}", file, index + 1, field, expected));
}

Result<CeilingPoint> ReadPoint(const toml::table& row, std::string_view file, size_t index) {
  CeilingPoint point;
  auto text = [&](const char* key, std::string& out,
                  std::initializer_list<std::string_view> allowed) -> Status {
    auto value = row[key].value<std::string>();
    if (!value || std::find(allowed.begin(), allowed.end(), *value) == allowed.end()) {
      std::string list;
      for (std::string_view a : allowed) list += (list.empty() ? "" : " | ") + std::string(a);
      return PointError(file, index, key, list);
    }
    out = *value;
    return Status::Ok();
  };
  auto number = [&](const char* key, double& out, bool positive) -> Status {
    auto value = row[key].value<double>();
    if (!value || !std::isfinite(*value) || *value < 0 || (positive && *value <= 0))
      return PointError(file, index, key, positive ? "a positive number" : "a number >= 0");
    out = *value;
    return Status::Ok();
  };
  std::string l2 = "cold";
  double blocks = 0, threads = 0;
  for (Status status :
       {text("op", point.op, {"copy", "read", "fma", "memcpy"}), text("unit", point.unit, {"byte", "flop"}),
        text("l2", l2, {"cold", "hot"}), text("timing", point.timing, {"events", "ncu"}),
        number("work", point.work, true), number("median_ns", point.median_ns, true),
        number("min_ns", point.min_ns, false), number("blocks_per_sm", blocks, false),
        number("threads_per_block", threads, false)}) {
    if (!status.ok()) return status;
  }
  point.cold = l2 == "cold";
  point.blocks_per_sm = static_cast<int>(blocks);
  point.threads_per_block = static_cast<int>(threads);
  return point;
}

}  // namespace

std::optional<AchievableCeiling> AchievableDram(const CeilingsTable& table, double bytes) {
  return Interpolate(FastestBySize(table, IsColdDram), bytes, "cold copy/read kernels", true);
}

std::optional<AchievableCeiling> AchievableFp32(const CeilingsTable& table, double flop) {
  // Not below the smallest FLOP count: there the FFMA chains are latency-bound by their own dependent
  // iterations, which says nothing about another kernel's few FLOPs.
  return Interpolate(FastestBySize(table, IsFma), flop, "FFMA chains, event-timed", false);
}

std::string FormatCeilingsTable(const CeilingsTable& table) {
  std::string out =
      "# Measured ceilings of one GPU, written by `kopt calibrate` (format: docs/calibrate.md).\n"
      "# work: bytes moved (read + written) or FLOP; durations in ns; l2 cold = flushed before each "
      "launch.\n";
  out += fmt::format("format = \"kopt.ceilings\"\nversion = {}\ngpu = {}\nsm_count = {}\n",
                     CeilingsTable::kVersion, Quoted(table.gpu_name), table.sm_count);
  out += fmt::format("compute_capability = {}\nmeasured_at = {}\ntool = {}\n",
                     Quoted(table.compute_capability), Quoted(table.measured_at), Quoted(table.tool));
  for (const CeilingPoint& p : table.points) {
    out += fmt::format(
        "\n[[point]]\nop = {}\nwork = {:.0f}.0\nunit = {}\nblocks_per_sm = {}\nthreads_per_block = {}\nl2 = "
        "{}\n"
        "median_ns = {:.1f}\nmin_ns = {:.1f}\ntiming = {}\n",
        Quoted(p.op), p.work, Quoted(p.unit), p.blocks_per_sm, p.threads_per_block,
        p.cold ? "\"cold\"" : "\"hot\"", p.median_ns, p.min_ns, Quoted(p.timing));
  }
  return out;
}

Result<CeilingsTable> ParseCeilingsTable(std::string_view text, std::string_view file_name) {
  toml::table root;
  try {
    root = toml::parse(text, std::string(file_name));
  } catch (const toml::parse_error& error) {
    return InvalidInput(
        fmt::format("{}: line {}: {}", file_name, error.source().begin.line, error.description()));
  }
  if (root["format"].value<std::string>() != "kopt.ceilings")
    return InvalidInput(
        fmt::format("{}: not a kopt ceilings table (expected format = \"kopt.ceilings\")", file_name));
  if (root["version"].value<int64_t>() != CeilingsTable::kVersion)
    return InvalidInput(fmt::format("{}: field \"version\" must be {}", file_name, CeilingsTable::kVersion));
  CeilingsTable table;
  auto gpu = root["gpu"].value<std::string>();
  if (!gpu || gpu->empty())
    return InvalidInput(fmt::format("{}: field \"gpu\" must name the device (\"NVIDIA H200\")", file_name));
  table.gpu_name = *gpu;
  table.sm_count = static_cast<int>(root["sm_count"].value_or<int64_t>(0));
  table.compute_capability = root["compute_capability"].value_or(std::string());
  table.measured_at = root["measured_at"].value_or(std::string());
  table.tool = root["tool"].value_or(std::string());
  if (const toml::array* points = root["point"].as_array()) {
    for (size_t i = 0; i < points->size(); ++i) {
      const toml::table* row = (*points)[i].as_table();
      if (!row) return InvalidInput(fmt::format("{}: point {}: must be a table", file_name, i + 1));
      auto point = ReadPoint(*row, file_name, i);
      if (!point.ok()) return point.status();
      table.points.push_back(*point);
    }
  }
  if (table.points.empty())
    return InvalidInput(fmt::format("{}: no [[point]] measurements (run kopt calibrate)", file_name));
  return table;
}

std::string DefaultCeilingsDirectory() {
  if (const char* dir = std::getenv("KOPT_CEILINGS_DIR"); dir && *dir) return dir;
  if (const char* data = std::getenv("XDG_DATA_HOME"); data && *data)
    return std::string(data) + "/kopt/ceilings";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.local/share/kopt/ceilings";
  return "";
}

std::string CeilingsFileName(std::string_view gpu_name) {
  std::string name;
  for (char c : ToLowerAscii(gpu_name)) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      name.push_back(c);
    else if (!name.empty() && name.back() != '-')
      name.push_back('-');
  }
  while (!name.empty() && name.back() == '-') name.pop_back();
  return (name.empty() ? "gpu" : name) + ".toml";
}

Result<CeilingsTable> FindCeilingsTable(const std::string& path, std::string_view gpu_name,
                                        std::vector<std::string>& notes) {
  namespace fs = std::filesystem;
  std::error_code error;
  auto read = [](const fs::path& file) -> Result<CeilingsTable> {
    auto text = ReadWholeFile(file.string());
    if (!text.ok()) return text.status();
    auto table = ParseCeilingsTable(*text, file.string());
    if (table.ok()) table->path = file.string();
    return table;
  };
  if (fs::is_regular_file(path, error)) {
    auto table = read(path);
    if (!table.ok()) return table.status();
    if (ToLowerAscii(table->gpu_name) != ToLowerAscii(gpu_name))
      return NotFound(fmt::format("{}: the table is for \"{}\", the profile's GPU is \"{}\"", path,
                                  table->gpu_name, gpu_name));
    return table;
  }
  if (!fs::is_directory(path, error)) return NotFound(fmt::format("no ceilings table at {}", path));
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(path, error)) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    auto table = read(file);
    if (!table.ok()) {
      notes.push_back("ceilings table skipped: " + table.status().message());
      continue;
    }
    if (ToLowerAscii(table->gpu_name) == ToLowerAscii(gpu_name)) return table;
  }
  return NotFound(fmt::format("no ceilings table for \"{}\" in {}", gpu_name, path));
}

}  // namespace kopt
