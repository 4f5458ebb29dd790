#include "profile/ncu_source_page.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/text.h"
#include "fixture_reader.h"
#include "profile/kernel_launch.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

// One CSV line, every field quoted as ncu writes it.
std::string QuotedLine(const std::vector<std::string>& fields, std::string_view line_end = "\n") {
  std::string line;
  for (size_t index = 0; index < fields.size(); ++index) {
    std::string escaped;
    for (char character : fields[index])
      escaped += character == '"' ? std::string("\"\"") : std::string(1, character);
    line += (index ? ",\"" : "\"") + escaped + "\"";
  }
  return line + std::string(line_end);
}

std::string KernelLine(std::string_view name) {
  return "\"Kernel Name\",\"" + std::string(name) + "\",\n";
}

// ---- real exports from the H200 ------------------------------------------------

TEST(NcuSourcePage, ParsesTheUncoalescedLoadsFixture) {
  std::string text = ReadTestFile(FixtureDirectory() / "h200/uncoalesced_loads/source.csv");
  auto pages = ParseNcuSourcePage(text, "source.csv");
  ASSERT_TRUE(pages.ok()) << pages.status().message();
  ASSERT_EQ(pages->size(), 1u);
  const SourcePage& page = pages->front();
  EXPECT_EQ(page.kernel_name, "uncoalesced_loads(const float *, float *, unsigned int)");
  ASSERT_EQ(page.rows.size(), 32u);

  const SourcePageRow& first = page.rows[0];
  EXPECT_EQ(first.address, 0x7ff8437a0c00ull);
  EXPECT_EQ(first.offset, 0u);
  EXPECT_EQ(first.source, "LDC R1, c[0x0][0x28]");
  EXPECT_EQ(first.stall_samples, 200);
  EXPECT_EQ(first.stall_samples_not_issued, 170);
  EXPECT_EQ(first.instructions_executed, 2097152);
  EXPECT_EQ(first.thread_instructions_executed, 67108864);
  EXPECT_EQ(first.l2_sectors_global, 0);
  EXPECT_EQ(first.l2_sectors_global_excessive, 0);
  EXPECT_FALSE(first.l1_wavefronts_shared.has_value());  // column not in this export
  EXPECT_EQ(first.stall_reason_samples.at("mio"), 69);
  EXPECT_EQ(first.stall_reason_samples.at("no_inst"), 114);
  EXPECT_EQ(first.stall_reason_samples.at("not_selected"), 15);
  EXPECT_EQ(first.stall_reason_samples.count("mio (Not Issued)"), 0u);
  EXPECT_EQ(page.rows[1].offset, 0x10u);
  EXPECT_EQ(page.rows[1].source, "S2R R0, SR_TID.X");

  double total = 0;
  double excessive = 0;
  for (const SourcePageRow& row : page.rows) {
    total += *row.stall_samples;
    excessive += row.l2_sectors_global_excessive.value_or(0);
  }
  EXPECT_EQ(page.TotalStallSamples(), total);
  EXPECT_GT(total, 0);
  EXPECT_GT(excessive, 0);  // the uncoalesced load has excess sectors
}

TEST(NcuSourcePage, ParsesEveryH200Fixture) {
  int parsed = 0;
  for (const auto& entry : fs::directory_iterator(FixtureDirectory() / "h200")) {
    fs::path path = entry.path() / "source.csv";
    if (!fs::is_regular_file(path)) continue;
    auto pages = ParseNcuSourcePage(ReadTestFile(path), path.string());
    ASSERT_TRUE(pages.ok()) << pages.status().message();
    ASSERT_EQ(pages->size(), 1u) << path;
    const SourcePage& page = pages->front();
    EXPECT_EQ(FindSourcePage(*pages, FunctionNameOf(page.kernel_name)), &page) << path;
    ASSERT_FALSE(page.rows.empty()) << path;
    EXPECT_EQ(page.rows.front().offset, 0u) << path;
    for (size_t index = 1; index < page.rows.size(); ++index) {
      EXPECT_GT(page.rows[index].offset, page.rows[index - 1].offset) << path;
      EXPECT_FALSE(page.rows[index].source.empty()) << path;
    }
    EXPECT_GT(page.TotalStallSamples(), 0) << path;
    ++parsed;
  }
  EXPECT_GE(parsed, 20);
}

// ---- format variations --------------------------------------------------------

