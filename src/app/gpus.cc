// `kopt gpus`: renders the GPU spec table and the live GPUs (see gpus.h).
#include "app/gpus.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/terminal_text.h"
#include "hw/gpu_spec.h"
#include "report/markup_escape.h"
#include "report/renderer.h"
#include "report/report_format.h"
#include "report/text_table.h"

namespace kopt {
namespace {

using Json = nlohmann::ordered_json;

// The live section: the query's outcome.
struct LiveSection {
  std::string status;  // "ok", "unavailable", "skipped"
  std::string message;
  std::vector<GpuSpec> gpus;
};

LiveSection QueryLiveSection(const GpusOptions& options) {
  if (!options.query_live) return {"skipped", "live GPU query not requested", {}};
  if (LiveGpuQueryDisabled()) return {"skipped", "live GPU query skipped: KOPT_NO_GPU_QUERY=1", {}};
  Result<std::vector<GpuSpec>> gpus = QueryLiveGpus();
  if (!gpus.ok()) return {"unavailable", gpus.status().message(), {}};
  return {"ok", "", std::move(gpus).value()};
}

// ---- Cells shared by the terminal and Markdown tables ----

// `value / divisor` with three significant digits and no exponent; "-" when unknown (<= 0).
std::string Significant(double value, double divisor) {
  if (!(value > 0)) return "-";
  double scaled = value / divisor;
  int decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(scaled))));
  return fmt::format("{:.{}f}", scaled, decimals);
}

std::string Whole(double value, double divisor = 1) {
  if (!(value > 0)) return "-";
  return fmt::format("{:.0f}", value / divisor);
}

std::string RowLabel(const GpuSpec& gpu) {
  return gpu.device_index >= 0 ? fmt::format("{}: {}", gpu.device_index, gpu.key) : gpu.key;
}

struct Column {
  std::string header;
  std::function<std::string(const GpuSpec&)> cell;
};

// Peak rates in TFLOP/s (TOPS for INT8), dense.
std::vector<Column> RateColumns() {
  auto tera = [](double GpuSpec::*rate) {
    return [rate](const GpuSpec& gpu) { return Significant(gpu.*rate, 1e12); };
  };
  return {{"GPU", RowLabel},
          {"FP64", tera(&GpuSpec::fp64_flops)},
          {"FP64 TC", tera(&GpuSpec::fp64_tensor_flops)},
          {"FP32", tera(&GpuSpec::fp32_flops)},
          {"FP16", tera(&GpuSpec::fp16_flops)},
          {"TF32 TC", tera(&GpuSpec::tf32_tensor_flops)},
          {"FP16 TC", tera(&GpuSpec::fp16_tensor_flops)},
          {"BF16 TC", tera(&GpuSpec::bf16_tensor_flops)},
          {"FP8 TC", tera(&GpuSpec::fp8_tensor_flops)},
          {"INT8 TC", tera(&GpuSpec::int8_tensor_ops)}};
}

// DRAM, L2, power and the ridge points, units in the headers.
std::vector<Column> MemoryColumns() {
  auto ridge = [](double GpuSpec::*rate) {
    return [rate](const GpuSpec& gpu) {
      return Significant(RidgePoint(gpu.*rate, gpu.dram_bytes_per_second), 1);
    };
  };
  return {{"GPU", RowLabel},
          {"DRAM TB/s", [](const GpuSpec& gpu) { return Significant(gpu.dram_bytes_per_second, 1e12); }},
          {"DRAM GB", [](const GpuSpec& gpu) { return Significant(gpu.dram_capacity_bytes, 1e9); }},
          {"Mem MHz", [](const GpuSpec& gpu) { return Whole(gpu.memory_clock_hz, 1e6); }},
          {"Bus bits", [](const GpuSpec& gpu) { return Whole(gpu.memory_bus_width_bits); }},
          {"L2 MiB", [](const GpuSpec& gpu) { return Significant(gpu.l2_cache_bytes, 1024.0 * 1024); }},
          {"TDP W", [](const GpuSpec& gpu) { return Whole(gpu.tdp_watts); }},
          {"Ridge FP32", ridge(&GpuSpec::fp32_flops)},
          {"Ridge FP16 TC", ridge(&GpuSpec::fp16_tensor_flops)}};
}

