#include "agents/llm_generator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agents/prompt_template.h"
#include "core/text.h"
#include "fixture_reader.h"

namespace kopt::agents {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Answers every request with the next scripted choice (text, tool calls or an
// error; the last one again once they run out), keeping the requests.
class FakeChat : public llm::ChatClient {
 public:
  explicit FakeChat(std::vector<Result<std::string>> answers) {
    for (Result<std::string>& answer : answers) {
      answers_.push_back(answer.ok() ? Result<llm::ChatChoice>(llm::ChatChoice(*answer, "stop"))
                                     : Result<llm::ChatChoice>(answer.status()));
    }
  }
  explicit FakeChat(std::vector<llm::ChatChoice> choices) {
    for (llm::ChatChoice& choice : choices) answers_.push_back(std::move(choice));
  }
  Result<llm::ChatResponse> Complete(const llm::ChatRequest& request) override {
    requests.push_back(request);
    Result<llm::ChatChoice> answer = answers_.at(std::min(requests.size(), answers_.size()) - 1);
    if (!answer.ok()) return answer.status();
    llm::ChatResponse response;
    response.choices.push_back(*answer);
    response.model = "fake-model";
    response.usage = {1200, 300};
    response.cost_usd = 0.01;
    response.cost_known = true;
    return response;
  }
  std::vector<llm::ChatRequest> requests;

 private:
  std::vector<Result<llm::ChatChoice>> answers_;
};

ProgrammerTask Task() {
  ProgrammerTask task;
  task.name = "saxpy";
  task.entry_point = "saxpy";
  task.entry_signature =
      "extern \"C\" void saxpy(const float* x, float* y, float a, int n, cudaStream_t stream);";
  task.task_toml = "[task]\nname = \"saxpy\"\n";
  task.reference_source = "// reference\n";
  task.architecture = "sm_90a";
  return task;
}

std::string PromptDirectory() {
  Result<std::string> directory = FindPromptDirectory();
  EXPECT_TRUE(directory.ok());
  return directory.ok() ? *directory : "";
}

TEST(LlmGeneratorTest, AnAnswerWithCodeBecomesTheCandidate) {
  FakeChat chat(
      {std::string("Here:\n```cuda\nextern \"C\" void saxpy(const float* x, float* y, float a, int n, "
                   "cudaStream_t stream) {}\n```\n")});
  LlmGenerator generator(chat, PromptDirectory(), Task());
  GenerationRequest request;
  request.mode = GenerationMode::kOptimize;
  request.parent_source = "// parent\n";
  request.feedback_text = "uncoalesced_access: 8 sectors per request";
  request.memory_notes = {"[helped] float4 loads: 1.4x"};
  Result<GeneratedCandidate> candidate = generator.Generate(request);
  ASSERT_TRUE(candidate.ok()) << candidate.status().message();
  EXPECT_EQ(candidate->outcome, GenerationOutcome::kSource);
  EXPECT_THAT(candidate->source, HasSubstr("void saxpy"));
  EXPECT_EQ(candidate->input_tokens, 1200);
  EXPECT_EQ(candidate->output_tokens, 300);
  EXPECT_FALSE(candidate->prompts.empty());
  ASSERT_EQ(chat.requests.size(), 1u);
  EXPECT_EQ(chat.requests[0].purpose, "optimize");
  EXPECT_THAT(chat.requests[0].messages[0].content, HasSubstr("uncoalesced_access"));
  EXPECT_THAT(chat.requests[0].messages[0].content, HasSubstr("float4 loads"));
}

TEST(LlmGeneratorTest, ARepairCarriesTheCompilerOutput) {
  FakeChat chat({std::string("```cuda\nextern \"C\" void saxpy() {}\n```")});
  LlmGenerator generator(chat, PromptDirectory(), Task());
  GenerationRequest request;
  request.mode = GenerationMode::kRepair;
  request.parent_source = "// broken\n";
  request.compiler_output = "error: identifier \"undefined_thing\" is undefined";
  Result<GeneratedCandidate> candidate = generator.Generate(request);
  ASSERT_TRUE(candidate.ok()) << candidate.status().message();
  EXPECT_EQ(chat.requests[0].purpose, "repair");
  EXPECT_THAT(chat.requests[0].messages[0].content, HasSubstr("undefined_thing"));
}

TEST(LlmGeneratorTest, ProseIsNoCodeAndAnEndpointErrorIsTheStatus) {
  FakeChat chat(
      {std::string("I cannot help with that."), Result<std::string>(Unavailable("connection refused"))});
  LlmGenerator generator(chat, PromptDirectory(), Task());
  GenerationRequest request;
  request.mode = GenerationMode::kInitial;
  Result<GeneratedCandidate> prose = generator.Generate(request);
  ASSERT_TRUE(prose.ok());
  EXPECT_EQ(prose->outcome, GenerationOutcome::kNoCode);
  EXPECT_FALSE(prose->message.empty());
  Result<GeneratedCandidate> down = generator.Generate(request);
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.status().kind(), ErrorKind::kUnavailable);
}

llm::ChatChoice Calls(std::vector<llm::ToolCall> calls) {
  return {"", "tool_calls", std::move(calls)};
}

SourceTree FixtureTree() {
  Result<SourceTree> tree = SourceTree::Open((FixtureDirectory() / "source_tree").string());
  EXPECT_TRUE(tree.ok());
  return std::move(tree).value();
}

constexpr char kCode[] =
    "```cuda\n#include <cute/layout.hpp>\nextern \"C\" void saxpy(const float* x, float* y, float a, int n, "
    "cudaStream_t stream) {}\n```\n";

TEST(LlmGeneratorTest, ToolCallsAreRunAndTheirResultsSentBackUntilTheCode) {
  SourceTree tree = FixtureTree();
  FakeChat chat({Calls({{"c1", "search_source", R"({"query":"make_tiled_copy"})"}}),
                 Calls({{"c2", "read_source",
                         R"({"path":"include/cute/atom/copy_atom.hpp","first_line":12,"line_count":2})"},
                        {"c3", "read_source", R"({"path":"../../etc/passwd"})"}}),
                 {std::string("Using the tiled copy:\n") + kCode, "stop"}});
  LlmGenerator generator(chat, PromptDirectory(), Task(),
                         ProgrammerTools{&tree, "the fixture tree", 6, 65536});
  GenerationRequest request;
  request.mode = GenerationMode::kInitial;
  Result<GeneratedCandidate> candidate = generator.Generate(request);
  ASSERT_TRUE(candidate.ok()) << candidate.status().message();
  EXPECT_EQ(candidate->outcome, GenerationOutcome::kSource);
  EXPECT_THAT(candidate->source, HasSubstr("cute/layout.hpp"));
  EXPECT_EQ(candidate->tool_calls, 3);
  EXPECT_EQ(candidate->input_tokens, 3 * 1200);  // three requests
  EXPECT_EQ(candidate->output_tokens, 3 * 300);
  EXPECT_NEAR(candidate->cost_usd, 0.03, 1e-12);
  EXPECT_THAT(candidate->reason, HasSubstr("3 tool calls"));
  ASSERT_EQ(chat.requests.size(), 3u);
  for (const llm::ChatRequest& sent : chat.requests) {
    ASSERT_EQ(sent.tools.size(), 2u);
    EXPECT_EQ(sent.purpose, "generate");
    EXPECT_THAT(sent.system_prompt, HasSubstr("search_source"));
    EXPECT_THAT(sent.system_prompt, HasSubstr("the fixture tree"));
  }
  EXPECT_EQ(candidate->prompts.back().id, "programmer/tools");
  // Second request: the first answer's call and its result.
  const std::vector<llm::ChatMessage>& second = chat.requests[1].messages;
  ASSERT_EQ(second.size(), 3u);
  EXPECT_EQ(second[1].role, llm::Role::kAssistant);
  EXPECT_EQ(second[1].tool_calls.at(0).id, "c1");
  EXPECT_EQ(second[2].role, llm::Role::kTool);
  EXPECT_EQ(second[2].tool_call_id, "c1");
  EXPECT_THAT(second[2].content,
              HasSubstr("include/cute/atom/copy_atom.hpp:13: CUTE_HOST_DEVICE auto make_tiled_copy("));
  EXPECT_THAT(second[2].content, HasSubstr("examples/cute/sgemm_tiled.cu:7:"));
  // Third: both reads, the one outside the tree refused as an error result.
  const std::vector<llm::ChatMessage>& third = chat.requests[2].messages;
  ASSERT_EQ(third.size(), 6u);
  EXPECT_THAT(third[4].content, HasSubstr("13: CUTE_HOST_DEVICE auto make_tiled_copy("));
  EXPECT_FALSE(third[4].is_error);
  EXPECT_TRUE(third[5].is_error);
  EXPECT_THAT(third[5].content, HasSubstr("not a file of the source tree"));
  // The record of the exchange: one JSON line per call.
  std::vector<std::string> lines;
  for (std::string_view line : SplitLines(candidate->tool_exchange)) lines.emplace_back(line);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(lines[0], HasSubstr(R"("name":"search_source")"));
  EXPECT_THAT(lines[0], HasSubstr(R"("round":1)"));
  EXPECT_THAT(lines[2], HasSubstr(R"("is_error":true)"));
  EXPECT_THAT(lines[2], HasSubstr(R"("round":2)"));
}

TEST(LlmGeneratorTest, ToolRoundsStopAtTheLimitAndAModelThatKeepsCallingGetsNoCode) {
  SourceTree tree = FixtureTree();
  FakeChat chat({Calls({{"c", "search_source", R"({"query":"cute","kind":"name"})"}})});
  ProgrammerTools tools{&tree, "the fixture tree", 2, 65536};
  LlmGenerator generator(chat, PromptDirectory(), Task(), tools);
  GenerationRequest request;
  request.mode = GenerationMode::kInitial;
  Result<GeneratedCandidate> candidate = generator.Generate(request);
  ASSERT_TRUE(candidate.ok()) << candidate.status().message();
  EXPECT_EQ(candidate->outcome, GenerationOutcome::kNoCode);
  EXPECT_THAT(candidate->message, HasSubstr("kept calling tools after the limit (2 rounds"));
  ASSERT_EQ(chat.requests.size(), 4u);  // max_rounds + 2
  const llm::ChatMessage& refused = chat.requests[3].messages.back();
  EXPECT_TRUE(refused.is_error);
  EXPECT_THAT(refused.content, HasSubstr("answer now with the complete kernel"));
  EXPECT_FALSE(chat.requests[2].messages.back().is_error);
  EXPECT_EQ(candidate->tool_calls, 3);
}

TEST(LlmGeneratorTest, TheResultByteBudgetCutsAResultAndThenRefuses) {
  SourceTree tree = FixtureTree();
  FakeChat chat({Calls({{"c1", "read_source", R"({"path":"include/cute/layout.hpp"})"}}),
                 Calls({{"c2", "read_source", R"({"path":"include/cute/layout.hpp"})"}}),
                 {kCode, "stop"}});
  ProgrammerTools tools{&tree, "the fixture tree", 6, 120};
  LlmGenerator generator(chat, PromptDirectory(), Task(), tools);
  GenerationRequest request;
  request.mode = GenerationMode::kInitial;
  Result<GeneratedCandidate> candidate = generator.Generate(request);
  ASSERT_TRUE(candidate.ok()) << candidate.status().message();
  EXPECT_EQ(candidate->outcome, GenerationOutcome::kSource);
  ASSERT_EQ(chat.requests.size(), 3u);
  const std::string& cut = chat.requests[1].messages.back().content;
  EXPECT_THAT(cut, HasSubstr("budget of this generation is spent"));
  EXPECT_LE(cut.size(), 120u + 60u);
  EXPECT_TRUE(chat.requests[2].messages.back().is_error) << chat.requests[2].messages.back().content;
}

TEST(LlmGeneratorTest, WithoutATreeNoToolsAreOfferedAndThePromptIsUnchanged) {
  FakeChat chat({std::string(kCode)});
  LlmGenerator generator(chat, PromptDirectory(), Task());
  GenerationRequest request;
  request.mode = GenerationMode::kInitial;
  ASSERT_TRUE(generator.Generate(request).ok());
  EXPECT_TRUE(chat.requests.at(0).tools.empty());
  EXPECT_THAT(chat.requests[0].system_prompt, Not(HasSubstr("search_source")));
  Result<ProgrammerRequest> plain = BuildGenerateRequest(PromptDirectory(), Task());
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(chat.requests[0].system_prompt, plain->request.system_prompt);
}

}  // namespace
}  // namespace kopt::agents
