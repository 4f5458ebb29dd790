#include "core/csv_reader.h"

#include <fmt/format.h>

#include "core/text.h"

namespace kopt {

bool CsvRecord::IsBlank() const {
  return fields.size() == 1 && TrimWhitespace(fields[0]).empty();
}

Result<bool> CsvReader::Next(CsvRecord& record) {
  record.fields.clear();
  if (position_ >= text_.size()) return false;
  record.line = line_;
  std::string field;
  while (true) {
    KOPT_ASSIGN_OR_RETURN(bool end_of_record, ReadField(field));
    record.fields.push_back(std::move(field));
    field.clear();
    if (end_of_record) return true;
  }
}

// Reads one field; returns true when it ended the record.
Result<bool> CsvReader::ReadField(std::string& field) {
  if (position_ < text_.size() && text_[position_] == '"') return ReadQuotedField(field);
  size_t start = position_;
  while (position_ < text_.size()) {
    char character = text_[position_];
    if (character == ',') {
      field.assign(text_.substr(start, position_ - start));
      ++position_;
      return false;
    }
    if (character == '\n' || character == '\r') break;
    if (character == '"') {
      return InvalidInput(
          fmt::format("{}:{}:{}: a quote inside an unquoted field; expected \"...\" around it", file_name_,
                      line_, Column()));
    }
    ++position_;
  }
  field.assign(text_.substr(start, position_ - start));
  ConsumeLineEnd();
  return true;
}

Result<bool> CsvReader::ReadQuotedField(std::string& field) {
  int open_line = line_;
  size_t open_column = Column();
  ++position_;  // opening quote
  while (true) {
    size_t quote = text_.find('"', position_);
    if (quote == std::string_view::npos) {
      return InvalidInput(
          fmt::format("{}:{}:{}: quoted field never closed (file truncated?); expected a "
                      "closing '\"'",
                      file_name_, open_line, open_column));
    }
    AppendCountingLines(text_.substr(position_, quote - position_), field);
    position_ = quote + 1;
    if (position_ < text_.size() && text_[position_] == '"') {
      field.push_back('"');
      ++position_;
      continue;
    }
    break;
  }
  if (position_ >= text_.size()) return true;
  char character = text_[position_];
  if (character == ',') {
    ++position_;
    return false;
  }
  if (character == '\n' || character == '\r') {
    ConsumeLineEnd();
    return true;
  }
  return InvalidInput(
      fmt::format("{}:{}:{}: unexpected character after a closing quote; expected ',' or "
                  "the end of the line",
                  file_name_, line_, Column()));
}

void CsvReader::AppendCountingLines(std::string_view chunk, std::string& field) {
  for (size_t index = 0; index < chunk.size(); ++index) {
    if (chunk[index] == '\n') {
      ++line_;
      line_start_ = position_ + index + 1;
    }
  }
  field.append(chunk);
}

void CsvReader::ConsumeLineEnd() {
  if (position_ < text_.size() && text_[position_] == '\r') ++position_;
  if (position_ < text_.size() && text_[position_] == '\n') ++position_;
  ++line_;
  line_start_ = position_;
}

size_t SkipProfilerLogLines(std::string_view text, int& skipped_lines) {
  size_t position = 0;
  skipped_lines = 0;
  while (position < text.size() && StartsWith(text.substr(position), "==")) {
    size_t end = text.find('\n', position);
    if (end == std::string_view::npos) return text.size();
    position = end + 1;
    ++skipped_lines;
  }
  return position;
}

QuotedCsvText BlankUnquotedLines(std::string_view text, std::string& storage) {
  QuotedCsvText result;
  result.text = text;
  if (!StartsWith(text, "\"") && text.find("\n\"") == std::string_view::npos) return result;  // not quoted
  bool in_quotes = false;
  bool copied = false;
  size_t position = 0;
  int line = 1;
  while (position < text.size()) {
    size_t end = text.find('\n', position);
    if (end == std::string_view::npos) end = text.size();
    std::string_view content = text.substr(position, end - position);
    if (!content.empty() && content.back() == '\r') content.remove_suffix(1);
    bool foreign = !in_quotes && !content.empty() && content.front() != '"';
    if (foreign) {
      if (StartsWith(content, "==")) {
        ++result.log_lines;
      } else {
        ++result.foreign_lines;
        if (result.first_foreign_line == 0) result.first_foreign_line = line;
      }
      if (!copied) {
        storage.assign(text);
        copied = true;
      }
      storage.replace(position, content.size(), content.size(), ' ');
    } else {
      for (char c : content) {
        if (c == '"') in_quotes = !in_quotes;
      }
    }
    position = end + 1;
    ++line;
  }
  if (copied) result.text = storage;
  return result;
}

}  // namespace kopt