// Compute capability, SM count, clock and per-SM resources.
std::vector<Column> SmColumns() {
  return {
      {"GPU", RowLabel},
      {"CC", [](const GpuSpec& gpu) { return gpu.compute_capability; }},
      {"SMs", [](const GpuSpec& gpu) { return Whole(gpu.sm_count); }},
      {"Boost MHz", [](const GpuSpec& gpu) { return Whole(gpu.boost_clock_hz, 1e6); }},
      {"Smem/SM KiB", [](const GpuSpec& gpu) { return Significant(gpu.shared_memory_per_sm_bytes, 1024); }},
      {"Regs/SM", [](const GpuSpec& gpu) { return Whole(gpu.registers_per_sm); }},
      {"Warps/SM", [](const GpuSpec& gpu) { return Whole(gpu.max_warps_per_sm); }}};
}

struct Table {
  const char* caption;
  std::vector<Column> (*columns)();
};

const Table kTables[] = {
    {"Peak rates in TFLOP/s (INT8: TOPS); tensor (TC) rates dense, no sparsity", RateColumns},
    {"Memory and power; ridge points in FLOP/byte (peak rate / DRAM bandwidth)", MemoryColumns},
    {"Streaming multiprocessors (SMs): compute capability, count, boost clock, resources per SM", SmColumns},
};

// ---- Terminal ----

// The GPU label left, the numbers right; every cell passed through `clean`.
TextTable CellTable(const std::vector<Column>& columns, const std::vector<GpuSpec>& gpus,
                    std::string (*clean)(std::string_view)) {
  TextTable table;
  table.rows.emplace_back();
  for (const Column& column : columns) table.rows[0].push_back(clean(column.header));
  for (const GpuSpec& gpu : gpus) {
    table.rows.emplace_back();
    for (const Column& column : columns) table.rows.back().push_back(clean(column.cell(gpu)));
  }
  table.right_aligned.assign(columns.size(), true);
  table.right_aligned[0] = false;
  return table;
}

// Names from the driver (live GPUs) are untrusted: sanitized.
void WriteAlignedTable(const std::vector<Column>& columns, const std::vector<GpuSpec>& gpus,
                       std::ostream& out) {
  for (const std::string& line : AlignedTableLines(CellTable(columns, gpus, SanitizeForTerminal), {})) {
    out << line << '\n';
  }
}

// Writes `text` wrapped at `width` columns: the first line indented by
// `first_indent` spaces, the others by `indent`.
void WriteWrapped(std::string_view text, size_t width, size_t first_indent, size_t indent,
                  std::ostream& out) {
  std::string line(first_indent, ' ');
  bool line_has_word = false;
  for (size_t start = 0; start <= text.size();) {
    size_t end = std::min(text.find(' ', start), text.size());
    std::string_view word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    if (line_has_word && line.size() + 1 + word.size() > width) {
      out << line << '\n';
      line.assign(indent, ' ');
      line_has_word = false;
    }
    if (line_has_word) line += ' ';
    line += word;
    line_has_word = true;
  }
  if (line_has_word) out << line << '\n';
}

void WriteTerminalSources(const std::vector<GpuSpec>& gpus, std::ostream& out) {
  for (const GpuSpec& gpu : gpus) {
    WriteWrapped(SanitizeForTerminal(fmt::format("{} ({}): {}", RowLabel(gpu), gpu.name, gpu.source)), 100, 0,
                 4, out);
  }
}

void WriteTerminalTables(const std::vector<GpuSpec>& gpus, std::ostream& out) {
  for (const Table& table : kTables) {
    out << table.caption << "\n";
    WriteAlignedTable(table.columns(), gpus, out);
    out << "\n";
  }
}

