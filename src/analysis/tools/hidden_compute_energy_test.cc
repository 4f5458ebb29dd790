// Tests of hidden_compute_energy (analysis/tools/hidden_compute_energy.cc): the
// "same speed, less energy" finding on a DRAM-bound kernel, with the tests'
// own coefficient table.
#include <gtest/gtest.h>

#include "analysis/energy_analysis.h"
#include "analysis/energy_test_util.h"
#include "analysis/tool_test_support.h"

namespace kopt {
namespace {

// FMA-pipe issues at 1 nJ, DRAM bytes at 10 pJ, nothing else.
EnergyCoefficients FmaHeavyTable() {
  return TestEnergyTable({{EnergyTerm::kFmaPipe, 1e-9}, {EnergyTerm::kDramBytes, 1e-11}});
}

// An element-wise kernel with one IEEE division: two MUFU, FCHK and 6 FMA-pipe instructions.
SassFunction ElementwiseDivision() {
  SassFunction function;
  function.mangled_name = "_Z5swishPKfPfi";
  for (const char* opcode :
       {"LDG", "FMUL", "MUFU", "FADD", "MUFU", "FCHK", "FFMA", "FFMA", "FFMA", "FFMA", "STG", "EXIT"})
    function.instructions.push_back(TestInstruction(opcode, std::string(opcode) == "MUFU" ? ".RCP" : ""));
  for (size_t index = 0; index < function.instructions.size(); ++index)
    function.instructions[index].offset = 16 * index;
  return function;
}

struct Scenario {
  KernelLaunch launch;
  RooflineAnalysis roofline;
  std::vector<StallReason> stalls;
  SassFunction sass = ElementwiseDivision();
  EnergyCoefficients table = FmaHeavyTable();
  std::map<std::string, double> thresholds;

  // Memory throughput `memory_percent` against an SM at 40%; the FMA pipe at `fma_percent`.
  explicit Scenario(double memory_percent, double fma_percent = 20) {
    // 1 GB through DRAM; the FMA pipe 20% busy over 1e9 active SM cycles: 2e8 issues.
    launch =
        SyntheticLaunch({{"dram__bytes_read.sum", 5e8},
                         {"dram__bytes_write.sum", 5e8},
                         {"sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active", fma_percent},
                         {"sm__cycles_active.sum", 1e9},
                         {"gpu__time_duration.sum", 300000},
                         {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", memory_percent},
                         {"sm__throughput.avg.pct_of_peak_sustained_elapsed", 40}});
    roofline.bottleneck = BottleneckClass::kMemoryBound;
    thresholds = ResolveThresholds(*FindTool("hidden_compute_energy"), OrchestrationOptions{});
  }
  std::optional<Finding> Run(bool with_table = true) {
    ToolContext context{launch,  roofline, stalls,  nullptr,     &sass,
                        nullptr, nullptr,  nullptr, &thresholds, with_table ? &table : nullptr};
    return FindTool("hidden_compute_energy")->analyze(context);
  }
};

TEST(HiddenComputeEnergy, MemoryBoundKernelWithIeeeDivisionSavesEnergyAtTheSameSpeed) {
  Scenario setup(85);
  EnergyCounts counts = CountEnergyActivity(setup.launch);
  ASSERT_GT(counts[EnergyTerm::kFmaPipe], 0) << "the model counts no FMA issues from the synthetic metrics";
  std::optional<Finding> finding = setup.Run();
  ASSERT_TRUE(finding);
  EXPECT_EQ(finding->estimated_gain, 0);
  ASSERT_TRUE(finding->energy_saving);
  // 4 of the 6 FMA-pipe instructions (FMUL, FADD, 4 FFMA) go: saving = 1 nJ × FMA issues × 4/6;
  // total = that pipe + 1 GB × 10 pJ.
  double fma = counts[EnergyTerm::kFmaPipe] * 1e-9;
  double total = fma + counts[EnergyTerm::kDramBytes] * 1e-11;
  EXPECT_NEAR(finding->energy_saving->joules, fma * 4 / 6, fma * 1e-9);
  EXPECT_NEAR(finding->energy_saving->fraction, fma * 4 / 6 / total, 1e-9);
  EXPECT_NE(finding->title.find("fast intrinsics"), std::string::npos) << finding->title;
  EXPECT_FALSE(finding->recommendations.empty());
}

TEST(HiddenComputeEnergy, NothingWithoutATableOrWhenMemoryDoesNotSetTheTime) {
  EXPECT_FALSE(Scenario(85).Run(/*with_table=*/false));
  EXPECT_FALSE(Scenario(30).Run());                      // the SM (40%) is ahead of memory
  EXPECT_FALSE(Scenario(85, /*fma_percent=*/70).Run());  // a busy pipe: removing work would change the time
  Scenario no_division(85);
  no_division.sass.instructions.erase(no_division.sass.instructions.begin() + 5);  // the FCHK
  EXPECT_FALSE(no_division.Run());
}

// The blind set's sigmoid with __expf/__fdividef: DRAM-bound, but nothing to make cheaper.
TEST(HiddenComputeEnergy, FastIntrinsicsAlreadyUsedFindNothing) {
  static const EnergyCoefficients table = FmaHeavyTable();
  DiagnoseOptions options;
  options.energy_coefficients = &table;
  Diagnosis diagnosis = Diagnose(LoadFixtureFrom("h200_blind", "healthy_fast_sigmoid"), options);
  ASSERT_FALSE(diagnosis.kernels.empty());
  EXPECT_EQ(FindFinding(diagnosis.kernels.front(), "hidden_compute_energy"), nullptr)
      << DescribeFindings(diagnosis.kernels.front());
}

// The H200 swish (tests/fixtures/h200_energy): x / (1 + expf(-x)) with IEEE division and the accurate
// expf (215 µs under ncu, latency-bound at 50% memory throughput) against __fdividef/__expf (206 µs):
// the finding on the first only, with this table about 4% of the predicted energy.
TEST(HiddenComputeEnergy, TheMeasuredSwishWithIeeeDivisionAndExpf) {
  DiagnoseOptions options;
  options.energy_coefficients = &PlausibleTestEnergyTable();
  Diagnosis ieee = Diagnose(LoadFixtureFrom("h200_energy", "swish_ieee"), options);
  ASSERT_FALSE(ieee.kernels.empty());
  const Finding* finding = FindFinding(ieee.kernels.front(), "hidden_compute_energy");
  ASSERT_NE(finding, nullptr) << DescribeFindings(ieee.kernels.front());
  EXPECT_EQ(finding->estimated_gain, 0);
  EXPECT_EQ(finding->severity, Severity::kInfo);
  ASSERT_TRUE(finding->energy_saving);
  EXPECT_GT(finding->energy_saving->fraction, 0.03);
  EXPECT_LT(finding->energy_saving->fraction, 0.1);
  Diagnosis fast = Diagnose(LoadFixtureFrom("h200_energy", "swish_fast"), options);
  ASSERT_FALSE(fast.kernels.empty());
  EXPECT_EQ(FindFinding(fast.kernels.front(), "hidden_compute_energy"), nullptr)
      << DescribeFindings(fast.kernels.front());
}

}  // namespace
}  // namespace kopt