TEST(NcuSourcePage, ReadsSeveralKernelsAndFindsThemByFunctionName) {
  std::string text = KernelLine("scale(float *, int)") +
                     QuotedLine({"Address", "Source", "Instructions Executed"}) +
                     QuotedLine({"0x7f0000000100", "      LDC R1, c[0x0][0x28]", "10"}) +
                     QuotedLine({"0x7f0000000110", "      EXIT", "10"}) + "\n" +
                     KernelLine("void add<float>(const float *, float *)") +
                     QuotedLine({"Address", "Source", "Warp Stall Sampling (All Samples)"}) +
                     QuotedLine({"0x7f0000000400", "      MOV R1, R2", "3"}) +
                     QuotedLine({"0x7f0000000420", "@P0   EXIT", "4"});
  auto pages = ParseNcuSourcePage(text, "two.csv");
  ASSERT_TRUE(pages.ok()) << pages.status().message();
  ASSERT_EQ(pages->size(), 2u);

  const SourcePage* add = FindSourcePage(*pages, "add<float>");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->kernel_name, "void add<float>(const float *, float *)");
  ASSERT_EQ(add->rows.size(), 2u);
  EXPECT_EQ(add->rows[1].offset, 0x20u);  // from this kernel's own first address
  EXPECT_EQ(add->rows[1].source, "@P0   EXIT");
  EXPECT_EQ(add->TotalStallSamples(), 7);
  EXPECT_FALSE(add->rows[0].instructions_executed.has_value());

  const SourcePage* scale = FindSourcePage(*pages, "scale");
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ(scale->rows[1].instructions_executed, 10);
  EXPECT_EQ(scale->TotalStallSamples(), 0);
  EXPECT_EQ(FindSourcePage(*pages, "sca"), nullptr);
  EXPECT_EQ(FindSourcePage(*pages, "add"), nullptr);
  EXPECT_EQ(FindSourcePage({}, "scale"), nullptr);
}

// The untrimmed export: every column ncu prints, text columns among them.
std::vector<std::string> UntrimmedHeader() {
  std::vector<std::string> header = {"Address",
                                     "Source",
                                     "Warp Stall Sampling (All Samples)",
                                     "Warp Stall Sampling (Not-issued Samples)",
                                     "# Samples",
                                     "Instructions Executed",
                                     "Thread Instructions Executed",
                                     "Predicated-On Thread Instructions Executed",
                                     "Avg. Threads Executed",
                                     "Avg. Predicated-On Threads Executed",
                                     "Divergent Branches",
                                     "Address Space",
                                     "Access Operation",
                                     "Access Size",
                                     "L1 Tag Requests Global",
                                     "L1 Conflicts Shared N-Way",
                                     "L1 Wavefronts Shared Excessive",
                                     "L1 Wavefronts Shared",
                                     "L1 Wavefronts Shared Ideal",
                                     "L2 Theoretical Sectors Global Excessive",
                                     "L2 Theoretical Sectors Global",
                                     "L2 Theoretical Sectors Global Ideal",
                                     "L2 Explicit Evict Policies",
                                     "L2 Explicit Hit Policy Evict First",
                                     "L2 Explicit Hit Policy Evict Last",
                                     "L2 Explicit Miss Policy Evict First",
                                     "L2 Explicit Miss Policy Evict Normal"};
  const std::vector<std::string> reasons = {
      "barrier", "branch_resolving", "dispatch", "drain",    "gmma",  "imc",
      "lg",      "long_sb",          "math",     "membar",   "mio",   "misc",
      "no_inst", "not_selected",     "selected", "short_sb", "sleep", "tex",
      "wait",    "warpgroup_arrive"};
  for (const std::string& reason : reasons) header.push_back("stall_" + reason);
  for (const std::string& reason : reasons) header.push_back("stall_" + reason + " (Not Issued)");
  return header;
}

