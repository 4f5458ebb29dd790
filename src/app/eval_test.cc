// kopt eval mcq end to end over real HTTP (a scripted local OpenAI-compatible
// server answering "A" to everything; no endpoint is reachable from the
// tests): questions generated from two labelled fixture sets, each scored in
// the four contexts, the scores checked against the answer key.
#include "app/eval.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "llm/local_llm_server_test_util.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(EvalMcqTest, OverAHundredQuestionsAreScoredInEveryContext) {
  llm::testing::LocalLlmServer server;
  for (int i = 0; i < 3000; ++i) {
    server.Enqueue("/v1/chat/completions", {200, llm::testing::OpenAiTextBody("A\nThe first option.")});
  }
  setenv("KOPT_LLM_API_KEY", "sk-eval-test", 1);
  std::string config =
      (fs::temp_directory_path() / ("kopt_eval_test_" + std::to_string(getpid()) + ".toml")).string();
  std::ofstream(config) << "[llm]\nprovider = \"openai\"\nbase_url = \"" << server.BaseUrl()
                        << "/v1\"\nmodel = \"test-model\"\nmax_retries = 0\n";
  EvalMcqOptions options;
  options.set_directories = {std::string(KOPT_FIXTURE_DIR) + "/h200",
                             std::string(KOPT_FIXTURE_DIR) + "/h200_blind"};
  options.format = "json";
  options.llm_config_path = config;
  std::ostringstream out, log;
  auto runner = MakeSystemCommandRunner();
  Status status = RunEvalMcq(options, *runner, out, log);
  unsetenv("KOPT_LLM_API_KEY");
  fs::remove(config);
  ASSERT_TRUE(status.ok()) << status.message();
  json results = json::parse(out.str());
  EXPECT_EQ(results["schema"], "kopt.eval.mcq/1");
  size_t questions = results["questions"].size();
  EXPECT_GE(questions, 100u);
  size_t key_a = 0;
  for (const json& question : results["questions"]) key_a += question["correct"] == 0 ? 1 : 0;
  for (const char* context : {"none", "raw", "diagnosis", "explanation"}) {
    const json& tally = results["by_context"][context];
    EXPECT_EQ(tally["questions"], questions) << context;
    EXPECT_EQ(tally["correct"], key_a) << context << ": always answering A scores the A keys";
    EXPECT_LE(tally["wilson95_low"].get<double>(), tally["accuracy"].get<double>());
    EXPECT_GE(tally["wilson95_high"].get<double>(), tally["accuracy"].get<double>());
  }
  EXPECT_GT(results["explanation_check"]["narratives"].get<size_t>(), 0u);
  // Every context reached the model: the raw table's metric names, the diagnosis' findings.
  std::string bodies;
  for (const auto& request : server.Requests()) bodies += request.body;
  EXPECT_NE(bodies.find("gpu__time_duration"), std::string::npos);
  EXPECT_NE(bodies.find("(no context)"), std::string::npos);
}

}  // namespace
}  // namespace kopt
