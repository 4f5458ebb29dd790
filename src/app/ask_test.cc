// kopt ask end to end over real HTTP (a scripted local OpenAI-compatible
// server; no endpoint is reachable from the tests): the 10 questions of
// tests/golden/ask/questions.json, whose answers were written before the
// command first ran, and the interactive mode.
#include "app/ask.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/file_io.h"
#include "llm/local_llm_server_test_util.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;

constexpr const char* kCompletions = "/v1/chat/completions";

std::string RepositoryPath(const std::string& relative) {
  return (fs::path(KOPT_FIXTURE_DIR) / "../.." / relative).lexically_normal().string();
}

class AskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("KOPT_LLM_API_KEY", "sk-ask-test", 1);
    config_path_ =
        (fs::temp_directory_path() / ("kopt_ask_test_" + std::to_string(getpid()) + ".toml")).string();
    std::ofstream(config_path_) << "[llm]\nprovider = \"openai\"\nbase_url = \"" << server_.BaseUrl()
                                << "/v1\"\nmodel = \"test-model\"\nmax_retries = 0\n";
  }
  void TearDown() override {
    unsetenv("KOPT_LLM_API_KEY");
    fs::remove(config_path_);
  }
  void Enqueue(const json& turn, int& call_number) {
    if (turn.contains("answer")) {
      server_.Enqueue(kCompletions, {200, llm::testing::OpenAiTextBody(turn["answer"].get<std::string>())});
      return;
    }
    std::vector<std::vector<std::string>> calls;
    for (const json& call : turn["tools"]) {
      calls.push_back({"call_" + std::to_string(++call_number), call[0].get<std::string>(), call[1].dump()});
    }
    server_.Enqueue(kCompletions, {200, llm::testing::OpenAiToolCallBody(calls)});
  }
  Status Run(AskCommandOptions options, const std::string& input = "") {
    options.llm_config_path = config_path_;
    std::istringstream in(input);
    std::ostringstream out, log;
    Status status = RunAsk(options, *runner_, in, out, log);
    out_ = out.str();
    log_ = log.str();
    return status;
  }
  // Every tool result the server was sent, in order.
  std::string ToolResults() const {
    std::string results;
    for (const llm::testing::ReceivedRequest& request : server_.Requests()) {
      json body = json::parse(request.body);
      for (const json& message : body["messages"]) {
        if (message["role"] == "tool") results += message["content"].get<std::string>() + "\n";
      }
    }
    return results;
  }

  llm::testing::LocalLlmServer server_;
  std::unique_ptr<CommandRunner> runner_ = MakeSystemCommandRunner();
  std::string config_path_;
  std::string out_, log_;
};

TEST_F(AskTest, TheTenQuestionsAreAnsweredFromTheEvidence) {
  Result<std::string> text = ReadWholeFile(RepositoryPath("tests/golden/ask/questions.json"));
  ASSERT_TRUE(text.ok()) << text.status().message();
  json cases = json::parse(*text)["cases"];
  ASSERT_EQ(cases.size(), 10u);
  for (const json& test : cases) {
    SCOPED_TRACE(test["name"].get<std::string>());
    int call_number = 0;
    for (const json& turn : test["turns"]) Enqueue(turn, call_number);
    size_t requests_before = server_.Requests().size();
    AskCommandOptions options;
    for (const json& target : test["targets"]) options.arguments.push_back(RepositoryPath(target));
    options.arguments.push_back(test["question"]);
    if (test.contains("source")) options.source_path = RepositoryPath(test["source"]);
    options.format = "json";
    Status status = Run(options);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(server_.Requests().size() - requests_before, test["turns"].size())
        << "every scripted turn used";
    json answer = json::parse(out_)["answers"][0];
    std::string results = ToolResults();
    for (const json& fact : test.value("tool_results_contain", json::array())) {
      EXPECT_THAT(results, HasSubstr(fact.get<std::string>()));
    }
    for (const json& fact : test.value("answer_contains", json::array())) {
      EXPECT_THAT(answer["answer"].get<std::string>(), HasSubstr(fact.get<std::string>()));
    }
    EXPECT_EQ(answer["unsupported"], test["final_unsupported"]) << answer.dump(2);
    EXPECT_EQ(answer["regenerated"], test.value("regenerated", false)) << answer.dump(2);
    if (test.contains("supported_claims")) {
      size_t supported = 0;
      for (const json& claim : answer["claims"]) supported += claim["supported"].get<bool>() ? 1 : 0;
      EXPECT_EQ(supported, test["supported_claims"].get<size_t>()) << answer.dump(2);
    }
    if (test.contains("first_attempt_unsupported")) {
      // The regeneration request names exactly the refused numbers.
      std::string regenerate = server_.Requests().back().body;
      for (const json& claim : test["first_attempt_unsupported"]) {
        EXPECT_THAT(regenerate, HasSubstr(claim.get<std::string>()));
      }
    }
    for (const json& call : answer["tool_calls"])
      EXPECT_THAT(call.get<std::string>(), ::testing::Not(HasSubstr("error")));
  }
}

