// ptxas resource report parser. Lines seen with CUDA 13.0 (sm_80, sm_90,
// sm_90a; tests/fixtures/ptxas/README.md):
//
//   ptxas info    : 256 bytes gmem[, 64 bytes cmem[3]]
//   ptxas info    : Compiling entry function '_Z1kPf' for 'sm_90a'
//   ptxas info    : Function properties for _Z1kPf
//       112 bytes stack frame, 120 bytes spill stores, 160 bytes spill loads
//   ptxas info    : Used 24 registers, used 1 barriers, 112 bytes cumulative stack size, 4096 bytes smem
//                   [, 360 bytes cmem[0]]   (cmem[0] printed for sm_80, not for sm_90)
//   ptxas info    : Function properties for _Z6helperPKfi      (a non-inlined device function:
//       0 bytes stack frame, ...                               no "Compiling" or "Used" line)
//   ptxas warning : Registers are spilled to local memory in function '_Z1kPf', 120 bytes spill
//                   stores, 160 bytes spill loads             (-warn-spills; printed before the
//                                                              info lines of the same ptxas run)
// Older toolkits print "8+0 bytes lmem" and "4+16 bytes smem": the parts are summed.
//
// Attribution: a "Used" line belongs to the last "Compiling entry function";
// an indented properties line to the last "Function properties for". A spill
// warning fills the spill fields of its function until the function's own
// properties line, which wins.
#include "profile/ptxas_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/text.h"
#include "profile/kernel_launch.h"

namespace kopt {

namespace {

constexpr size_t kMaxDemangledLength = 16384;
constexpr long long kMaxFieldValue = 1LL << 50;

// The text between the first pair of single quotes after `from`, or nullopt.
std::optional<std::string_view> QuotedAfter(std::string_view text, size_t from = 0) {
  size_t open = text.find('\'', from);
  if (open == std::string_view::npos) return std::nullopt;
  size_t close = text.find('\'', open + 1);
  if (close == std::string_view::npos) return std::nullopt;
  return text.substr(open + 1, close - open - 1);
}

// "640" or "8+0": a non-negative sum; nullopt on junk or overflow.
std::optional<long long> ParseSum(std::string_view text) {
  long long total = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t plus = text.find('+', start);
    if (plus == std::string_view::npos) plus = text.size();
    std::optional<long long> part = ParseInteger(text.substr(start, plus - start));
    if (!part || *part < 0 || *part > kMaxFieldValue) return std::nullopt;
    total += *part;
    if (total > kMaxFieldValue) return std::nullopt;
    start = plus + 1;
  }
  return total;
}

// One comma-separated field: "Used 24 registers", "used 1 barriers",
// "4096 bytes smem", "640 bytes stack frame". `unit` is the text after the number.
struct Field {
  long long value = 0;
  std::string_view unit;
};

enum class FieldParse { kOk, kNotAField, kBadNumber };

FieldParse ParseField(std::string_view text, Field& field) {
  text = TrimWhitespace(text);
  if (StartsWith(text, "Used ") || StartsWith(text, "used ")) text = TrimWhitespace(text.substr(5));
  size_t space = text.find(' ');
  if (space == std::string_view::npos || space == 0) return FieldParse::kNotAField;
  std::string_view number = text.substr(0, space);
  if (!std::isdigit(static_cast<unsigned char>(number.front()))) return FieldParse::kNotAField;
  std::optional<long long> value = ParseSum(number);
  if (!value) return FieldParse::kBadNumber;
  field.value = *value;
  field.unit = TrimWhitespace(text.substr(space));
  return FieldParse::kOk;
}

// Applies one field to `function`; false when the unit is not one we know.
bool ApplyField(const Field& field, PtxasFunctionReport& function) {
  std::string_view unit = field.unit;
  if (unit == "registers") {
    function.registers = static_cast<int>(std::min<long long>(field.value, INT_MAX));
  } else if (unit == "barriers") {
    function.barriers = static_cast<int>(std::min<long long>(field.value, INT_MAX));
  } else if (unit == "bytes smem") {
    function.shared_memory_bytes = field.value;
  } else if (unit == "bytes cmem[0]") {
    function.constant_memory_bytes = field.value;
  } else if (unit == "bytes stack frame") {
    function.stack_frame_bytes = field.value;
  } else if (unit == "bytes cumulative stack size") {
    function.cumulative_stack_bytes = field.value;
  } else if (unit == "bytes spill stores") {
    function.spill_store_bytes = field.value;
  } else if (unit == "bytes spill loads") {
    function.spill_load_bytes = field.value;
  } else if (unit == "bytes lmem") {
    function.stack_frame_bytes = std::max(function.stack_frame_bytes, field.value);
  } else {
    return false;
  }
  return true;
}

struct SpillSizes {
  long long store_bytes = 0;
  long long load_bytes = 0;
};

class PtxasReportParser {
 public:
  explicit PtxasReportParser(std::string_view file_name) : file_name_(file_name) {}

