#include "analysis/program_plan.h"

#include <gtest/gtest.h>

#include "analysis/program_plan_test_util.h"

namespace kopt {
namespace {

using plan_test::MakeFinding;
using plan_test::MakeKernel;
using plan_test::Program;

TEST(ProgramPlanTest, FindingsRankByWholeProgramTimeSavedNotByKernelGain) {
  Diagnosis program = Program();
  ProgramPlan plan = BuildProgramPlan({&program}, PlanOptions{});
  ASSERT_EQ(plan.programs.size(), 1u);
  EXPECT_DOUBLE_EQ(plan.total_ns, 1000e3);
  ASSERT_EQ(plan.kernels.size(), 3u);
  EXPECT_EQ(plan.kernels[0].kernel_name, "gemm");
  EXPECT_DOUBLE_EQ(plan.kernels[0].share, 0.8);
  ASSERT_EQ(plan.findings.size(), 3u) << "the healthy verdict saves nothing and is not listed";
  // 0.6 × 150 µs = 90 µs beats 0.1 × 800 µs = 80 µs, beats 0.5 × 150 µs = 75 µs.
  EXPECT_EQ(plan.findings[0].id, "uncoalesced_loads");
  EXPECT_DOUBLE_EQ(plan.findings[0].saved_ns, 90e3);
  EXPECT_DOUBLE_EQ(plan.findings[0].program_share, 0.09);
  EXPECT_NEAR(plan.findings[0].program_speedup, 1000.0 / 910.0, 1e-12);
  EXPECT_EQ(plan.kernels[plan.findings[0].kernel].kernel_name, "softmax");
  EXPECT_EQ(plan.findings[1].id, "low_occupancy");
  EXPECT_EQ(plan.kernels[plan.findings[1].kernel].kernel_name, "gemm");
  // A kernel's findings overlap: softmax can save 150 µs × (1 − 0.4 × 0.5) = 120 µs, not 165 µs.
  EXPECT_DOUBLE_EQ(plan.kernels[1].bound_saved_ns, 120e3);
  EXPECT_DOUBLE_EQ(plan.programs[0].bound_saved_ns, 200e3);
}

TEST(ProgramPlanTest, KernelsSharingARootCauseAreOneGroupRankedByItsTotal) {
  Diagnosis program = Program();
  ProgramPlan plan = BuildProgramPlan({&program}, PlanOptions{});
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_EQ(plan.groups[0].id, "low_occupancy");  // 80 + 75 µs across two kernels
  EXPECT_DOUBLE_EQ(plan.groups[0].saved_ns, 155e3);
  ASSERT_EQ(plan.groups[0].kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[plan.groups[0].kernels[0]].kernel_name, "gemm");
  EXPECT_EQ(plan.groups[0].suggestion, "fewer registers");
  EXPECT_EQ(plan.groups[1].id, "uncoalesced_loads");
}

TEST(ProgramPlanTest, SeveralProgramsWeighEachProgramTheSame) {
  Diagnosis big = Program();
  Diagnosis small;
  small.source = "small.csv";
  small.kernels.push_back(MakeKernel("copy", 10e3, 1, {MakeFinding("uncoalesced_loads", 0.5, "coalesce")}));
  KernelDiagnosis no_time = MakeKernel("unknown", 0, 1, {});
  no_time.launches.total_duration_ns.reset();
  small.kernels.push_back(no_time);
  ProgramPlan plan = BuildProgramPlan({&big, &small}, PlanOptions{});
  ASSERT_EQ(plan.programs.size(), 2u);
  EXPECT_EQ(plan.programs[1].kernels_without_duration, 1u);
  // small.csv's copy saves half of its program: first, though it saves only 5 µs.
  EXPECT_EQ(plan.kernels[plan.findings[0].kernel].kernel_name, "copy");
  EXPECT_DOUBLE_EQ(plan.findings[0].program_share, 0.5);
  // uncoalesced_loads: (0.09 + 0.5) / 2 programs.
  EXPECT_EQ(plan.groups[0].id, "uncoalesced_loads");
  EXPECT_DOUBLE_EQ(plan.groups[0].mean_program_share, 0.295);
}

TEST(ProgramPlanTest, ListsAreCutWhereTheOptionsSay) {
  Diagnosis program = Program();
  PlanOptions options;
  options.max_findings = 1;
  options.max_kernels = 2;
  ProgramPlan plan = BuildProgramPlan({&program}, options);
  EXPECT_EQ(plan.findings.size(), 1u);
  EXPECT_EQ(plan.kernels.size(), 3u);
  EXPECT_EQ(plan.kernels_listed, 2u);
}

}  // namespace
}  // namespace kopt
