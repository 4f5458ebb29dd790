#include "agents/llm_generator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agents/prompt_template.h"

namespace kopt::agents {
namespace {

using ::testing::HasSubstr;

// Answers every request with the next scripted text (or error), keeping the requests.
class FakeChat : public llm::ChatClient {
 public:
  explicit FakeChat(std::vector<Result<std::string>> answers) : answers_(std::move(answers)) {}
  Result<llm::ChatResponse> Complete(const llm::ChatRequest& request) override {
    requests.push_back(request);
    Result<std::string> answer = answers_.at(requests.size() - 1);
    if (!answer.ok()) return answer.status();
    llm::ChatResponse response;
    response.choices.push_back({*answer, "stop"});
    response.model = "fake-model";
    response.usage = {1200, 300};
    response.cost_usd = 0.01;
    response.cost_known = true;
    return response;
  }
  std::vector<llm::ChatRequest> requests;

 private:
  std::vector<Result<std::string>> answers_;
};

ProgrammerTask Task() {
  ProgrammerTask task;
  task.name = "saxpy";
  task.entry_point = "saxpy";
  task.entry_signature = "extern \"C\" void saxpy(const float* x, float* y, float a, int n, cudaStream_t stream);";
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
  FakeChat chat({std::string("Here:\n```cuda\nextern \"C\" void saxpy(const float* x, float* y, float a, int n, "
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
  FakeChat chat({std::string("I cannot help with that."), Result<std::string>(Unavailable("connection refused"))});
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

}  // namespace
}  // namespace kopt::agents
