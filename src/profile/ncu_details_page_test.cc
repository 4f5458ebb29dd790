#include "profile/ncu_details_page.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "fixture_reader.h"
#include "profile/ncu_csv.h"

namespace kopt {
namespace {

using ::testing::HasSubstr;

// Every mapped metric equals the raw page's value of the same launch (ncu rounds the details page to 2
// decimals): the mapping is checked on a capture that is not the one it was derived from.
TEST(NcuDetailsPage, MappedMetricsEqualTheRawPageOfTheSameReport) {
  auto details = ParseNcuDetailsCsv(ReadFixture("exports/report_details.csv"), "report_details.csv");
  auto raw = ParseNcuRawCsv(ReadFixture("exports/report_raw_trimmed.csv"), "report_raw_trimmed.csv");
  ASSERT_TRUE(details.ok()) << details.status().message();
  ASSERT_TRUE(raw.ok()) << raw.status().message();
  ASSERT_EQ(details->size(), raw->size());
  int compared = 0;
  std::set<std::string> checked;
  for (size_t i = 0; i < raw->size(); ++i) {
    const KernelLaunch& d = (*details)[i];
    const KernelLaunch& r = (*raw)[i];
    EXPECT_EQ(d.launch_id, r.launch_id);
    EXPECT_EQ(d.kernel_name, r.kernel_name);
    EXPECT_EQ(d.grid.Count(), r.grid.Count());
    for (const DetailsMetricName& name : kDetailsMetricNames) {
      auto expected = r.Metric(name.raw_name);
      auto actual = d.Metric(name.raw_name);
      if (!expected || !actual) continue;
      EXPECT_NEAR(*actual, *expected, std::max(std::abs(*expected) * 0.006, 0.0051))
          << name.section << " / " << name.metric << " → " << name.raw_name << " (launch " << i << ")";
      ++compared;
      checked.insert(std::string(name.raw_name));
    }
  }
  EXPECT_GT(checked.size(), 55u) << "most of the table is exercised";
  EXPECT_GT(compared, 250);
}

TEST(NcuDetailsPage, ReadsTheDefaultCsvOfNcuWithTheProgramsOutputBeforeIt) {
  auto launches = ParseNcuDetailsCsv(ReadFixture("exports/details_default_with_stdout.csv"), "d.csv");
  ASSERT_TRUE(launches.ok()) << launches.status().message();
  ASSERT_EQ(launches->size(), 13u);
  EXPECT_EQ((*launches)[0].FunctionName(), "scale");
  EXPECT_TRUE((*launches)[0].Metric("gpu__time_duration.sum").has_value());
  // Derived: DRAM bytes = Memory Throughput × Duration.
  const KernelLaunch& first = (*launches)[0];
  EXPECT_NEAR(*first.Metric("dram__bytes.sum"),
              *first.Metric("dram__bytes.sum.per_second") * *first.Metric("gpu__time_duration.sum") * 1e-9,
              1);
  EXPECT_THAT(launches->back().kernel_name,
              HasSubstr("blockwise_reduce_with_a_really_long_descriptive_kernel_name"));
}

TEST(NcuDetailsPage, KeepsNcusRuleResults) {
  auto launches = ParseNcuDetailsCsv(ReadFixture("h200/uncoalesced_loads/details.csv"), "details.csv");
  ASSERT_TRUE(launches.ok()) << launches.status().message();
  ASSERT_EQ(launches->size(), 1u);
  const std::vector<NcuRuleResult>& rules = launches->front().ncu_rules;
  auto uncoalesced = std::find_if(rules.begin(), rules.end(), [](const NcuRuleResult& rule) {
    return rule.name == "UncoalescedGlobalAccess";
  });
  ASSERT_NE(uncoalesced, rules.end());
  EXPECT_EQ(uncoalesced->type, "OPT");
  EXPECT_DOUBLE_EQ(uncoalesced->estimated_speedup_percent.value_or(0), 77.3);
  EXPECT_EQ(uncoalesced->section, "SourceCounters");
  // Against the raw page of the same capture.
  auto raw = ParseNcuRawCsv(ReadFixture("h200/uncoalesced_loads/raw.csv"), "raw.csv");
  ASSERT_TRUE(raw.ok());
  EXPECT_DOUBLE_EQ(*launches->front().Metric("gpu__time_duration.sum"),
                   *raw->front().Metric("gpu__time_duration.sum"));
}

TEST(NcuDetailsPage, ErrorsNameTheLineAndTheExpectedForm) {
  std::string text = ReadFixture("h200/uncoalesced_loads/details.csv");
  std::string broken = text.substr(0, text.find('\n') + 1) + "\"0\",\"1\",\"x\"\n";
  auto result = ParseNcuDetailsCsv(broken, "d.csv");
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("d.csv:2: 3 fields; expected 20 (a rule row) or 16"));
  auto raw = ParseNcuDetailsCsv(ReadFixture("h200/uncoalesced_loads/raw.csv"), "r.csv");
  ASSERT_FALSE(raw.ok());
  EXPECT_THAT(raw.status().message(), HasSubstr("not the header of ncu's details page"));
  EXPECT_FALSE(ParseNcuDetailsCsv("", "e.csv").ok());
}

}  // namespace
}  // namespace kopt
