#include "agents/programmer_prompts.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/text.h"

namespace kopt::agents {
namespace {

const std::string kPrompts = std::string(KOPT_FIXTURE_DIR) + "/../../prompts";

ProgrammerTask SoftmaxTask() {
  ProgrammerTask task;
  task.name = "softmax";
  task.entry_point = "softmax";
  task.entry_signature =
      "extern \"C\" void softmax(const float* x, float* y, int rows, int cols, cudaStream_t stream);";
  task.task_toml = "name = \"softmax\"\nentry = \"softmax\"\n";
  task.reference_source = "// REFERENCE BODY {{not a placeholder}}\n";
  task.architecture = "sm_90a";
  return task;
}

std::vector<std::string> Ids(const ProgrammerRequest& request) {
  std::vector<std::string> ids;
  for (const PromptRecord& record : request.prompts) ids.push_back(record.id);
  return ids;
}

TEST(ProgrammerPrompts, GenerateCarriesTaskReferenceAndContract) {
  auto built = BuildGenerateRequest(kPrompts, SoftmaxTask());
  ASSERT_TRUE(built.ok()) << built.status().message();
  const llm::ChatRequest& request = built->request;
  EXPECT_EQ(request.purpose, "generate");
  ASSERT_EQ(request.messages.size(), 1u);
  EXPECT_EQ(request.messages[0].role, llm::Role::kUser);
  const std::string& user = request.messages[0].content;
  EXPECT_TRUE(Contains(user, "name = \"softmax\"")) << user;
  EXPECT_TRUE(Contains(user, "// REFERENCE BODY {{not a placeholder}}")) << user;
  EXPECT_TRUE(Contains(user, "cudaStream_t stream);"));
  // The contract's rules are in the system prompt, with the signature and architecture.
  EXPECT_TRUE(Contains(request.system_prompt, "extern \"C\" void softmax(const float* x"))
      << request.system_prompt;
  EXPECT_TRUE(Contains(request.system_prompt, "sm_90a"));
  EXPECT_TRUE(Contains(request.system_prompt, "cudaDeviceSynchronize"));
  EXPECT_TRUE(Contains(request.system_prompt, "whole `.cu` file"));
  EXPECT_EQ(Ids(*built),
            (std::vector<std::string>{"programmer/generate_system", "programmer/contract",
                                      "programmer/reference_source", "programmer/generate_user"}));
  EXPECT_FALSE(Contains(user, "KernelBench"));
  for (const PromptRecord& record : built->prompts) {
    EXPECT_GE(record.version, 1);
    EXPECT_EQ(record.template_sha256.size(), 64u);
    EXPECT_EQ(record.text_sha256.size(), 64u);
  }
  EXPECT_EQ(built->prompts.back().text_sha256, Sha256Hex(user));
}

ProgrammerTask KernelBenchTask() {
  ProgrammerTask task = SoftmaxTask();
  task.name = "kb_level1_19_ReLU";
  task.entry_point = "model_forward";
  task.entry_signature = "extern \"C\" void model_forward(const float* x, float* out, cudaStream_t stream);";
  task.reference_source = "// THE BRIDGE TO PYTORCH\n";
  KernelBenchStatement problem;
  problem.problem = "19_ReLU";
  problem.level = 1;
  problem.source = "class Model(nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n";
  problem.argument_lines = {"`x` f32 [16, 16384]: get_inputs()[0], forward's argument 0",
                            "`out` f32 [16, 16384]: forward's result, written by the entry point"};
  problem.init_inputs = "[]";
  task.kernelbench = problem;
  return task;
}

// Every mode shows an imported problem as KernelBench states it; the bridge is never sent.
TEST(ProgrammerPrompts, KernelBenchProblemInEveryMode) {
  auto generate = BuildGenerateRequest(kPrompts, KernelBenchTask());
  ASSERT_TRUE(generate.ok()) << generate.status().message();
  RepairInput repair_input;
  repair_input.previous_source = "// candidate\n";
  repair_input.compiler_output = "error";
  auto repair = BuildRepairRequest(kPrompts, KernelBenchTask(), repair_input);
  ASSERT_TRUE(repair.ok()) << repair.status().message();
  OptimizeInput optimize_input;
  optimize_input.previous_source = "// candidate\n";
  auto optimize = BuildOptimizeRequest(kPrompts, KernelBenchTask(), optimize_input);
  ASSERT_TRUE(optimize.ok()) << optimize.status().message();
  for (const ProgrammerRequest* built : {&*generate, &*repair, &*optimize}) {
    const std::string& user = built->request.messages[0].content;
    EXPECT_TRUE(Contains(user, "KernelBench problem `19_ReLU` (level 1)")) << user;
    EXPECT_TRUE(Contains(user, "```python\nclass Model(nn.Module):\n    def forward(self, x):")) << user;
    EXPECT_TRUE(Contains(user, "- `x` f32 [16, 16384]: get_inputs()[0], forward's argument 0\n- `out`"))
        << user;
    EXPECT_TRUE(Contains(user, "`get_init_inputs()` returns []."));
    EXPECT_TRUE(Contains(user, "The arguments of `extern \"C\" void model_forward(")) << user;
    EXPECT_FALSE(Contains(user, "THE BRIDGE TO PYTORCH")) << user;
    std::vector<std::string> ids = Ids(*built);
    EXPECT_NE(std::find(ids.begin(), ids.end(), "programmer/kernelbench_problem"), ids.end());
    EXPECT_EQ(built->prompts.back().text_sha256, Sha256Hex(user));
  }
}

// A native task's repair and optimize prompts carry no problem section.
TEST(ProgrammerPrompts, NativeTaskHasNoProblemSection) {
  OptimizeInput input;
  input.previous_source = "// candidate\n";
  auto built = BuildOptimizeRequest(kPrompts, SoftmaxTask(), input);
  ASSERT_TRUE(built.ok()) << built.status().message();
  const std::string& user = built->request.messages[0].content;
  EXPECT_TRUE(Contains(user, "```\n\nThe current implementation (correct):")) << user;
  EXPECT_FALSE(Contains(user, "KernelBench"));
}

TEST(ProgrammerPrompts, RepairWithCompilerOutputVerbatim) {
  RepairInput input;
  input.previous_source = "__global__ void broken( {\n";
  input.compiler_output = "candidate.cu(1): error: expected a \")\"\n  {{weird}} text";
  auto built = BuildRepairRequest(kPrompts, SoftmaxTask(), input);
  ASSERT_TRUE(built.ok()) << built.status().message();
  EXPECT_EQ(built->request.purpose, "repair");
  const std::string& user = built->request.messages[0].content;
  EXPECT_TRUE(Contains(user, *input.compiler_output)) << user;
  EXPECT_TRUE(Contains(user, input.previous_source));
  EXPECT_TRUE(Contains(user, "did not compile"));
}

TEST(ProgrammerPrompts, RepairWithCorrectnessFailure) {
  RepairInput input;
  input.previous_source = "// candidate\n";
  input.correctness_failure =
      CorrectnessFailure{"wrong_output", "y differs from the reference", 0.25, 1.5, 4096};
  auto built = BuildRepairRequest(kPrompts, SoftmaxTask(), input);
  ASSERT_TRUE(built.ok()) << built.status().message();
  const std::string& user = built->request.messages[0].content;
  EXPECT_TRUE(Contains(user, "`wrong_output`: y differs from the reference")) << user;
  EXPECT_TRUE(Contains(user, "max absolute error: 0.25"));
  EXPECT_TRUE(Contains(user, "max relative error: 1.5"));
  EXPECT_TRUE(Contains(user, "mismatched elements: 4096"));
}

TEST(ProgrammerPrompts, RepairNeedsExactlyOneFailure) {
  RepairInput neither;
  neither.previous_source = "x";
  EXPECT_FALSE(BuildRepairRequest(kPrompts, SoftmaxTask(), neither).ok());
  RepairInput both = neither;
  both.compiler_output = "e";
  both.correctness_failure = CorrectnessFailure{"crash", "m", {}, {}, {}};
  EXPECT_FALSE(BuildRepairRequest(kPrompts, SoftmaxTask(), both).ok());
}

TEST(ProgrammerPrompts, OptimizeCarriesFeedbackTimingAndNotes) {
  OptimizeInput input;
  input.previous_source = "// current\n";
  input.feedback_text = "kernel softmax: memory-bound, 41.2% of DRAM peak\n- uncoalesced_loads ...";
  input.reference_time_seconds = 200e-6;
  input.previous_time_seconds = 50e-6;
  input.best_time_seconds = 40e-6;
  input.memory_notes = {"tried shared-memory tiling: 1.1x, kept", "tried float4 loads: wrong_output"};
  auto built = BuildOptimizeRequest(kPrompts, SoftmaxTask(), input);
  ASSERT_TRUE(built.ok()) << built.status().message();
  EXPECT_EQ(built->request.purpose, "optimize");
  const std::string& user = built->request.messages[0].content;
  EXPECT_TRUE(Contains(user, input.feedback_text)) << user;
  EXPECT_TRUE(Contains(user, "- reference: 200 µs"));
  EXPECT_TRUE(Contains(user, "- current implementation: 50 µs (speedup 4x over the reference)")) << user;
  EXPECT_TRUE(Contains(user, "- best so far: 40 µs (speedup 5x over the reference)"));
  EXPECT_TRUE(Contains(user, "- tried shared-memory tiling: 1.1x, kept\n- tried float4 loads: wrong_output"));
  EXPECT_EQ(Ids(*built).back(), "programmer/optimize_user");
}

TEST(ProgrammerPrompts, OptimizeWithoutMeasurementsSaysSo) {
  OptimizeInput input;
  input.previous_source = "// current\n";
  auto built = BuildOptimizeRequest(kPrompts, SoftmaxTask(), input);
  ASSERT_TRUE(built.ok()) << built.status().message();
  const std::string& user = built->request.messages[0].content;
  EXPECT_TRUE(Contains(user, "no measurements yet"));
  EXPECT_TRUE(Contains(user, "none yet"));
  EXPECT_TRUE(Contains(user, "(no analysis available)"));
}

TEST(ProgrammerPrompts, ErrorsAreData) {
  ProgrammerTask no_entry = SoftmaxTask();
  no_entry.entry_signature.clear();
  EXPECT_FALSE(BuildGenerateRequest(kPrompts, no_entry).ok());
  auto missing_directory = BuildGenerateRequest("/nonexistent/prompts", SoftmaxTask());
  ASSERT_FALSE(missing_directory.ok());
  EXPECT_NE(missing_directory.status().message().find("/nonexistent/prompts"), std::string::npos);
}

}  // namespace
}  // namespace kopt::agents