// --plan: 44 programs (46 kernels) of the H200 fixture sets; the overview lists programs, the agent reads the
// plan, and the numbers it quotes from it are supported while one it makes up is not.
TEST_F(AskTest, PlanModeAnswersFromThePlanOfManyPrograms) {
  int call_number = 0;
  Enqueue({{"tools", json::array({json::array({"read_plan", json::object()})})}}, call_number);
  Enqueue({{"answer", "Fix atomic_contention first: 3.23 ms of its 3.68 ms can be saved."}}, call_number);
  AskCommandOptions options;
  options.plan = true;
  options.arguments = {RepositoryPath("tests/fixtures/h200"), RepositoryPath("tests/fixtures/h200_blind"),
                       "Which kernel should I fix first?"};
  options.format = "json";
  Status status = Run(options);
  ASSERT_TRUE(status.ok()) << status.message();
  std::vector<llm::testing::ReceivedRequest> requests = server_.Requests();
  ASSERT_EQ(requests.size(), 2u);
  json first = json::parse(requests[0].body);
  EXPECT_THAT(first["tools"].dump(), HasSubstr("read_plan"));
  std::string overview = first["messages"].dump();
  EXPECT_THAT(overview, HasSubstr("(list_kernels names every kernel)"));
  EXPECT_THAT(overview, HasSubstr("a plan over the programs: read_plan"));
  EXPECT_THAT(overview, ::testing::Not(HasSubstr("top finding")));  // programs, not every kernel
  EXPECT_THAT(ToolResults(), HasSubstr("44 program(s)"));
  json answer = json::parse(out_)["answers"][0];
  EXPECT_EQ(answer["unsupported"], 0) << answer.dump(2);
  EXPECT_THAT(answer["tool_calls"][0].get<std::string>(), ::testing::StartsWith("read_plan"));
}

TEST_F(AskTest, PlanModeNeedsPrograms) {
  AskCommandOptions options;
  options.plan = true;
  options.arguments = {"Which kernel should I fix first?"};
  Status status = Run(options);
  EXPECT_EQ(status.kind(), ErrorKind::kInvalidInput);
  EXPECT_THAT(status.message(), HasSubstr("kopt ask --plan: expected programs"));
  options.arguments = {RepositoryPath("tests/fixtures/h200/README.md"), RepositoryPath("src"), "Why?"};
  status = Run(options);
  EXPECT_EQ(status.kind(), ErrorKind::kInvalidInput) << status.message();
}

TEST_F(AskTest, InteractiveFollowUpsContinueTheConversation) {
  int call_number = 0;
  Enqueue({{"tools", json::array({json::array({"read_metrics", {{"contains", "gpu__time_duration"}}})})}},
          call_number);
  Enqueue({{"answer", "One launch takes 1.18 ms."}}, call_number);
  Enqueue({{"answer", "Yes, the 1.18 ms above is one launch."}}, call_number);
  AskCommandOptions options;
  options.arguments = {RepositoryPath("tests/fixtures/h200/uncoalesced_loads"), "How long does it take?"};
  options.interactive = true;
  ASSERT_TRUE(Run(options, "Is that one launch?\n\n").ok());
  EXPECT_THAT(out_, HasSubstr("Q: How long does it take?"));
  EXPECT_THAT(out_, HasSubstr("Q: Is that one launch?"));
  std::vector<llm::testing::ReceivedRequest> requests = server_.Requests();
  ASSERT_EQ(requests.size(), 3u);
  json follow_up = json::parse(requests[2].body)["messages"];
  EXPECT_THAT(follow_up.dump(), HasSubstr("One launch takes 1.18 ms."));  // the earlier answer
  EXPECT_THAT(follow_up.dump(), HasSubstr("gpu__time_duration.sum"));     // and what the tools read
  EXPECT_EQ(out_.find("[unsupported]"), std::string::npos) << out_;
}

TEST_F(AskTest, WithoutAQuestionOrAProfileTheCommandSaysWhatItExpects) {
  AskCommandOptions options;
  options.arguments = {RepositoryPath("tests/fixtures/h200/uncoalesced_loads")};
  Status status = Run(options);
  EXPECT_EQ(status.kind(), ErrorKind::kInvalidInput);
  EXPECT_THAT(status.message(), HasSubstr("expected a question"));
  options.arguments = {"why is it slow?"};
  EXPECT_EQ(Run(options).kind(), ErrorKind::kInvalidInput);
}

}  // namespace
}  // namespace kopt
