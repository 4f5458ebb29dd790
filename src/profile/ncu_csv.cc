#include "profile/ncu_csv.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <cmath>
#include <limits>
#include <optional>

#include "core/csv_reader.h"
#include "core/parallel_chunks.h"
#include "core/text.h"
#include "core/units.h"
#include "profile/ncu_export.h"

namespace kopt {
namespace {

constexpr std::array<std::string_view, 11> kFixedColumns = {
    "ID",     "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
    "Stream", "Block Size", "Grid Size",    "Device",    "CC"};
constexpr std::array<std::string_view, 2> kRequiredColumns = {"ID", "Kernel Name"};

bool IsAbsentMarker(std::string_view cell) {
  return cell.empty() || cell == "n/a" || cell == "N/A" || cell == "nan" || cell == "NaN" || cell == "-nan" ||
         cell == "no data" || cell == "(unavailable)";
}

// How one header column is read.
struct ColumnPlan {
  int fixed = -1;          // index into kFixedColumns, or -1 for a metric
  int metric = -1;         // index into the schema; -1 for a column left out (unknown unit)
  bool duration = false;   // base unit ns: never negative
  double unit_factor = 1;  // multiplies values into base units
};

struct Layout {
  std::vector<ColumnPlan> columns;
  std::vector<std::string> unknown_units;  // "unit (metric)" of the columns left out
  std::shared_ptr<MetricSchema> schema = std::make_shared<MetricSchema>();
};

int FixedColumnIndex(std::string_view name) {
  for (size_t i = 0; i < kFixedColumns.size(); ++i) {
    if (kFixedColumns[i] == name) return static_cast<int>(i);
  }
  return -1;
}

Result<Layout> PlanColumns(const CsvRecord& header, const CsvRecord* units, std::string_view file_name) {
  Layout layout;
  layout.columns.resize(header.fields.size());
  std::array<bool, kFixedColumns.size()> seen{};
  for (size_t i = 0; i < header.fields.size(); ++i) {
    const std::string& name = header.fields[i];
    ColumnPlan& plan = layout.columns[i];
    plan.fixed = FixedColumnIndex(name);
    if (plan.fixed >= 0) {
      seen[plan.fixed] = true;
      continue;
    }
    if (name.empty()) {
      return InvalidInput(fmt::format("{}:{}: column {} has an empty header; expected a metric name",
                                      file_name, header.line, i + 1));
    }
    std::string unit = units ? units->fields[i] : "";
    if (!IsKnownUnit(unit)) {
      layout.unknown_units.push_back(fmt::format("\"{}\" ({})", Abbreviate(unit, 20), Abbreviate(name, 80)));
      continue;
    }
    BaseQuantity base = ToBaseUnits(1.0, unit);
    plan.unit_factor = base.value;
    plan.duration = base.unit == "ns";
    plan.metric = layout.schema->Add(name, base.unit);
  }
  for (std::string_view required : kRequiredColumns) {
    if (!seen[FixedColumnIndex(required)]) {
      return InvalidInput(fmt::format(
          "{}:{}: no \"{}\" column; expected an Nsight Compute raw-page export (ncu --csv --page raw), whose "
          "header starts with \"ID\",\"Process ID\",...,\"Kernel Name\"",
          file_name, header.line, required));
    }
  }
  return layout;
}

Status ReadFixedField(int fixed, const std::string& cell, int line, std::string_view file_name,
                      KernelLaunch& launch) {
  auto integer_or_error = [&](long long& out) -> Status {
    auto value = ParseNumber(cell);
    if (!value || *value != std::floor(*value)) {
      return InvalidInput(fmt::format("{}:{}: column \"{}\" is \"{}\"; expected an integer", file_name, line,
                                      kFixedColumns[fixed], Abbreviate(cell, 40)));
    }
    out = static_cast<long long>(*value);
    return Status::Ok();
  };
  auto dimensions_or_error = [&](LaunchDimensions& out) -> Status {
    auto dimensions = ParseLaunchDimensions(cell);
    if (!dimensions) {
      return InvalidInput(fmt::format("{}:{}: column \"{}\" is \"{}\"; expected \"(x, y, z)\"", file_name,
                                      line, kFixedColumns[fixed], Abbreviate(cell, 40)));
    }
    out = *dimensions;
    return Status::Ok();
  };
  switch (fixed) {
    case 0: return integer_or_error(launch.launch_id);
    case 1: return cell.empty() ? Status::Ok() : integer_or_error(launch.process_id);
    case 2: launch.process_name = cell; return Status::Ok();
    case 3: launch.host_name = cell; return Status::Ok();
    case 4: launch.kernel_name = cell; return Status::Ok();
    case 5: return cell.empty() ? Status::Ok() : integer_or_error(launch.context_id);
    case 6: return cell.empty() ? Status::Ok() : integer_or_error(launch.stream_id);
    case 7: return cell.empty() ? Status::Ok() : dimensions_or_error(launch.block);
    case 8: return cell.empty() ? Status::Ok() : dimensions_or_error(launch.grid);
    case 9: launch.device = cell; return Status::Ok();
    case 10: launch.compute_capability = cell; return Status::Ok();
  }
  return Status::Ok();
}

Result<KernelLaunch> ReadLaunch(const CsvRecord& record, const Layout& layout, std::string_view file_name) {
  KernelLaunch launch;
  launch.schema = layout.schema;
  launch.values.assign(layout.schema->size(), std::numeric_limits<double>::quiet_NaN());
  for (size_t i = 0; i < record.fields.size(); ++i) {
    const ColumnPlan& plan = layout.columns[i];
    const std::string& cell = record.fields[i];
    if (plan.fixed >= 0) {
      KOPT_RETURN_IF_ERROR(ReadFixedField(plan.fixed, cell, record.line, file_name, launch));
      continue;
    }
    if (plan.metric < 0 || IsAbsentMarker(cell)) continue;
    if (auto value = ParseNumber(cell)) {
      if (plan.duration && *value < 0) {
        return InvalidInput(
            fmt::format("{}:{}: column \"{}\" is {}, a negative duration; expected a time of at "
                        "least 0",
                        file_name, record.line, layout.schema->Name(plan.metric), cell));
      }
      launch.values[plan.metric] = *value * plan.unit_factor;
    } else {
      launch.text_values.emplace_back(plan.metric, cell);
    }
  }
  if (launch.kernel_name.empty()) {
    return InvalidInput(
        fmt::format("{}:{}: empty \"Kernel Name\"; expected the kernel's name", file_name, record.line));
  }
  return launch;
}

// A stretch of rows that ends at a record end (a newline outside quotes).
struct Piece {
  std::string_view text;
  int first_line = 1;
};

std::vector<Piece> SplitAtRecordEnds(std::string_view text, int first_line, size_t target_bytes) {
  std::vector<Piece> pieces;
  size_t start = 0;
  int line = first_line, start_line = first_line;
  bool in_quotes = false;
  for (size_t position = 0; position < text.size(); ++position) {
    char c = text[position];
    if (c == '"') in_quotes = !in_quotes;
    if (c != '\n') continue;
    ++line;
    if (!in_quotes && position + 1 - start >= target_bytes) {
      pieces.push_back({text.substr(start, position + 1 - start), start_line});
      start = position + 1;
      start_line = line;
    }
  }
  if (start < text.size()) pieces.push_back({text.substr(start), start_line});
  return pieces;
}

bool IsUnitsRow(const CsvRecord& row, const Layout& layout) {
  for (size_t i = 0; i < row.fields.size(); ++i) {
    if (layout.columns[i].fixed >= 0 && !row.fields[i].empty()) return false;
  }
  return true;
}

// An empty file or binary data is not a raw page: InvalidInput saying what to export instead.
Status CheckRawPageText(std::string_view text, std::string_view file_name) {
  if (TrimWhitespace(text).empty()) {
    return InvalidInput(
        fmt::format("{}: the file is empty; expected an Nsight Compute raw-page CSV export "
                    "(ncu --csv --page raw --print-units base)",
                    file_name));
  }
  if (LooksBinary(text)) {
    return InvalidInput(
        fmt::format("{}: binary data, not CSV; for an .ncu-rep report pass the file with the "
                    ".ncu-rep extension, or export it: ncu --import FILE --csv --page raw "
                    "--print-units base",
                    file_name));
  }
  return Status::Ok();
}

// A record with a field per header column; InvalidInput naming its line otherwise.
Status CheckWidth(const CsvRecord& record, size_t header_width, std::string_view file_name) {
  if (record.fields.size() == header_width) return Status::Ok();
  return InvalidInput(
      fmt::format("{}:{}: {} fields, but the header has {}; expected one field per column "
                  "(file truncated or edited?)",
                  file_name, record.line, record.fields.size(), header_width));
}

// The launch rows of `rest` (starting at line `first_line`), appended to `launches` in order: in
// pieces parsed on all cores (a 100,000-launch export is half a gigabyte of text).
Status ReadLaunchRows(std::string_view rest, int first_line, const Layout& layout, size_t header_width,
                      std::string_view file_name, std::vector<KernelLaunch>& launches) {
  std::vector<Piece> pieces = SplitAtRecordEnds(rest, first_line, size_t{4} << 20);
  std::vector<std::vector<KernelLaunch>> parsed(pieces.size());
  std::vector<Status> statuses(pieces.size());
  ForEachChunk(pieces.size(), [&](size_t index) {
    statuses[index] = [&]() -> Status {
      CsvReader piece_reader(pieces[index].text, file_name, pieces[index].first_line);
      CsvRecord record;
      while (true) {
        KOPT_ASSIGN_OR_RETURN(bool more, piece_reader.Next(record));
        if (!more) return Status::Ok();
        if (record.IsBlank()) continue;
        KOPT_RETURN_IF_ERROR(CheckWidth(record, header_width, file_name));
        KOPT_ASSIGN_OR_RETURN(KernelLaunch launch, ReadLaunch(record, layout, file_name));
        parsed[index].push_back(std::move(launch));
      }
    }();
  });
  for (size_t index = 0; index < pieces.size(); ++index) {
    KOPT_RETURN_IF_ERROR(statuses[index]);
    for (KernelLaunch& launch : parsed[index]) launches.push_back(std::move(launch));
    std::vector<KernelLaunch>().swap(parsed[index]);
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<KernelLaunch>> ParseNcuRawCsv(std::string_view text, std::string_view file_name,
                                                 std::vector<std::string>* notes) {
  KOPT_RETURN_IF_ERROR(CheckRawPageText(text, file_name));
  std::string storage;  // the text with a program's stdout lines blanked, when it has any
  std::string_view reader_text = BlankUnquotedLines(text, storage).text;
  CsvReader reader(reader_text, file_name);
  CsvRecord header;
  do {
    KOPT_ASSIGN_OR_RETURN(bool has_header, reader.Next(header));
    if (!has_header) return InvalidInput(fmt::format("{}: no CSV header found", file_name));
  } while (header.IsBlank());
  if (ExportKind kind = RecognizeExport(text); kind != ExportKind::kRawPage && kind != ExportKind::kUnknown) {
    return InvalidInput(fmt::format("{}: this is {}; expected an Nsight Compute raw-page export ({})",
                                    file_name, ExportKindDescription(kind), kRawPageCommand));
  }

  // Read the second record before planning: it may be the units row.
  CsvRecord second;
  bool has_second = false;
  do {
    KOPT_ASSIGN_OR_RETURN(has_second, reader.Next(second));
  } while (has_second && second.IsBlank());
  const size_t header_width = header.fields.size();
  if (has_second) KOPT_RETURN_IF_ERROR(CheckWidth(second, header_width, file_name));

  KOPT_ASSIGN_OR_RETURN(Layout layout, PlanColumns(header, nullptr, file_name));
  bool second_is_units = has_second && IsUnitsRow(second, layout);
  if (second_is_units) {
    KOPT_ASSIGN_OR_RETURN(layout, PlanColumns(header, &second, file_name));
  }

  if (notes && !layout.unknown_units.empty()) {
    notes->push_back(fmt::format("{}: {} column(s) with a unit kopt does not know are left out: {}",
                                 file_name, layout.unknown_units.size(),
                                 Abbreviate(fmt::format("{}", fmt::join(layout.unknown_units, ", ")), 300)));
  }
  std::vector<KernelLaunch> launches;
  if (has_second && !second_is_units) {
    KOPT_ASSIGN_OR_RETURN(KernelLaunch launch, ReadLaunch(second, layout, file_name));
    launches.push_back(std::move(launch));
  }
  KOPT_RETURN_IF_ERROR(ReadLaunchRows(reader_text.substr(reader.position()), reader.line(), layout,
                                      header_width, file_name, launches));
  if (launches.empty()) {
    return InvalidInput(
        fmt::format("{}: the export lists no kernel launch (header{} only); expected one row per "
                    "profiled launch",
                    file_name, second_is_units ? " and units row" : ""));
  }
  return launches;
}

}  // namespace kopt