  Status ParseLine(std::string_view raw_line, size_t line_number);
  Result<PtxasReport> Finish();

 private:
  Status ParseInfo(std::string_view message, size_t line_number);
  Status ParseWarning(std::string_view line, size_t line_number);
  Status ApplyFieldsTo(std::string_view list, PtxasFunctionReport& function, size_t line_number);
  Status StartEntryFunction(std::string_view message, size_t line_number);
  void StartProperties(std::string_view message);
  size_t AddFunction(std::string_view mangled_name);
  void TakePendingSpills(PtxasFunctionReport& function);

  std::string_view file_name_;
  PtxasReport report_;
  bool saw_info_ = false;
  std::string architecture_;
  std::optional<size_t> entry_function_;                        // target of "Used ..." lines
  std::optional<size_t> properties_function_;                   // target of the indented properties line
  std::unordered_map<std::string, SpillSizes> pending_spills_;  // mangled name → sizes from a warning
};

Status PtxasReportParser::ParseLine(std::string_view raw_line, size_t line_number) {
  if (!raw_line.empty() && raw_line.back() == '\r') raw_line.remove_suffix(1);
  std::string_view line = TrimWhitespace(raw_line);
  if (StartsWith(line, "ptxas")) {
    size_t colon = line.find(':');
    std::string_view kind = TrimWhitespace(line.substr(5, colon == std::string_view::npos ? 0 : colon - 5));
    if (kind == "info" && colon != std::string_view::npos) {
      saw_info_ = true;
      return ParseInfo(TrimWhitespace(line.substr(colon + 1)), line_number);
    }
    if (EndsWith(kind, "warning") || line.find("warning :") != std::string_view::npos) {
      return ParseWarning(line, line_number);
    }
    return Status::Ok();  // errors and other tools' lines
  }
  // The indented line after "Function properties for X".
  if (properties_function_ && line.find("bytes stack frame") != std::string_view::npos) {
    Status status = ApplyFieldsTo(line, report_.functions[*properties_function_], line_number);
    properties_function_.reset();
    return status;
  }
  return Status::Ok();
}

Status PtxasReportParser::ParseInfo(std::string_view message, size_t line_number) {
  if (StartsWith(message, "Compiling entry function")) return StartEntryFunction(message, line_number);
  if (StartsWith(message, "Function properties for")) {
    StartProperties(message.substr(23));
    return Status::Ok();
  }
  if (StartsWith(message, "Used ")) {
    if (!entry_function_) return Status::Ok();  // a "Used" line without its function: nothing to attach to
    return ApplyFieldsTo(message, report_.functions[*entry_function_], line_number);
  }
  if (message.find("bytes gmem") != std::string_view::npos) {
    std::string_view first = message.substr(0, message.find(','));
    Field field;
    FieldParse parsed = ParseField(first, field);
    if (parsed == FieldParse::kBadNumber) {
      return InvalidInput(fmt::format("{}:{}: cannot read the number in \"{}\"; expected \"N bytes gmem\"",
                                      file_name_, line_number, Abbreviate(first, 60)));
    }
    if (parsed == FieldParse::kOk && field.unit == "bytes gmem") {
      report_.global_memory_bytes = std::max(report_.global_memory_bytes, field.value);
    }
  }
  return Status::Ok();  // "Compile time = ...", "Overriding ...", and anything newer
}

Status PtxasReportParser::StartEntryFunction(std::string_view message, size_t line_number) {
  std::optional<std::string_view> name = QuotedAfter(message);
  if (!name || name->empty()) {
    return InvalidInput(fmt::format("{}:{}: \"{}\"; expected Compiling entry function '<name>' for 'sm_XX'",
                                    file_name_, line_number, Abbreviate(message, 80)));
  }
  size_t for_position = message.find("' for ");
  if (for_position != std::string_view::npos) {
    if (std::optional<std::string_view> architecture = QuotedAfter(message, for_position + 1)) {
      architecture_ = std::string(architecture->substr(0, 16));
    }
  }
  entry_function_ = AddFunction(*name);
  TakePendingSpills(report_.functions[*entry_function_]);
  properties_function_.reset();
  return Status::Ok();
}

void PtxasReportParser::StartProperties(std::string_view message) {
  std::string_view name = TrimWhitespace(message);
  if (EndsWith(name, ":")) name.remove_suffix(1);
  if (name.size() >= 2 && name.front() == '\'' && name.back() == '\'') name = name.substr(1, name.size() - 2);
  if (name.empty()) return;
  if (entry_function_ && report_.functions[*entry_function_].mangled_name == name) {
    properties_function_ = entry_function_;
    return;
  }
  // A non-inlined device function: it has properties but no "Used" line.
  properties_function_ = AddFunction(name);
  entry_function_.reset();
}

size_t PtxasReportParser::AddFunction(std::string_view mangled_name) {
  PtxasFunctionReport function;
  function.mangled_name = std::string(mangled_name);
  function.demangled_name =
      mangled_name.size() <= kMaxDemangledLength ? Demangle(mangled_name) : function.mangled_name;
  function.architecture = architecture_;
  report_.functions.push_back(std::move(function));
  return report_.functions.size() - 1;
}

// Applies every known comma-separated field of `list`; unknown fields are skipped.
Status PtxasReportParser::ApplyFieldsTo(std::string_view list, PtxasFunctionReport& function,
                                        size_t line_number) {
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view part = list.substr(start, comma - start);
    Field field;
    FieldParse parsed = ParseField(part, field);
    if (parsed == FieldParse::kBadNumber) {
      return InvalidInput(
          fmt::format("{}:{}: cannot read the number in \"{}\"; expected a non-negative "
                      "integer such as \"24 registers\" or \"640 bytes stack frame\"",
                      file_name_, line_number, Abbreviate(TrimWhitespace(part), 60)));
    }
    if (parsed == FieldParse::kOk) ApplyField(field, function);
    start = comma + 1;
  }
  return Status::Ok();
}

