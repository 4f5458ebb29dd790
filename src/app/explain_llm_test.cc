// `kopt explain --llm` end to end through the real llm layer (libcurl,
// OpenAI wire format) against a local OpenAI-compatible server: the narrative
// has every number supported or marked, the deterministic report is whole,
// and the API key appears in no output.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/explain.h"
#include "core/fake_command_runner_test_util.h"
#include "llm/local_llm_server_test_util.h"

namespace kopt {
namespace {

using llm::testing::LocalLlmServer;
using llm::testing::OpenAiTextBody;

constexpr const char* kSecretKey = "sk-explain-llm-test-SECRET-0123456789";
constexpr const char* kCompletions = "/v1/chat/completions";

llm::testing::ScriptedResponse Reply(int status, std::string body) {
  llm::testing::ScriptedResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

class ExplainLlmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("KOPT_LLM_API_KEY", kSecretKey, 1);
    config_path_ = (std::filesystem::temp_directory_path() /
                    ("kopt_explain_llm_test_" + std::to_string(getpid()) + ".toml"))
                       .string();
  }
  void TearDown() override {
    unsetenv("KOPT_LLM_API_KEY");
    std::filesystem::remove(config_path_);
  }

  void WriteConfig(const std::string& base_url) {
    std::ofstream(config_path_)
        << "[llm]\nprovider = \"openai\"\nbase_url = \"" << base_url
        << "\"\nmodel = \"test-model\"\nmax_retries = 0\nconnect_timeout_seconds = 2\n";
  }

  ExplainOptions Options(const std::string& format) {
    ExplainOptions options;
    options.settings.profile.target = std::string(KOPT_FIXTURE_DIR) + "/h200/uncoalesced_loads/raw.csv";
    options.format = format;
    options.settings.llm.narrative = true;
    options.verbose = true;
    options.settings.llm.config_path = config_path_;
    return options;
  }

  Status Run(const ExplainOptions& options) {
    FakeCommandRunner runner;
    std::ostringstream out_stream, log_stream;
    Status status = RunExplain(options, runner, out_stream, log_stream);
    out_ = out_stream.str();
    log_ = log_stream.str();
    return status;
  }

  std::string config_path_;
  std::string out_, log_;
};

TEST_F(ExplainLlmTest, EveryNumberIsSupportedOrMarkedAndTheKeyAppearsNowhere) {
  LocalLlmServer server;
  WriteConfig(server.BaseUrl());
  server.Enqueue(kCompletions, Reply(200, OpenAiTextBody("[]")));  // the hypotheses' LLM pass
  server.Enqueue(kCompletions,
                 Reply(200, OpenAiTextBody("## What limits it\nDRAM at 80.3% (3.86 TB/s); a 9.5× gain "
                                           "awaits, and 45 ms are lost.")));
  server.Enqueue(kCompletions,
                 Reply(200, OpenAiTextBody("## What limits it\nDRAM at 80.3% (3.86 TB/s); a 9.5× gain.")));
  ASSERT_TRUE(Run(Options("json")).ok());

  nlohmann::json report = nlohmann::json::parse(out_);
  EXPECT_EQ(report["kernels"][0]["findings"][0]["tool"], "uncoalesced_loads");  // the deterministic report
  const nlohmann::json& narrative = report["narrative"];
  ASSERT_TRUE(narrative["text"].is_string()) << narrative.dump();
  std::string text = narrative["text"];
  ASSERT_GE(narrative["claims"].size(), 3u);
  for (const nlohmann::json& claim : narrative["claims"]) {
    std::string written = claim["text"];
    if (claim["supported"] == true) {
      EXPECT_TRUE(claim["evidence"]["label"].is_string());
    } else {
      EXPECT_NE(text.find(written + " [unsupported]"), std::string::npos) << written;
    }
  }
  EXPECT_EQ(text, "## What limits it\nDRAM at 80.3% (3.86 TB/s); a 9.5× [unsupported] gain.");
  EXPECT_EQ(narrative["regenerated"], true);
  EXPECT_EQ(narrative["model"], "test-model");
  EXPECT_TRUE(report["hypotheses"].is_array());

  ASSERT_EQ(server.Requests().size(), 3u);
  for (const llm::testing::ReceivedRequest& request : server.Requests()) {
    EXPECT_EQ(request.body.find(kSecretKey), std::string::npos);
  }
  EXPECT_NE(server.Requests()[1].body.find("kopt evidence digest"), std::string::npos);
  EXPECT_EQ(out_.find(kSecretKey), std::string::npos);
  EXPECT_FALSE(log_.empty());  // --verbose logged the calls
  EXPECT_EQ(log_.find(kSecretKey), std::string::npos) << log_;
}

TEST_F(ExplainLlmTest, WrongKeyKeepsTheDeterministicReportAndSaysWhy) {
  LocalLlmServer server;
  WriteConfig(server.BaseUrl());
  std::string refusal =
      std::string(R"({"error":{"message":"Incorrect API key provided: )") + kSecretKey + R"("}})";
  server.Enqueue(kCompletions, Reply(401, refusal));
  server.Enqueue(kCompletions, Reply(401, refusal));
  ASSERT_TRUE(Run(Options("term")).ok());
  EXPECT_NE(out_.find("FINDINGS · ranked by estimated gain"), std::string::npos);
  EXPECT_NE(out_.find("NARRATIVE · not available"), std::string::npos) << out_;
  EXPECT_NE(out_.find("401"), std::string::npos) << out_;
  EXPECT_EQ(out_.find(kSecretKey), std::string::npos) << out_;
  EXPECT_EQ(log_.find(kSecretKey), std::string::npos) << log_;
}

TEST_F(ExplainLlmTest, UnreachableEndpointKeepsTheDeterministicReport) {
  WriteConfig("http://127.0.0.1:" + std::to_string(llm::testing::ClosedLocalPort()));
  ASSERT_TRUE(Run(Options("md")).ok());
  EXPECT_NE(out_.find("### Findings, ranked by estimated gain"), std::string::npos);
  EXPECT_NE(out_.find("Not available: no LLM narrative:"), std::string::npos) << out_;
  EXPECT_EQ(out_.find(kSecretKey), std::string::npos);
}

// Issue 19: a bad --llm-config is refused before any work (it used to be a
// note at the bottom of a report that exited 0).
TEST_F(ExplainLlmTest, BadConfigurationIsRefusedBeforeAnyWork) {
  std::ofstream(config_path_) << "[llm]\nmax_retries = \"many\"\n";
  Status status = Run(Options("term"));
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("max_retries"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace kopt
