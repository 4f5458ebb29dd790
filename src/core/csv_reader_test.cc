#include "core/csv_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kopt {
namespace {

std::vector<CsvRecord> ReadAll(std::string_view text) {
  CsvReader reader(text, "t.csv");
  std::vector<CsvRecord> records;
  CsvRecord record;
  while (true) {
    Result<bool> more = reader.Next(record);
    EXPECT_TRUE(more.ok()) << more.status().message();
    if (!more.ok() || !*more) break;
    records.push_back(record);
  }
  return records;
}

TEST(CsvReader, ReadsQuotesEscapesCrlfAndNewlinesInFields) {
  std::vector<CsvRecord> records = ReadAll("a,\"b, c\",\"say \"\"hi\"\"\"\r\n\"two\nlines\",x\n\nlast");
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0].fields, (std::vector<std::string>{"a", "b, c", "say \"hi\""}));
  EXPECT_EQ(records[0].line, 1);
  EXPECT_EQ(records[1].fields, (std::vector<std::string>{"two\nlines", "x"}));
  EXPECT_EQ(records[1].line, 2);
  EXPECT_TRUE(records[2].IsBlank());
  EXPECT_EQ(records[2].line, 4);
  EXPECT_EQ(records[3].fields, (std::vector<std::string>{"last"}));
}

TEST(CsvReader, ErrorsNameFileLineAndColumn) {
  CsvReader reader("ok\nab\"c\n", "t.csv");
  CsvRecord record;
  ASSERT_TRUE(reader.Next(record).ok());
  Result<bool> bad = reader.Next(record);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("t.csv:2:3: a quote inside an unquoted field"), std::string::npos)
      << bad.status().message();
  CsvReader unclosed("x,\"open", "t.csv", 5);
  Result<bool> truncated = unclosed.Next(record);
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.status().message().find("t.csv:5:3: quoted field never closed"), std::string::npos)
      << truncated.status().message();
}

TEST(CsvReader, SkipsProfilerLogLines) {
  int lines = 0;
  std::string_view text = "==PROF== one\n==WARNING== two\n\"a\"\n";
  EXPECT_EQ(SkipProfilerLogLines(text, lines), 29u);
  EXPECT_EQ(lines, 2);
  EXPECT_EQ(SkipProfilerLogLines("\"a\"\n", lines), 0u);
  EXPECT_EQ(lines, 0);
}

TEST(BlankUnquotedLines, BlanksAProgramsOutputAndKeepsLineNumbers) {
  std::string storage;
  std::string text = "==PROF== Connected\nhello, world\n\"a\",\"b\"\nstep 1 done\n\"1\",\"2\"\n";
  QuotedCsvText quoted = BlankUnquotedLines(text, storage);
  EXPECT_EQ(quoted.foreign_lines, 2);
  EXPECT_EQ(quoted.log_lines, 1);
  EXPECT_EQ(quoted.first_foreign_line, 2);
  EXPECT_EQ(quoted.text.size(), text.size());
  CsvReader reader(quoted.text, "f.csv");
  CsvRecord record;
  std::vector<int> lines;
  while (*reader.Next(record)) {
    if (!record.IsBlank()) lines.push_back(record.line);
  }
  EXPECT_EQ(lines, (std::vector<int>{3, 5}));
}

TEST(BlankUnquotedLines, LeavesQuotedFieldsAndUnquotedFilesAlone) {
  std::string storage;
  std::string multiline = "\"a\",\"line one\nline two\"\n\"1\",\"2\"\n";
  QuotedCsvText quoted = BlankUnquotedLines(multiline, storage);
  EXPECT_EQ(quoted.foreign_lines, 0);
  EXPECT_EQ(quoted.text.data(), multiline.data()) << "nothing copied";
  std::string unquoted = "a,b\n1,2\n";
  EXPECT_EQ(BlankUnquotedLines(unquoted, storage).foreign_lines, 0);
}

}  // namespace
}  // namespace kopt