// "ptxas warning : Registers are spilled to local memory in function 'X', N bytes spill stores, N bytes
// spill loads": kept verbatim, and its spill sizes remembered for X.
Status PtxasReportParser::ParseWarning(std::string_view line, size_t line_number) {
  report_.warnings.push_back(std::string(line));
  size_t in_function = line.find("spilled to local memory in function");
  if (in_function == std::string_view::npos) return Status::Ok();
  std::optional<std::string_view> name = QuotedAfter(line, in_function);
  if (!name || name->empty()) return Status::Ok();
  size_t after_name = line.find('\'', line.find('\'', in_function) + 1) + 1;
  PtxasFunctionReport sizes;
  KOPT_RETURN_IF_ERROR(ApplyFieldsTo(line.substr(after_name), sizes, line_number));
  pending_spills_[std::string(*name)] = {sizes.spill_store_bytes, sizes.spill_load_bytes};
  return Status::Ok();
}

void PtxasReportParser::TakePendingSpills(PtxasFunctionReport& function) {
  auto found = pending_spills_.find(function.mangled_name);
  if (found == pending_spills_.end()) return;
  function.spill_store_bytes = found->second.store_bytes;
  function.spill_load_bytes = found->second.load_bytes;
  pending_spills_.erase(found);
}

Result<PtxasReport> PtxasReportParser::Finish() {
  if (!saw_info_) {
    return InvalidInput(
        fmt::format("{}: no \"ptxas info\" line; expected the output of nvcc -Xptxas -v "
                    "(or --resource-usage)",
                    file_name_));
  }
  // Warnings printed after their function (other toolkits' order) fill the
  // last function of that name when it had no spill sizes of its own.
  for (auto function = report_.functions.rbegin(); function != report_.functions.rend(); ++function) {
    auto found = pending_spills_.find(function->mangled_name);
    if (found == pending_spills_.end()) continue;
    if (!function->HasSpills()) {
      function->spill_store_bytes = found->second.store_bytes;
      function->spill_load_bytes = found->second.load_bytes;
    }
    pending_spills_.erase(found);
  }
  return std::move(report_);
}

}  // namespace

Result<PtxasReport> ParsePtxasReport(std::string_view text, std::string_view file_name) {
  if (TrimWhitespace(text).empty()) {
    return InvalidInput(
        fmt::format("{}: the file is empty; expected the output of nvcc -Xptxas -v", file_name));
  }
  if (LooksBinary(text)) {
    return InvalidInput(fmt::format(
        "{}: binary data, not a ptxas report; expected the text nvcc -Xptxas -v prints", file_name));
  }
  PtxasReportParser parser(file_name);
  KOPT_RETURN_IF_ERROR(ForEachLine(text, [&parser](std::string_view line, size_t line_number) {
    return parser.ParseLine(line, line_number);
  }));
  return parser.Finish();
}

const PtxasFunctionReport* FindPtxasFunction(const PtxasReport& report, std::string_view function_name) {
  return FindByFunctionName(report.functions, function_name);
}

}  // namespace kopt
