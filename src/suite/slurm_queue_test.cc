#include "suite/slurm_queue.h"

#include <gtest/gtest.h>

namespace kopt::suite {
namespace {

TEST(SlurmQueueTest, SqueueLinesOfArrayTasksSkippingRangesAndSteps) {
  auto tasks = ParseSqueueOutput(
      "12_[2-3]|PENDING|Resources|\n"
      "12_0|RUNNING|None|gpu-node7\n"
      "12_1|PENDING|Priority|(null)\n"
      "12_1.batch|RUNNING|None|gpu-node7\n");
  ASSERT_TRUE(tasks.ok()) << tasks.status().message();
  ASSERT_EQ(tasks->size(), 2u);
  EXPECT_EQ((*tasks)[0].array_job_id, "12");
  EXPECT_EQ((*tasks)[0].task_index, 0);
  EXPECT_EQ((*tasks)[0].state, "RUNNING");
  EXPECT_EQ((*tasks)[0].nodes, "gpu-node7");
  EXPECT_EQ((*tasks)[1].task_index, 1);
  EXPECT_EQ((*tasks)[1].reason, "Priority");
  EXPECT_EQ((*tasks)[1].nodes, "");
  EXPECT_FALSE((*tasks)[1].exit_code.has_value());
}

TEST(SlurmQueueTest, SqueueLineWithMissingFieldsNamesTheLine) {
  auto tasks = ParseSqueueOutput("12_0|RUNNING|None|n1\n12_1|RUNNING\n");
  ASSERT_FALSE(tasks.ok());
  EXPECT_NE(tasks.status().message().find("line 2"), std::string::npos) << tasks.status().message();
}

TEST(SlurmQueueTest, SacctExitCodeSignalAndCancelledBy) {
  auto tasks = ParseSacctOutput(
      "40_3|CANCELLED by 0|0:15|n2\n"
      "40_3.batch|CANCELLED|0:15|n2\n"
      "40_4|FAILED|2:0|n3\n"
      "40_5|NODE_FAIL|0:0|None assigned\n");
  ASSERT_TRUE(tasks.ok()) << tasks.status().message();
  ASSERT_EQ(tasks->size(), 3u);
  EXPECT_EQ((*tasks)[0].state, "CANCELLED");
  EXPECT_EQ((*tasks)[0].exit_signal, 15);
  EXPECT_EQ((*tasks)[1].exit_code, 2);
  EXPECT_FALSE((*tasks)[1].exit_signal.has_value());
  EXPECT_EQ((*tasks)[2].state, "NODE_FAIL");
  EXPECT_EQ((*tasks)[2].nodes, "");
}

TEST(SlurmQueueTest, PhasesOfSlurmStates) {
  EXPECT_EQ(PhaseOfSlurmState("PENDING"), SlurmTaskPhase::kWaiting);
  EXPECT_EQ(PhaseOfSlurmState("REQUEUED"), SlurmTaskPhase::kWaiting);
  EXPECT_EQ(PhaseOfSlurmState("RUNNING"), SlurmTaskPhase::kRunning);
  EXPECT_EQ(PhaseOfSlurmState("COMPLETING"), SlurmTaskPhase::kRunning);
  EXPECT_EQ(PhaseOfSlurmState("PREEMPTED"), SlurmTaskPhase::kEnded);
  EXPECT_EQ(PhaseOfSlurmState("TIMEOUT"), SlurmTaskPhase::kEnded);
}

TEST(SlurmQueueTest, SbatchParsableJobId) {
  EXPECT_EQ(*ParseSbatchJobId("1234\n"), "1234");
  EXPECT_EQ(*ParseSbatchJobId("1234;cluster2\n"), "1234");
  EXPECT_FALSE(ParseSbatchJobId("sbatch: error: Batch job submission failed").ok());
  EXPECT_FALSE(ParseSbatchJobId("").ok());
}

}  // namespace
}  // namespace kopt::suite
