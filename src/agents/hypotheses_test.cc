#include "agents/hypotheses.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/diagnose.h"
#include "analysis/tool.h"
#include "core/text.h"
#include "fixture_reader.h"
#include "profile/ncu_csv.h"

namespace kopt::agents {
namespace {

const std::string kPrompts = std::string(KOPT_FIXTURE_DIR) + "/../../prompts";

// One example kernel with its H200 capture: source, SASS, ptxas, and the real diagnosis.
struct Example {
  std::string source;
  SassListing sass;
  PtxasReport ptxas;
  Diagnosis diagnosis;

  HypothesisInputs Inputs(const std::string& name) const {
    return HypothesisInputs{name + ".cu", source, &sass, &ptxas};
  }
};

Example LoadExample(const std::string& name) {
  Example example;
  example.source = ReadFixture("../../examples/kernels/" + name + ".cu");
  EXPECT_FALSE(example.source.empty()) << name;
  std::string directory = "h200/" + name + "/";
  auto sass = ParseSass(ReadFixture(directory + "sass.txt"), name + "/sass.txt");
  EXPECT_TRUE(sass.ok()) << sass.status().message();
  if (sass.ok()) example.sass = *sass;
  auto ptxas = ParsePtxasReport(ReadFixture(directory + "ptxas.txt"), name + "/ptxas.txt");
  EXPECT_TRUE(ptxas.ok()) << ptxas.status().message();
  if (ptxas.ok()) example.ptxas = *ptxas;
  Profile profile;
  profile.source = name;
  auto launches = ParseNcuRawCsv(ReadFixture(directory + "raw.csv"), name + "/raw.csv");
  EXPECT_TRUE(launches.ok()) << launches.status().message();
  if (launches.ok()) profile.launches = std::move(launches).value();
  profile.sass = example.sass;
  profile.ptxas = example.ptxas;
  example.diagnosis = Diagnose(profile, DiagnoseOptions{});
  return example;
}

const Hypothesis* FindHypothesis(const std::vector<Hypothesis>& hypotheses, const std::string& id) {
  auto found =
      std::find_if(hypotheses.begin(), hypotheses.end(), [&](const Hypothesis& h) { return h.id == id; });
  return found == hypotheses.end() ? nullptr : &*found;
}

std::string Describe(const std::vector<CheckedHypothesis>& checked) {
  std::string text;
  for (const CheckedHypothesis& entry : checked) {
    text += entry.hypothesis.id + " [" + entry.hypothesis.kernel + "] " +
            std::string(HypothesisVerdictName(entry.verdict)) + ": " + entry.explanation + "\n";
  }
  return text;
}

struct ExpectedPrediction {
  const char* kernel;
  const char* hypothesis;
  const char* finding;  // the finding that confirms it in the real diagnosis
};

class ExampleKernelHypotheses : public ::testing::TestWithParam<ExpectedPrediction> {};

TEST_P(ExampleKernelHypotheses, PredictionIsConfirmedByTheRealDiagnosis) {
  const ExpectedPrediction& expected = GetParam();
  Example example = LoadExample(expected.kernel);
  std::vector<Hypothesis> hypotheses = PredictStaticHypotheses(example.Inputs(expected.kernel));
  const Hypothesis* hypothesis = FindHypothesis(hypotheses, expected.hypothesis);
  ASSERT_NE(hypothesis, nullptr) << "no " << expected.hypothesis << " among "
                                 << Describe(CheckHypotheses(hypotheses, example.diagnosis));
  EXPECT_EQ(hypothesis->kernel, expected.kernel);
  EXPECT_EQ(hypothesis->origin, HypothesisOrigin::kStatic);
  EXPECT_FALSE(hypothesis->reason.empty());
  std::vector<CheckedHypothesis> checked = CheckHypotheses({*hypothesis}, example.diagnosis);
  ASSERT_EQ(checked.size(), 1u);
  EXPECT_EQ(checked[0].verdict, HypothesisVerdict::kConfirmed) << Describe(checked);
  EXPECT_EQ(checked[0].finding, expected.finding) << Describe(checked);
  EXPECT_FALSE(checked[0].evidence.empty());
}

INSTANTIATE_TEST_SUITE_P(
    H200, ExampleKernelHypotheses,
    ::testing::Values(
        ExpectedPrediction{"uncoalesced_loads", "strided_global_loads", "uncoalesced_loads"},
        ExpectedPrediction{"uncoalesced_stores", "strided_global_stores", "uncoalesced_stores"},
        ExpectedPrediction{"shared_bank_conflicts", "shared_column_access", "shared_bank_conflicts"},
        ExpectedPrediction{"atomic_contention", "contended_atomics", "atomic_contention"},
        ExpectedPrediction{"accidental_fp64", "fp64_arithmetic", "accidental_fp64"},
        ExpectedPrediction{"local_memory_spills", "local_memory", "local_memory_spills"},
        ExpectedPrediction{"low_occupancy_registers", "register_limited_occupancy",
                           "low_occupancy_registers"},
        ExpectedPrediction{"mufu_division_pressure", "transcendentals_in_loop", "mufu_division_pressure"},
        ExpectedPrediction{"warp_divergence", "lane_divergent_branch", "warp_divergence"},
        ExpectedPrediction{"fp32_gemm_no_tensor_cores", "gemm_without_tensor_cores",
                           "fp32_gemm_no_tensor_cores"},
        ExpectedPrediction{"barrier_stalls", "syncthreads_in_loop", "barrier_stalls"},
        ExpectedPrediction{"int64_index_arithmetic", "runtime_integer_division", "int64_index_arithmetic"}),
    [](const ::testing::TestParamInfo<ExpectedPrediction>& info) { return std::string(info.param.kernel); });

TEST(Hypotheses, UncoalescedPredictionPointsAtTheGatherLine) {
  Example example = LoadExample("uncoalesced_loads");
  std::vector<Hypothesis> hypotheses = PredictStaticHypotheses(example.Inputs("uncoalesced_loads"));
  const Hypothesis* strided = FindHypothesis(hypotheses, "strided_global_loads");
  ASSERT_NE(strided, nullptr);
  ASSERT_EQ(strided->source_lines.size(), 1u);
  std::vector<std::string_view> lines = SplitLines(example.source);
  EXPECT_NE(lines[strided->source_lines[0] - 1].find("in[(i * 33u) & mask]"), std::string_view::npos);
  EXPECT_NE(strided->reason.find("uncoalesced_loads.cu:"), std::string::npos) << strided->reason;
  // The store out[i] is contiguous: no store prediction.
  EXPECT_EQ(FindHypothesis(hypotheses, "strided_global_stores"), nullptr);
}

TEST(Hypotheses, HealthyKernelsPredictionsAreRefutedOrAbsent) {
  for (const char* name : {"healthy_dram_copy", "healthy_fp32_fma"}) {
    Example example = LoadExample(name);
    std::vector<CheckedHypothesis> checked =
        CheckHypotheses(PredictStaticHypotheses(example.Inputs(name)), example.diagnosis);
    for (const CheckedHypothesis& entry : checked) {
      EXPECT_EQ(entry.verdict, HypothesisVerdict::kRefuted) << name << ": " << Describe(checked);
      EXPECT_FALSE(entry.evidence.empty());
    }
  }
}

TEST(Hypotheses, HealthyCopyHasNoStridedOrScalarPrediction) {
  Example example = LoadExample("healthy_dram_copy");
  std::vector<Hypothesis> hypotheses = PredictStaticHypotheses(example.Inputs("healthy_dram_copy"));
  EXPECT_EQ(FindHypothesis(hypotheses, "strided_global_loads"), nullptr);
  EXPECT_EQ(FindHypothesis(hypotheses, "scalar_global_loads"), nullptr);  // float4: LDG.128
}

std::vector<Hypothesis> PredictFromSource(const std::string& source) {
  return PredictStaticHypotheses(HypothesisInputs{"k.cu", source, nullptr, nullptr});
}

TEST(StaticHypotheses, SourcePatterns) {
  std::string source =
      "#define N 32\n"
      "__global__ void k(const float* a, float* c, int n, int cols) {\n"
      "  __shared__ float tile[N][N];\n"
      "  __shared__ float padded[32][33];\n"
      "  int row = blockIdx.x * blockDim.x + threadIdx.x;  // lane-varying\n"
      "  int warp = threadIdx.x / 32;\n"
      "  if (row < n) c[row] = a[row * cols];\n"  // line 7: strided load, bounds check not divergence
      "  float s = tile[threadIdx.x][0] + padded[threadIdx.x][0];\n"         // line 8: only tile conflicts
      "  for (int k = 0; k < n; ++k) { s += a[k] / s; __syncthreads(); }\n"  // line 9: float division
      "  if (warp == 3) s += 1;\n"                    // line 10: per-warp branch: not divergent
      "  if (threadIdx.x % 2) s *= 2;\n"              // line 11: divergent
      "  // c[row * 4] = a[row * 8]; in a comment\n"  // line 12
      "  c[row] = s * 0.5;\n"                         // line 13: double literal
      "}\n";
  std::vector<Hypothesis> hypotheses = PredictFromSource(source);
  auto lines_of = [&](const char* id) {
    const Hypothesis* hypothesis = FindHypothesis(hypotheses, id);
    return hypothesis ? hypothesis->source_lines : std::vector<int>{-1};
  };
  EXPECT_EQ(lines_of("strided_global_loads"), std::vector<int>{7});
  EXPECT_EQ(lines_of("shared_column_access"), std::vector<int>{8});
  EXPECT_EQ(lines_of("syncthreads_in_loop"), std::vector<int>{9});
  EXPECT_EQ(lines_of("lane_divergent_branch"), std::vector<int>{11});
  EXPECT_EQ(lines_of("fp64_arithmetic"), std::vector<int>{13});
  EXPECT_EQ(lines_of("transcendentals_in_loop"), std::vector<int>{9});
  EXPECT_EQ(FindHypothesis(hypotheses, "runtime_integer_division"), nullptr);
  EXPECT_EQ(FindHypothesis(hypotheses, "strided_global_stores"), nullptr);
  for (const Hypothesis& hypothesis : hypotheses) EXPECT_EQ(hypothesis.kernel, "k");
}

TEST(StaticHypotheses, CompilerFactsWithoutSource) {
  auto ptxas = ParsePtxasReport(
      "ptxas info    : Compiling entry function '_Z3fooPf' for 'sm_90a'\n"
      "ptxas info    : Function properties for _Z3fooPf\n"
      "    16 bytes stack frame, 16 bytes spill stores, 16 bytes spill loads\n"
      "ptxas info    : Used 200 registers, used 0 barriers\n",
      "ptxas.txt");
  ASSERT_TRUE(ptxas.ok()) << ptxas.status().message();
  std::vector<Hypothesis> hypotheses = PredictStaticHypotheses(HypothesisInputs{"", "", nullptr, &*ptxas});
  const Hypothesis* local = FindHypothesis(hypotheses, "local_memory");
  ASSERT_NE(local, nullptr);
  EXPECT_EQ(local->kernel, "foo");
  EXPECT_NE(local->reason.find("16 bytes spill stores"), std::string::npos);
  const Hypothesis* registers = FindHypothesis(hypotheses, "register_limited_occupancy");
  ASSERT_NE(registers, nullptr);
  EXPECT_NE(registers->reason.find("200 registers"), std::string::npos) << registers->reason;
  EXPECT_NE(registers->reason.find("at most 10 warps"), std::string::npos) << registers->reason;
}

KernelDiagnosis SyntheticKernel() {
  KernelDiagnosis kernel;
  kernel.function_name = "k";
  kernel.roofline.bottleneck = BottleneckClass::kComputeBound;
  kernel.roofline.compute_percent_of_peak = 85;
  kernel.roofline.memory_percent_of_peak = 12;
  kernel.roofline.duration_ns = 5000;
  return kernel;
}

Hypothesis StridedHypothesis() {
  Hypothesis hypothesis;
  hypothesis.id = "strided_global_loads";
  hypothesis.kernel = "k";
  hypothesis.confirming_findings = {"uncoalesced_loads"};
  return hypothesis;
}

TEST(CheckHypothesis, RefutedCitesStageOneNumbers) {
  CheckedHypothesis checked = CheckHypothesis(StridedHypothesis(), SyntheticKernel());
  EXPECT_EQ(checked.verdict, HypothesisVerdict::kRefuted);
  EXPECT_NE(checked.explanation.find("uncoalesced_loads ran and did not fire"), std::string::npos);
  EXPECT_NE(checked.explanation.find("compute-bound"), std::string::npos) << checked.explanation;
  EXPECT_NE(checked.explanation.find("85.0%"), std::string::npos) << checked.explanation;
  ASSERT_FALSE(checked.evidence.empty());
  EXPECT_EQ(checked.evidence[0].unit, "%");
}

// Times and large counts read in human units, never "8.38e+05 ns" (issue 35).
TEST(CheckHypothesis, NumbersUseHumanUnits) {
  KernelDiagnosis kernel = SyntheticKernel();
  kernel.roofline.duration_ns = 838000;
  CheckedHypothesis refuted = CheckHypothesis(StridedHypothesis(), kernel);
  EXPECT_NE(refuted.explanation.find("838 µs"), std::string::npos) << refuted.explanation;
  EXPECT_EQ(refuted.explanation.find("e+"), std::string::npos) << refuted.explanation;

  Finding finding;
  finding.tool = "uncoalesced_loads";
  finding.evidence = {Evidence{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 6.711e7, "sector", "", 0}};
  kernel.findings = {finding};
  CheckedHypothesis confirmed = CheckHypothesis(StridedHypothesis(), kernel);
  EXPECT_NE(confirmed.explanation.find("67.1 Msector"), std::string::npos) << confirmed.explanation;
  EXPECT_EQ(confirmed.explanation.find("e+"), std::string::npos) << confirmed.explanation;
}

TEST(CheckHypothesis, UndecidedWhenTheToolWasSkipped) {
  KernelDiagnosis kernel = SyntheticKernel();
  kernel.roofline.bottleneck = BottleneckClass::kMixed;  // stage 1 does not contradict
  kernel.skipped_tools.push_back(
      SkippedTool{"uncoalesced_loads", {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"}, "ncu --set full"});
  CheckedHypothesis checked = CheckHypothesis(StridedHypothesis(), kernel);
  EXPECT_EQ(checked.verdict, HypothesisVerdict::kUndecided);
  EXPECT_NE(checked.explanation.find("ncu --set full"), std::string::npos) << checked.explanation;
}

TEST(CheckHypothesis, SkippedToolButStageOneContradicts) {
  KernelDiagnosis kernel = SyntheticKernel();  // compute-bound, memory at 12% of peak
  kernel.skipped_tools.push_back(SkippedTool{"uncoalesced_loads", {"a metric"}, "ncu --set full"});
  CheckedHypothesis checked = CheckHypothesis(StridedHypothesis(), kernel);
  EXPECT_EQ(checked.verdict, HypothesisVerdict::kRefuted);
  EXPECT_NE(checked.explanation.find("memory side is at 12.0% of peak"), std::string::npos)
      << checked.explanation;
  EXPECT_FALSE(checked.evidence.empty());

  // A compute-side hypothesis on the same kernel stays undecided.
  Hypothesis fp64 = StridedHypothesis();
  fp64.confirming_findings = {"accidental_fp64"};
  kernel.skipped_tools.push_back(SkippedTool{"accidental_fp64", {"SASS listing"}, "pass --sass FILE"});
  EXPECT_EQ(CheckHypothesis(fp64, kernel).verdict, HypothesisVerdict::kUndecided);
}

TEST(CheckHypothesis, ConfirmedDirectlyOrThroughAMergedFinding) {
  KernelDiagnosis kernel = SyntheticKernel();
  Finding finding;
  finding.tool = "local_memory_spills";
  finding.merged_tools = {"uncoalesced_loads"};
  finding.evidence.push_back(Evidence{"sectors per request", 32, "sector/request", ">=", 8});
  kernel.findings.push_back(finding);
  CheckedHypothesis checked = CheckHypothesis(StridedHypothesis(), kernel);
  EXPECT_EQ(checked.verdict, HypothesisVerdict::kConfirmed);
  EXPECT_EQ(checked.finding, "local_memory_spills");
  EXPECT_NE(checked.explanation.find("merged"), std::string::npos);
  EXPECT_NE(checked.explanation.find("sectors per request = 32 sector/request (>= 8 sector/request)"),
            std::string::npos)
      << checked.explanation;
}

TEST(CheckHypotheses, UnknownKernelAndUnknownFindingAreUndecided) {
  Diagnosis diagnosis;
  diagnosis.kernels.push_back(SyntheticKernel());
  Hypothesis other = StridedHypothesis();
  other.kernel = "not_profiled";
  Hypothesis unknown = StridedHypothesis();
  unknown.confirming_findings = {"no_such_finding"};
  std::vector<CheckedHypothesis> checked = CheckHypotheses({other, unknown}, diagnosis);
  ASSERT_EQ(checked.size(), 2u);
  EXPECT_EQ(checked[0].verdict, HypothesisVerdict::kUndecided);
  EXPECT_NE(checked[0].explanation.find("not_profiled"), std::string::npos);
  EXPECT_EQ(checked[1].verdict, HypothesisVerdict::kUndecided);
  EXPECT_NE(checked[1].explanation.find("no_such_finding"), std::string::npos);
}

TEST(CheckHypotheses, TemplatedKernelMatchesItsSourceName) {
  Diagnosis diagnosis;
  diagnosis.kernels.push_back(SyntheticKernel());
  diagnosis.kernels[0].function_name = "ns::k<128>";
  std::vector<CheckedHypothesis> checked = CheckHypotheses({StridedHypothesis()}, diagnosis);
  EXPECT_EQ(checked[0].verdict, HypothesisVerdict::kRefuted) << checked[0].explanation;
}

// A ChatClient that returns a fixed answer (or error) and keeps the request.
class FakeChatClient : public llm::ChatClient {
 public:
  explicit FakeChatClient(Result<llm::ChatResponse> answer) : answer_(std::move(answer)) {}
  Result<llm::ChatResponse> Complete(const llm::ChatRequest& request) override {
    requests.push_back(request);
    return answer_;
  }
  std::vector<llm::ChatRequest> requests;

 private:
  Result<llm::ChatResponse> answer_;
};

llm::ChatResponse Answer(const std::string& content) {
  llm::ChatResponse response;
  response.choices.push_back(llm::ChatChoice{content, "stop"});
  return response;
}

const std::string kStridedSource =
    "__global__ void k(const float* a, float* c, int s) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  c[i] = a[i * s];\n"
    "}\n";

TEST(LlmHypotheses, ParsedAndAppendedAfterTheStaticOnes) {
  FakeChatClient client(Answer(
      "Here are my predictions:\n```json\n[{\"kernel\": \"k\", \"findings\": [\"memory_latency_low_mlp\", "
      "\"made_up\"], \"lines\": [3], \"title\": \"Low MLP\", \"reason\": \"one load per thread\"},\n"
      " {\"findings\": [\"bogus\"]}]\n```\n"));
  HypothesisInputs inputs{"k.cu", kStridedSource, nullptr, nullptr};
  HypothesisSet set = PredictHypotheses(inputs, &client, kPrompts);
  ASSERT_EQ(client.requests.size(), 1u);
  EXPECT_EQ(client.requests[0].purpose, "hypotheses");
  EXPECT_NE(client.requests[0].system_prompt.find("uncoalesced_loads"), std::string::npos);
  EXPECT_NE(client.requests[0].messages[0].content.find("   3 |   c[i] = a[i * s];"), std::string::npos)
      << client.requests[0].messages[0].content;
  EXPECT_NE(client.requests[0].messages[0].content.find("Strided or column-wise global loads"),
            std::string::npos);
  EXPECT_EQ(set.prompts.size(), 2u);
  EXPECT_TRUE(set.llm_attempted);
  ASSERT_GE(set.hypotheses.size(), 2u);
  EXPECT_EQ(set.hypotheses.front().id, "strided_global_loads");
  const Hypothesis& llm = set.hypotheses.back();
  EXPECT_EQ(llm.origin, HypothesisOrigin::kLlm);
  EXPECT_EQ(llm.id, "llm_1");
  EXPECT_EQ(llm.confirming_findings, std::vector<std::string>{"memory_latency_low_mlp"});
  EXPECT_EQ(llm.source_lines, std::vector<int>{3});
  ASSERT_TRUE(set.llm_error.has_value());
  EXPECT_NE(set.llm_error->find("bogus"), std::string::npos) << *set.llm_error;
}

TEST(LlmHypotheses, InvalidJsonKeepsTheStaticPass) {
  FakeChatClient client(Answer("[{\"findings\": [\"uncoalesced_loads\"], "));
  HypothesisSet set =
      PredictHypotheses(HypothesisInputs{"k.cu", kStridedSource, nullptr, nullptr}, &client, kPrompts);
  ASSERT_TRUE(set.llm_error.has_value());
  EXPECT_NE(set.llm_error->find("JSON"), std::string::npos) << *set.llm_error;
  ASSERT_EQ(set.hypotheses.size(), 1u);
  EXPECT_EQ(set.hypotheses[0].id, "strided_global_loads");
}

TEST(LlmHypotheses, TransportErrorAndEmptyAnswerAreReported) {
  FakeChatClient failing(Result<llm::ChatResponse>(Unavailable("http://localhost:1: connection refused")));
  HypothesisSet failed =
      PredictHypotheses(HypothesisInputs{"k.cu", kStridedSource, nullptr, nullptr}, &failing, kPrompts);
  ASSERT_TRUE(failed.llm_error.has_value());
  EXPECT_NE(failed.llm_error->find("connection refused"), std::string::npos);
  EXPECT_EQ(failed.hypotheses.size(), 1u);

  FakeChatClient empty(Answer(""));
  HypothesisSet nothing =
      PredictHypotheses(HypothesisInputs{"k.cu", kStridedSource, nullptr, nullptr}, &empty, kPrompts);
  ASSERT_TRUE(nothing.llm_error.has_value());
  EXPECT_NE(nothing.llm_error->find("empty"), std::string::npos);
}

TEST(LlmHypotheses, WithoutClientOnlyTheStaticPass) {
  HypothesisSet set =
      PredictHypotheses(HypothesisInputs{"k.cu", kStridedSource, nullptr, nullptr}, nullptr, "");
  EXPECT_FALSE(set.llm_attempted);
  EXPECT_FALSE(set.llm_error.has_value());
  EXPECT_EQ(set.hypotheses.size(), 1u);
}

TEST(LlmHypotheses, ParseAcceptsAnObjectWrapperAndRejectsNonArrays) {
  auto wrapped =
      ParseLlmHypotheses("{\"hypotheses\": [{\"findings\": [\"low_occupancy_registers\"]}]}", "k.cu");
  ASSERT_TRUE(wrapped.ok()) << wrapped.status().message();
  ASSERT_EQ(wrapped->hypotheses.size(), 1u);
  EXPECT_EQ(wrapped->hypotheses[0].title, "low_occupancy_registers");
  EXPECT_FALSE(ParseLlmHypotheses("{\"answer\": 42}", "k.cu").ok());
  EXPECT_FALSE(ParseLlmHypotheses("no json here", "k.cu").ok());
  auto empty = ParseLlmHypotheses("[]", "k.cu");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->hypotheses.empty());
}

// A rule naming a finding no tool produces could never be confirmed: every id must exist.
TEST(StaticRules, EveryConfirmingFindingIsProducedByARegisteredTool) {
  std::vector<std::string> ids = StaticRuleConfirmingFindingIds();
  EXPECT_GE(ids.size(), 14u);
  for (const std::string& id : ids) EXPECT_NE(FindToolProducing(id), nullptr) << id;
}

TEST(KnownFindingIds, IncludesToolIdsAndVariants) {
  std::vector<std::string> ids = KnownFindingIds();
  for (const char* id :
       {"uncoalesced_loads", "shared_bank_conflicts", "low_occupancy_registers", "accidental_fp64"}) {
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
  }
  EXPECT_EQ(std::find(ids.begin(), ids.end(), "low_occupancy"), ids.end());
  EXPECT_EQ(std::find(ids.begin(), ids.end(), "healthy"), ids.end());
}

}  // namespace
}  // namespace kopt::agents
