#include "profile/dependency_stalls.h"

#include <gtest/gtest.h>

#include <string>

#include "fixture_reader.h"

namespace kopt {
namespace {

SourcePageRow Row(unsigned long long offset, std::string sass, double samples, double long_sb = 0,
                  double short_sb = 0) {
  SourcePageRow row;
  row.offset = offset;
  row.address = 0x1000 + offset;
  row.source = std::move(sass);
  row.stall_samples = samples;
  if (long_sb > 0) row.stall_reason_samples["long_sb"] = long_sb;
  if (short_sb > 0) row.stall_reason_samples["short_sb"] = short_sb;
  return row;
}

// The consumer of a load holds the long-scoreboard samples; they move to the LDG that wrote its source
// register, past an unrelated instruction in between.
TEST(DependencyStalls, LongScoreboardStallsMoveToTheLoadThatFeedsTheConsumer) {
  SourcePage page;
  page.rows = {Row(0x00, "      LDG.E.CONSTANT R2, desc[UR4][R2.64]", 1),
               Row(0x10, "      HFMA2.MMA R9, -RZ, RZ, 2, 0", 2),
               Row(0x20, "      FFMA R7, R2, R9, 1", 100, 90),
               Row(0x30, "      STG.E desc[UR4][R4.64], R7", 3)};
  DependencyStalls stalls = AttributeDependencyStalls(page);
  EXPECT_DOUBLE_EQ(stalls.waiting_samples[0], 90);
  EXPECT_EQ(stalls.main_waiter[0], 2u);
  EXPECT_DOUBLE_EQ(stalls.AttributedSamples(page, 0), 91);
  EXPECT_DOUBLE_EQ(stalls.AttributedSamples(page, 2), 10);  // what is left: not a dependency stall
  EXPECT_DOUBLE_EQ(stalls.AttributedSamples(page, 1), 2);   // HFMA2 is not a scoreboard producer
  EXPECT_EQ(stalls.main_waiter[1], DependencyStalls::kNone);
}

TEST(DependencyStalls, ShortScoreboardStallsMoveToSharedLoadsOnly) {
  SourcePage page;
  page.rows = {Row(0x00, "LDS R4, [R3]", 0), Row(0x10, "IMAD R5, R0, R0, RZ", 0),
               Row(0x20, "FADD R6, R4, R5", 50, 40, 30)};
  DependencyStalls stalls = AttributeDependencyStalls(page);
  EXPECT_DOUBLE_EQ(stalls.waiting_samples[0], 30);  // short_sb to the LDS; long_sb has no L1TEX producer
  EXPECT_DOUBLE_EQ(stalls.waiting_samples[1], 0);
  EXPECT_DOUBLE_EQ(stalls.AttributedSamples(page, 2), 20);
}

TEST(DependencyStalls, ConsumerOfTwoLoadsSplitsItsSamplesAndAddressesCount) {
  SourcePage page;
  page.rows = {Row(0x00, "LDG.E.64 R2, desc[UR4][R8.64]", 0), Row(0x10, "LDG.E R5, desc[UR4][R10.64]", 0),
               Row(0x20, "FADD R6, R3, R5", 60, 60),
               // pointer chasing: the address of the next load comes from the first load
               Row(0x30, "LDG.E R7, desc[UR4][R2.64]", 20, 20)};
  DependencyStalls stalls = AttributeDependencyStalls(page);
  EXPECT_DOUBLE_EQ(stalls.waiting_samples[0], 30 + 20);
  EXPECT_DOUBLE_EQ(stalls.waiting_samples[1], 30);
  EXPECT_EQ(stalls.main_waiter[0], 2u);
}

// The nearest earlier writer counts: a later overwrite by a non-load hides the load.
TEST(DependencyStalls, OnlyTheNearestWriterOfARegisterIsItsProducer) {
  SourcePage page;
  page.rows = {Row(0x00, "LDG.E R2, desc[UR4][R8.64]", 0), Row(0x10, "IADD3 R2, R2, 0x1, RZ", 0),
               Row(0x20, "FADD R6, R2, R2", 60, 60)};
  DependencyStalls stalls = AttributeDependencyStalls(page);
  EXPECT_DOUBLE_EQ(stalls.waiting_samples[0], 0);
  EXPECT_DOUBLE_EQ(stalls.AttributedSamples(page, 2), 60);
}

// The H200 uncoalesced_loads capture: the FFMA that consumes the strided LDG holds 89.5% of all stall
// samples (long scoreboard); the LDG itself 0.1%. After the move the LDG holds them.
TEST(DependencyStalls, H200UncoalescedLoadsLoadHoldsItsConsumersStalls) {
  auto pages = ParseNcuSourcePage(ReadFixture("h200/uncoalesced_loads/source.csv"), "source.csv");
  ASSERT_TRUE(pages.ok()) << pages.status().message();
  const SourcePage& page = pages->front();
  DependencyStalls stalls = AttributeDependencyStalls(page);
  size_t load = 0, fma = 0;
  for (size_t index = 0; index < page.rows.size(); ++index) {
    if (page.rows[index].offset == 0xc0) load = index;
    if (page.rows[index].offset == 0xf0) fma = index;
  }
  ASSERT_NE(load, 0u);
  double total = page.TotalStallSamples();
  EXPECT_LT(page.rows[load].stall_samples.value_or(0) / total, 0.002);
  EXPECT_GT(stalls.AttributedSamples(page, load) / total, 0.89);
  EXPECT_EQ(stalls.main_waiter[load], fma);
  EXPECT_LT(stalls.AttributedSamples(page, fma) / total, 0.01);
}

}  // namespace
}  // namespace kopt
