// Parser of ncu's source page CSV with SASS. See ncu_source_page.h.
#include "profile/ncu_source_page.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <optional>

#include "core/csv_reader.h"
#include "core/text.h"
#include "profile/kernel_launch.h"

namespace kopt {
namespace {

constexpr std::string_view kKernelNameLabel = "Kernel Name";
constexpr std::string_view kAddressHeader = "Address";
constexpr std::string_view kSourceHeader = "Source";
constexpr std::string_view kStallPrefix = "stall_";
constexpr std::string_view kNotIssuedSuffix = " (Not Issued)";
constexpr std::string_view kExportCommand = "ncu --import r.ncu-rep --csv --page source --print-source sass";

// A numeric column the parser keeps, and the row field it fills.
struct NumericColumn {
  std::string_view header;
  std::optional<double> SourcePageRow::*member;
};

constexpr std::array<NumericColumn, 10> kNumericColumns = {{
    {"Warp Stall Sampling (All Samples)", &SourcePageRow::stall_samples},
    {"Warp Stall Sampling (Not-issued Samples)", &SourcePageRow::stall_samples_not_issued},
    {"Instructions Executed", &SourcePageRow::instructions_executed},
    {"Thread Instructions Executed", &SourcePageRow::thread_instructions_executed},
    {"L2 Theoretical Sectors Global", &SourcePageRow::l2_sectors_global},
    {"L2 Theoretical Sectors Global Ideal", &SourcePageRow::l2_sectors_global_ideal},
    {"L2 Theoretical Sectors Global Excessive", &SourcePageRow::l2_sectors_global_excessive},
    {"L1 Wavefronts Shared", &SourcePageRow::l1_wavefronts_shared},
    {"L1 Wavefronts Shared Ideal", &SourcePageRow::l1_wavefronts_shared_ideal},
    {"L1 Wavefronts Shared Excessive", &SourcePageRow::l1_wavefronts_shared_excessive},
}};

enum class ColumnKind { kIgnored, kAddress, kSource, kNumeric, kStallReason };

// How one header column is read.
struct ColumnPlan {
  ColumnKind kind = ColumnKind::kIgnored;
  std::optional<double> SourcePageRow::*member = nullptr;  // kNumeric
  std::string stall_reason;                                // kStallReason: "long_sb"
};

// The columns of one kernel's table, planned from its header row.
struct PageLayout {
  std::vector<std::string> names;
  std::vector<ColumnPlan> columns;
};

// A cell ncu prints for "no value": the metric is absent, not zero.
bool IsAbsentMarker(std::string_view cell) {
  return cell.empty() || cell == "-" || cell == "n/a" || cell == "N/A" || cell == "nan" || cell == "NaN" ||
         cell == "-nan" || cell == "no data" || cell == "(unavailable)";
}

// `"Kernel Name","<name>",`: the label, the name, and at most empty fields after it.
bool IsKernelNameRecord(const CsvRecord& record) {
  if (record.fields.size() < 2 || TrimWhitespace(record.fields[0]) != kKernelNameLabel) return false;
  for (size_t index = 2; index < record.fields.size(); ++index) {
    if (!TrimWhitespace(record.fields[index]).empty()) return false;
  }
  return true;
}

ColumnPlan PlanColumn(std::string_view name, bool& has_address, bool& has_source) {
  ColumnPlan plan;
  if (name == kAddressHeader && !has_address) {
    has_address = true;
    plan.kind = ColumnKind::kAddress;
  } else if (name == kSourceHeader && !has_source) {
    has_source = true;
    plan.kind = ColumnKind::kSource;
  } else if (StartsWith(name, kStallPrefix) && name.size() > kStallPrefix.size() &&
             !EndsWith(name, kNotIssuedSuffix)) {
    plan.kind = ColumnKind::kStallReason;
    plan.stall_reason = std::string(name.substr(kStallPrefix.size()));
  } else {
    for (const NumericColumn& column : kNumericColumns) {
      if (column.header != name) continue;
      plan.kind = ColumnKind::kNumeric;
      plan.member = column.member;
      break;
    }
  }
  return plan;
}

Result<PageLayout> PlanColumns(const CsvRecord& header, std::string_view file_name) {
  PageLayout layout;
  bool has_address = false;
  bool has_source = false;
  std::vector<std::string> fields = header.fields;
  if (fields.size() > 1 && TrimWhitespace(fields.back()).empty()) fields.pop_back();  // a trailing comma
  for (const std::string& field : fields) {
    std::string_view name = TrimWhitespace(field);
    layout.names.emplace_back(name);
    layout.columns.push_back(PlanColumn(name, has_address, has_source));
  }
  if (has_address && has_source) return layout;
  return InvalidInput(fmt::format(
      "{}:{}: no \"{}\" column; expected the header of an Nsight Compute source page ({}), which starts "
      "with \"Address\",\"Source\"",
      file_name, header.line, has_address ? kSourceHeader : kAddressHeader, kExportCommand));
}

// "0x7ff8437a0c00" → its value; nullopt for anything else.
std::optional<unsigned long long> ParseHexAddress(std::string_view text) {
  text = TrimWhitespace(text);
  if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return std::nullopt;
  text.remove_prefix(2);
  unsigned long long value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Where a bad cell is: "file:line: column N ("Name") is "cell"".
std::string CellLocation(std::string_view file_name, const CsvRecord& record, const PageLayout& layout,
                         size_t column) {
  return fmt::format("{}:{}: column {} (\"{}\") is \"{}\"", file_name, record.line, column + 1,
                     Abbreviate(layout.names[column], 50), Abbreviate(record.fields[column], 40));
}

// Fills `row` from one numeric or stall cell; absent markers leave it empty.
Status ReadNumericCell(const CsvRecord& record, const PageLayout& layout, size_t column,
                       std::string_view file_name, SourcePageRow& row) {
  std::string_view cell = TrimWhitespace(record.fields[column]);
  if (IsAbsentMarker(cell)) return Status::Ok();
  std::optional<double> value = ParseNumber(cell);
  if (!value) {
    return InvalidInput(CellLocation(file_name, record, layout, column) + "; expected a number");
  }
  const ColumnPlan& plan = layout.columns[column];
  if (plan.kind == ColumnKind::kNumeric) {
    row.*plan.member = *value;
  } else {
    row.stall_reason_samples[plan.stall_reason] = *value;
  }
  return Status::Ok();
}

Status CheckRowWidth(const CsvRecord& record, const PageLayout& layout, std::string_view file_name) {
  size_t width = layout.columns.size();
  size_t fields = record.fields.size();
  bool trailing_empty = fields == width + 1 && TrimWhitespace(record.fields.back()).empty();
  if (fields == width || trailing_empty) return Status::Ok();
  return InvalidInput(
      fmt::format("{}:{}: {} fields, but the header has {}; expected one field per column "
                  "(file truncated or edited?)",
                  file_name, record.line, fields, width));
}

Result<SourcePageRow> ReadRow(const CsvRecord& record, const PageLayout& layout, std::string_view file_name) {
  KOPT_RETURN_IF_ERROR(CheckRowWidth(record, layout, file_name));
  SourcePageRow row;
  for (size_t column = 0; column < layout.columns.size(); ++column) {
    const ColumnPlan& plan = layout.columns[column];
    switch (plan.kind) {
      case ColumnKind::kIgnored: break;
      case ColumnKind::kAddress: {
        std::optional<unsigned long long> address = ParseHexAddress(record.fields[column]);
        if (!address) {
          return InvalidInput(CellLocation(file_name, record, layout, column) +
                              "; expected a hexadecimal address such as 0x7ff8437a0c00");
        }
        row.address = *address;
        break;
      }
      case ColumnKind::kSource: row.source = std::string(TrimWhitespace(record.fields[column])); break;
      case ColumnKind::kNumeric:
      case ColumnKind::kStallReason:
        KOPT_RETURN_IF_ERROR(ReadNumericCell(record, layout, column, file_name, row));
        break;
    }
  }
  return row;
}

// Appends `row` to `page`, its offset counted from the page's first address.
Status AddRow(SourcePageRow row, int line, std::string_view file_name, SourcePage& page) {
  unsigned long long first_address = page.rows.empty() ? row.address : page.rows.front().address;
  if (row.address < first_address) {
    return InvalidInput(
        fmt::format("{}:{}: address {:#x} lies below the kernel's first address {:#x}; "
                    "expected the instructions of one kernel in address order",
                    file_name, line, row.address, first_address));
  }
  row.offset = row.address - first_address;
  page.rows.push_back(std::move(row));
  return Status::Ok();
}

// Reads records into pages: a "Kernel Name" line starts a page, the next
// record is its header, and every record after that is an instruction.
class PageBuilder {
 public:
  explicit PageBuilder(std::string_view file_name) : file_name_(file_name) {}

  Status Add(const CsvRecord& record) {
    if (IsKernelNameRecord(record)) return StartPage(record);
    if (pages_.empty()) {
      return InvalidInput(
          fmt::format("{}:{}: expected a \"Kernel Name\",\"<name>\" line before the table; "
                      "is this an Nsight Compute source page ({})?",
                      file_name_, record.line, kExportCommand));
    }
    if (!layout_) {
      KOPT_ASSIGN_OR_RETURN(layout_, PlanColumns(record, file_name_));
      return Status::Ok();
    }
    KOPT_ASSIGN_OR_RETURN(SourcePageRow row, ReadRow(record, *layout_, file_name_));
    return AddRow(std::move(row), record.line, file_name_, pages_.back());
  }

  Result<std::vector<SourcePage>> Finish() {
    KOPT_RETURN_IF_ERROR(CheckPageHasHeader());
    if (pages_.empty()) {
      return InvalidInput(
          fmt::format("{}: no \"Kernel Name\" line; expected an Nsight Compute source page ({})", file_name_,
                      kExportCommand));
    }
    return std::move(pages_);
  }

 private:
  Status StartPage(const CsvRecord& record) {
    KOPT_RETURN_IF_ERROR(CheckPageHasHeader());
    std::string_view name = TrimWhitespace(record.fields[1]);
    if (name.empty()) {
      return InvalidInput(fmt::format("{}:{}: empty kernel name; expected \"Kernel Name\",\"<name>\"",
                                      file_name_, record.line));
    }
    pages_.push_back(SourcePage{std::string(name), {}});
    page_line_ = record.line;
    layout_.reset();
    return Status::Ok();
  }

  // A page whose "Kernel Name" line is not followed by a header: truncated.
  Status CheckPageHasHeader() const {
    if (pages_.empty() || layout_) return Status::Ok();
    return InvalidInput(
        fmt::format("{}:{}: kernel \"{}\" has no header row after its name (file truncated?); "
                    "expected \"Address\",\"Source\",...",
                    file_name_, page_line_, Abbreviate(pages_.back().kernel_name, 60)));
  }

  std::string_view file_name_;
  std::vector<SourcePage> pages_;
  std::optional<PageLayout> layout_;
  int page_line_ = 0;
};

}  // namespace

double SourcePage::TotalStallSamples() const {
  double total = 0;
  for (const SourcePageRow& row : rows) total += row.stall_samples.value_or(0);
  return total;
}

Result<std::vector<SourcePage>> ParseNcuSourcePage(std::string_view text, std::string_view file_name) {
  if (TrimWhitespace(text).empty()) {
    return InvalidInput(fmt::format("{}: the file is empty; expected an Nsight Compute source page ({})",
                                    file_name, kExportCommand));
  }
  if (LooksBinary(text)) {
    return InvalidInput(fmt::format("{}: binary data, not CSV; expected an Nsight Compute source page ({})",
                                    file_name, kExportCommand));
  }
  int skipped_lines = 0;
  size_t skipped = SkipProfilerLogLines(text, skipped_lines);
  CsvReader reader(text.substr(skipped), file_name, skipped_lines + 1);
  PageBuilder builder(file_name);
  CsvRecord record;
  while (true) {
    KOPT_ASSIGN_OR_RETURN(bool more, reader.Next(record));
    if (!more) break;
    if (record.IsBlank()) continue;
    KOPT_RETURN_IF_ERROR(builder.Add(record));
  }
  return builder.Finish();
}

const SourcePage* FindSourcePage(const std::vector<SourcePage>& pages, std::string_view function_name) {
  for (const SourcePage& page : pages) {
    if (FunctionNameOf(page.kernel_name) == function_name) return &page;
  }
  return nullptr;
}

}  // namespace kopt
