#include "analysis/program_plan.h"

#include <gtest/gtest.h>

namespace kopt {
namespace {

Finding MakeFinding(const std::string& tool, double gain, const std::string& change) {
  Finding finding;
  finding.tool = tool;
  finding.title = tool + " title";
  finding.estimated_gain = gain;
  finding.recommendations.push_back({change, "", ""});
  return finding;
}

KernelDiagnosis MakeKernel(const std::string& name, double total_ns, long long launches,
                           std::vector<Finding> findings) {
  KernelDiagnosis kernel;
  kernel.kernel_name = name;
  kernel.launches.count = launches;
  kernel.launches.total_duration_ns = total_ns;
  kernel.findings = std::move(findings);
  return kernel;
}

// A program of 1,000 µs: a big kernel with a small gain against a small kernel with a big one.
Diagnosis Program() {
  Diagnosis diagnosis;
  diagnosis.source = "model.csv";
  diagnosis.kernels.push_back(
      MakeKernel("gemm", 800e3, 10, {MakeFinding("low_occupancy", 0.10, "fewer registers")}));
  diagnosis.kernels.push_back(MakeKernel("softmax", 150e3, 10,
                                         {MakeFinding("uncoalesced_loads", 0.60, "transpose the loads"),
                                          MakeFinding("low_occupancy", 0.50, "smaller blocks")}));
  diagnosis.kernels.push_back(MakeKernel("layernorm", 50e3, 20, {MakeFinding("healthy", 0, "")}));
  return diagnosis;
}

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