TEST(NcuSourcePage, ReadsTheUntrimmedFormWithCrlfSeparatorsAndCommasInFields) {
  std::vector<std::string> header = UntrimmedHeader();
  ASSERT_EQ(header.size(), 67u);
  std::vector<std::string> row(header.size(), "0");
  row[0] = "0x7ff8437a0c80";
  row[1] = "      LDG.E R3, desc[UR6][R2.64]";
  row[2] = "1,234";
  row[5] = "2,097,152";
  row[11] = "Global";
  row[12] = "Load";
  row[13] = "32";
  row[17] = "";  // absent, not zero
  row[19] = "3,670,016";
  row[20] = "4,194,304";
  row[21] = "524,288";
  row[22] = "n/a";             // an ignored column may hold anything
  row[27 + 7] = "1,100";       // stall_long_sb
  row[27 + 20 + 7] = "1,000";  // stall_long_sb (Not Issued)
  std::string text = "\"Kernel Name\",\"k(const float *, float *, int, int)\",\r\n" +
                     QuotedLine(header, "\r\n") + QuotedLine(row, "\r\n");
  auto pages = ParseNcuSourcePage(text, "full.csv");
  ASSERT_TRUE(pages.ok()) << pages.status().message();
  ASSERT_EQ(pages->size(), 1u);
  EXPECT_EQ(pages->front().kernel_name, "k(const float *, float *, int, int)");
  ASSERT_EQ(pages->front().rows.size(), 1u);
  const SourcePageRow& parsed = pages->front().rows[0];
  EXPECT_EQ(parsed.source, "LDG.E R3, desc[UR6][R2.64]");
  EXPECT_EQ(parsed.offset, 0u);
  EXPECT_EQ(parsed.stall_samples, 1234);
  EXPECT_EQ(parsed.instructions_executed, 2097152);
  EXPECT_EQ(parsed.l2_sectors_global_excessive, 3670016);
  EXPECT_EQ(parsed.l2_sectors_global, 4194304);
  EXPECT_EQ(parsed.l2_sectors_global_ideal, 524288);
  EXPECT_FALSE(parsed.l1_wavefronts_shared.has_value());
  EXPECT_EQ(parsed.l1_wavefronts_shared_ideal, 0);
  EXPECT_EQ(parsed.l1_wavefronts_shared_excessive, 0);
  EXPECT_EQ(parsed.stall_reason_samples.size(), 20u);
  EXPECT_EQ(parsed.stall_reason_samples.at("long_sb"), 1100);
  EXPECT_EQ(parsed.stall_reason_samples.at("warpgroup_arrive"), 0);
}

TEST(NcuSourcePage, OnlyAddressAndSourceAreRequired) {
  std::string text = KernelLine("k()") + "Source,Address\n\"  NOP\",0x10\n\"  EXIT\",0x20";
  auto pages = ParseNcuSourcePage(text, "minimal.csv");
  ASSERT_TRUE(pages.ok()) << pages.status().message();
  const SourcePageRow& row = pages->front().rows[1];
  EXPECT_EQ(row.source, "EXIT");
  EXPECT_EQ(row.address, 0x20u);
  EXPECT_EQ(row.offset, 0x10u);
  EXPECT_FALSE(row.stall_samples.has_value());
  EXPECT_FALSE(row.stall_samples_not_issued.has_value());
  EXPECT_FALSE(row.instructions_executed.has_value());
  EXPECT_FALSE(row.thread_instructions_executed.has_value());
  EXPECT_FALSE(row.l2_sectors_global.has_value());
  EXPECT_TRUE(row.stall_reason_samples.empty());
  EXPECT_EQ(pages->front().TotalStallSamples(), 0);
}

TEST(NcuSourcePage, AbsentMarkersLeaveFieldsEmpty) {
  std::string text = KernelLine("k()") +
                     QuotedLine({"Address", "Source", "Instructions Executed", "stall_wait", "stall_mio"}) +
                     QuotedLine({"0x10", "NOP", "n/a", "", "5"});
  auto pages = ParseNcuSourcePage(text, "absent.csv");
  ASSERT_TRUE(pages.ok()) << pages.status().message();
  const SourcePageRow& row = pages->front().rows[0];
  EXPECT_FALSE(row.instructions_executed.has_value());
  EXPECT_EQ(row.stall_reason_samples.count("wait"), 0u);
  EXPECT_EQ(row.stall_reason_samples.at("mio"), 5);
}

TEST(NcuSourcePage, SkipsProfilerLogLinesAndCountsThemInLineNumbers) {
  std::string text = "==PROF== Connected to process 1\n==WARNING== something\n" + KernelLine("k()") +
                     QuotedLine({"Address", "Source"}) + QuotedLine({"0x10", "NOP"}) +
                     QuotedLine({"zz", "NOP"});
  auto pages = ParseNcuSourcePage(text, "log.csv");
  ASSERT_FALSE(pages.ok());
  EXPECT_TRUE(Contains(pages.status().message(), "log.csv:6: column 1 (\"Address\") is \"zz\""))
      << pages.status().message();
}

TEST(NcuSourcePage, ToleratesTrailingCommas) {
  for (std::string header : {"\"Address\",\"Source\",\n", "\"Address\",\"Source\"\n"}) {
    std::string text = KernelLine("k()") + header + "\"0x10\",\"NOP\",\n\"0x20\",\"EXIT\"\n";
    auto pages = ParseNcuSourcePage(text, "trailing.csv");
    ASSERT_TRUE(pages.ok()) << pages.status().message();
    EXPECT_EQ(pages->front().rows.size(), 2u);
  }
}

// ---- errors name the file, line and column ---------------------------------------