void WriteTerminal(const std::vector<GpuSpec>& table, const LiveSection& live, std::ostream& out) {
  out << "GPU spec table (kopt gpus)\n\n";
  WriteTerminalTables(table, out);
  out << "Sources\n";
  WriteTerminalSources(table, out);
  if (live.status == "unavailable") {
    out << "\nGPUs on this machine: none found\n";
    WriteWrapped(SanitizeForTerminal(live.message), 100, 2, 4, out);
  } else if (live.status == "ok") {
    out << "\nGPUs on this machine (values the CUDA driver reported; rates from the table)\n\n";
    WriteTerminalTables(live.gpus, out);
    out << "Sources\n";
    WriteTerminalSources(live.gpus, out);
  }
}

// ---- Markdown ----

void WriteMarkdownTable(const std::vector<Column>& columns, const std::vector<GpuSpec>& gpus,
                        std::ostream& out) {
  out << MarkdownTable(CellTable(columns, gpus, MarkdownTableCell), MarkdownRule::kCompact);
}

void WriteMarkdownSection(const std::vector<GpuSpec>& gpus, std::ostream& out) {
  for (const Table& table : kTables) {
    out << table.caption << ".\n\n";
    WriteMarkdownTable(table.columns(), gpus, out);
    out << "\n";
  }
  out << "Sources:\n\n";
  for (const GpuSpec& gpu : gpus) {
    out << "- **" << MarkdownTableCell(RowLabel(gpu)) << "** (" << MarkdownTableCell(gpu.name)
        << "): " << MarkdownTableCell(gpu.source) << '\n';
  }
}

void WriteMarkdown(const std::vector<GpuSpec>& table, const LiveSection& live, std::ostream& out) {
  out << "# GPU spec table\n\n";
  WriteMarkdownSection(table, out);
  if (live.status == "unavailable") {
    out << "\n## GPUs on this machine\n\nNone found: " << MarkdownTableCell(live.message) << "\n";
  } else if (live.status == "ok") {
    out << "\n## GPUs on this machine\n\nValues the CUDA driver reported; rates from the table.\n\n";
    WriteMarkdownSection(live.gpus, out);
  }
}

// ---- JSON ----

// {"value": v, "unit": u}, or null when unknown (<= 0).
Json KnownQuantity(double value, std::string_view unit) {
  if (!(value > 0) || !std::isfinite(value)) return Json(nullptr);
  return Json{{"value", value}, {"unit", std::string(unit)}};
}

Json PeaksJson(const GpuSpec& gpu) {
  return Json{{"fp64", KnownQuantity(gpu.fp64_flops, "FLOP/s")},
              {"tensor_fp64", KnownQuantity(gpu.fp64_tensor_flops, "FLOP/s")},
              {"fp32", KnownQuantity(gpu.fp32_flops, "FLOP/s")},
              {"fp16", KnownQuantity(gpu.fp16_flops, "FLOP/s")},
              {"tensor_tf32", KnownQuantity(gpu.tf32_tensor_flops, "FLOP/s")},
              {"tensor_fp16", KnownQuantity(gpu.fp16_tensor_flops, "FLOP/s")},
              {"tensor_bf16", KnownQuantity(gpu.bf16_tensor_flops, "FLOP/s")},
              {"tensor_fp8", KnownQuantity(gpu.fp8_tensor_flops, "FLOP/s")},
              {"tensor_int8", KnownQuantity(gpu.int8_tensor_ops, "OP/s")}};
}

