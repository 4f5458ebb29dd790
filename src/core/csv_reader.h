// A streaming RFC 4180 CSV reader shared by the ncu export parsers: quoted
// fields, "" escapes, newlines inside quotes, LF or CRLF line ends. Errors
// name the file, the line and the column.
//
// Thread safety: one reader per thread; it only reads the text it was given.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kopt {

// One CSV record with the line it started on (1-based).
struct CsvRecord {
  std::vector<std::string> fields;
  int line = 0;

  // True for a blank line: one field holding only whitespace.
  bool IsBlank() const;
};

class CsvReader {
 public:
  // `first_line` is the 1-based line number of text[0] in the file.
  CsvReader(std::string_view text, std::string_view file_name, int first_line = 1)
      : text_(text), file_name_(file_name), line_(first_line) {}

  // Reads the next record into `record`; returns false at the end of input.
  Result<bool> Next(CsvRecord& record);

  // Where the next record starts: its byte offset in the text and its line.
  size_t position() const { return position_; }
  int line() const { return line_; }

 private:
  Result<bool> ReadField(std::string& field);
  Result<bool> ReadQuotedField(std::string& field);
  void AppendCountingLines(std::string_view chunk, std::string& field);
  void ConsumeLineEnd();
  size_t Column() const { return position_ - line_start_ + 1; }

  std::string_view text_;
  std::string_view file_name_;
  size_t position_ = 0;
  size_t line_start_ = 0;
  int line_;
};

// ncu's own log lines ("==PROF== …", "==WARNING== …") may precede the CSV
// when ncu printed to stdout. Returns how many bytes of `text` they take, and
// how many lines, in `skipped_lines`.
size_t SkipProfilerLogLines(std::string_view text, int& skipped_lines);

// A fully quoted CSV export (ncu quotes every field, so each of its records
// starts with '"') with the lines that are not its records blanked: a
// program's own stdout printed into the export, before the header or between
// rows, and ncu's "==PROF==" log lines. Blanking keeps every line number, and
// parsers skip blank records. Lines inside a quoted field are never touched.
struct QuotedCsvText {
  std::string_view text;       // `text` itself when nothing was blanked, else `storage`
  int foreign_lines = 0;       // lines blanked that were not ncu's log lines
  int log_lines = 0;           // "==" lines blanked
  int first_foreign_line = 0;  // 1-based line of the first foreign line (0: none)
};
// `storage` receives the blanked copy when one is needed. Linear in the text.
QuotedCsvText BlankUnquotedLines(std::string_view text, std::string& storage);

}  // namespace kopt