std::string ErrorOf(const std::string& text) {
  auto pages = ParseNcuSourcePage(text, "bad.csv");
  EXPECT_FALSE(pages.ok());
  if (pages.ok()) return "";
  EXPECT_EQ(pages.status().kind(), ErrorKind::kInvalidInput);
  return pages.status().message();
}

TEST(NcuSourcePage, RejectsEmptyAndBinaryInput) {
  EXPECT_TRUE(Contains(ErrorOf(""), "bad.csv: the file is empty"));
  EXPECT_TRUE(Contains(ErrorOf(" \r\n\n"), "bad.csv: the file is empty"));
  EXPECT_TRUE(Contains(ErrorOf(std::string("PK\x03\x04\0\0\x10", 7)), "bad.csv: binary data"));
}

TEST(NcuSourcePage, RejectsOtherExports) {
  std::string raw = ReadTestFile(FixtureDirectory() / "h200/uncoalesced_loads/raw.csv");
  std::string message = ErrorOf(raw);
  EXPECT_TRUE(Contains(message, "bad.csv:1: expected a \"Kernel Name\"")) << message;
  EXPECT_TRUE(Contains(message, "--page source")) << message;
}

TEST(NcuSourcePage, RejectsAHeaderWithoutAddressOrSource) {
  std::string message = ErrorOf(KernelLine("k()") + QuotedLine({"Source", "Instructions Executed"}));
  EXPECT_TRUE(Contains(message, "bad.csv:2: no \"Address\" column")) << message;
  message = ErrorOf(KernelLine("k()") + QuotedLine({"Address", "Instructions Executed"}));
  EXPECT_TRUE(Contains(message, "bad.csv:2: no \"Source\" column")) << message;
}

TEST(NcuSourcePage, RejectsBadCellsNamingTheColumn) {
  std::string header = QuotedLine({"Address", "Source", "Instructions Executed"});
  std::string message = ErrorOf(KernelLine("k()") + header + QuotedLine({"0x10", "NOP", "1"}) +
                                QuotedLine({"0x20", "NOP", "lots"}));
  EXPECT_TRUE(
      Contains(message, "bad.csv:4: column 3 (\"Instructions Executed\") is \"lots\"; expected a number"))
      << message;
  message = ErrorOf(KernelLine("k()") + header + QuotedLine({"7ff8", "NOP", "1"}));
  EXPECT_TRUE(
      Contains(message, "bad.csv:3: column 1 (\"Address\") is \"7ff8\"; expected a hexadecimal address"))
      << message;
  message = ErrorOf(KernelLine("k()") + header + QuotedLine({"0x", "NOP", "1"}));
  EXPECT_TRUE(Contains(message, "column 1 (\"Address\")")) << message;
  message = ErrorOf(KernelLine("k()") + header + QuotedLine({"0x1ffffffffffffffff", "NOP", "1"}));
  EXPECT_TRUE(Contains(message, "column 1 (\"Address\")")) << message;
}

TEST(NcuSourcePage, RejectsRowsOfTheWrongWidth) {
  std::string message = ErrorOf(
      KernelLine("k()") + QuotedLine({"Address", "Source", "Instructions Executed"}) + "\"0x10\",\"NOP\"\n");
  EXPECT_TRUE(Contains(message, "bad.csv:3: 2 fields, but the header has 3")) << message;
}

TEST(NcuSourcePage, RejectsTruncatedFiles) {
  std::string message = ErrorOf(KernelLine("k()") + QuotedLine({"Address", "Source"}) + "\"0x10\",\"  NO");
  EXPECT_TRUE(Contains(message, "bad.csv:3:8: quoted field never closed")) << message;
  message = ErrorOf(KernelLine("k()"));
  EXPECT_TRUE(Contains(message, "bad.csv:1: kernel \"k()\" has no header row")) << message;
  message = ErrorOf(KernelLine("k()") + KernelLine("j()") + QuotedLine({"Address", "Source"}));
  EXPECT_TRUE(Contains(message, "bad.csv:1: kernel \"k()\" has no header row")) << message;
}

TEST(NcuSourcePage, RejectsAnEmptyKernelNameAndAddressesOutOfOrder) {
  EXPECT_TRUE(Contains(ErrorOf("\"Kernel Name\",\"\",\n"), "bad.csv:1: empty kernel name"));
  std::string message = ErrorOf(KernelLine("k()") + QuotedLine({"Address", "Source"}) +
                                QuotedLine({"0x20", "NOP"}) + QuotedLine({"0x10", "NOP"}));
  EXPECT_TRUE(Contains(message, "bad.csv:4: address 0x10 lies below the kernel's first address 0x20"))
      << message;
}

}  // namespace
}  // namespace kopt