Json RidgePointsJson(const GpuSpec& gpu) {
  double dram = gpu.dram_bytes_per_second;
  return Json{{"fp64", KnownQuantity(RidgePoint(gpu.fp64_flops, dram), "FLOP/byte")},
              {"fp32", KnownQuantity(RidgePoint(gpu.fp32_flops, dram), "FLOP/byte")},
              {"tensor_tf32", KnownQuantity(RidgePoint(gpu.tf32_tensor_flops, dram), "FLOP/byte")},
              {"tensor_fp16", KnownQuantity(RidgePoint(gpu.fp16_tensor_flops, dram), "FLOP/byte")},
              {"tensor_bf16", KnownQuantity(RidgePoint(gpu.bf16_tensor_flops, dram), "FLOP/byte")},
              {"tensor_fp8", KnownQuantity(RidgePoint(gpu.fp8_tensor_flops, dram), "FLOP/byte")},
              {"tensor_int8", KnownQuantity(RidgePoint(gpu.int8_tensor_ops, dram), "OP/byte")}};
}

Json GpuJson(const GpuSpec& gpu) {
  Json json{{"key", gpu.key},
            {"name", gpu.name},
            {"aliases", gpu.aliases},
            {"device_names", gpu.device_names},
            {"compute_capability", gpu.compute_capability},
            {"sm_count", KnownQuantity(gpu.sm_count, "SM")},
            {"boost_clock", KnownQuantity(gpu.boost_clock_hz, "Hz")},
            {"memory_clock", KnownQuantity(gpu.memory_clock_hz, "Hz")},
            {"memory_bus_width", KnownQuantity(gpu.memory_bus_width_bits, "bit")},
            {"peaks", PeaksJson(gpu)},
            {"dram_bandwidth", KnownQuantity(gpu.dram_bytes_per_second, "byte/s")},
            {"dram_capacity", KnownQuantity(gpu.dram_capacity_bytes, "byte")},
            {"l2_cache", KnownQuantity(gpu.l2_cache_bytes, "byte")},
            {"shared_memory_per_sm", KnownQuantity(gpu.shared_memory_per_sm_bytes, "byte")},
            {"registers_per_sm", KnownQuantity(gpu.registers_per_sm, "register")},
            {"max_warps_per_sm", KnownQuantity(gpu.max_warps_per_sm, "warp")},
            {"tdp", KnownQuantity(gpu.tdp_watts, "W")},
            {"ridge_points", RidgePointsJson(gpu)},
            {"source", gpu.source}};
  if (gpu.device_index >= 0) {
    json["device_index"] = gpu.device_index;
    json["driver_version"] = gpu.driver_version;
    json["table_key"] = gpu.table_key.empty() ? Json(nullptr) : Json(gpu.table_key);
  }
  return json;
}

void WriteJson(const std::vector<GpuSpec>& table, const LiveSection& live, std::ostream& out) {
  Json gpus = Json::array();
  for (const GpuSpec& gpu : table) gpus.push_back(GpuJson(gpu));
  Json live_json{{"status", live.status}};
  if (live.status == "ok") {
    live_json["gpus"] = Json::array();
    for (const GpuSpec& gpu : live.gpus) live_json["gpus"].push_back(GpuJson(gpu));
  } else {
    live_json["message"] = live.message;
  }
  Json document{{"schema_version", std::string(kJsonSchemaVersion)},
                {"command", "gpus"},
                {"note", "tensor rates are dense (no 2:4 sparsity); unknown values are null"},
                {"gpus", std::move(gpus)},
                {"live", std::move(live_json)}};
  out << document.dump(2) << '\n';
}

}  // namespace

Status RunGpus(const GpusOptions& options, std::ostream& out) {
  KOPT_ASSIGN_OR_RETURN(ReportFormat format, ParseReportFormat(options.format, kTableFormats));
  LiveSection live = QueryLiveSection(options);
  const std::vector<GpuSpec>& table = KnownGpus();
  switch (format) {
    case ReportFormat::kTerminal: WriteTerminal(table, live, out); break;
    case ReportFormat::kMarkdown: WriteMarkdown(table, live, out); break;
    case ReportFormat::kJson: WriteJson(table, live, out); break;
    case ReportFormat::kHtml:
    case ReportFormat::kFeedback:
      return Internal("kopt gpus writes no " + std::string(ReportFormatName(format)));
  }
  return Status::Ok();
}

}  // namespace kopt
