#include "llm/transcript.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fixture_reader.h"
#include "llm/local_llm_server_test_util.h"
#include "llm/request_key.h"
#include "llm/response_cache.h"

namespace kopt::llm {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ScriptedClient : public ChatClient {
 public:
  Result<ChatResponse> Complete(const ChatRequest& request) override {
    ++calls;
    ChatResponse response;
    response.choices = {
        {"answer " + std::to_string(calls) + " to " + request.messages.back().content, "stop"}};
    response.model = "m-2024";
    response.usage = {10 * calls, calls};
    response.latency_seconds = 0.125 * calls;
    response.cost_known = true;
    response.cost_usd = 0.001 * calls;
    return response;
  }
  int calls = 0;
};

ChatRequest Ask(const std::string& text, const std::string& purpose = "explain") {
  ChatRequest request;
  request.system_prompt = "S";
  request.messages = {{Role::kUser, text}};
  request.purpose = purpose;
  return request;
}

class TranscriptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::path(::testing::TempDir()) /
             ("kopt_transcript_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".jsonl"))
                .string();
    std::filesystem::remove(path_);
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string path_;
};

TEST_F(TranscriptTest, RecordThenReplayReproducesByteForByte) {
  std::vector<std::string> recorded;
  {
    auto recorder =
        TranscriptRecorder::Open(std::make_unique<ScriptedClient>(), path_, "m", nullptr, nullptr);
    ASSERT_TRUE(recorder.ok()) << recorder.status().message();
    for (const char* question : {"a", "b", "a"}) {
      auto response = (*recorder)->Complete(Ask(question));
      ASSERT_TRUE(response.ok());
      recorded.push_back(ResponseToJsonText(*response));
    }
    // Lines are on disk as each exchange completes.
    std::string on_disk = ReadTestFile(path_);
    EXPECT_EQ(std::count(on_disk.begin(), on_disk.end(), '\n'), 3);
  }
  auto replayer = TranscriptReplayer::Open(path_, "m", nullptr);
  ASSERT_TRUE(replayer.ok()) << replayer.status().message();
  std::vector<std::string> replayed;
  for (const char* question : {"a", "b", "a"}) {
    auto response = (*replayer)->Complete(Ask(question, "other purpose"));
    ASSERT_TRUE(response.ok()) << response.status().message();
    EXPECT_TRUE(response->replayed);
    replayed.push_back(ResponseToJsonText(*response));
  }
  EXPECT_EQ(replayed, recorded);  // the repeated "a" gets answer 1, then answer 3
  EXPECT_THAT(replayed[2], HasSubstr("answer 3 to a"));
}

TEST_F(TranscriptTest, MissingRequestNamesPathPurposeAndMessage) {
  TranscriptReplayer replayer({}, "golden.jsonl", "m", nullptr);
  auto response = replayer.Complete(Ask(std::string(100, 'q') + "tail", "hypotheses"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().kind(), ErrorKind::kNotFound);
  EXPECT_THAT(response.status().message(), HasSubstr("golden.jsonl"));
  EXPECT_THAT(response.status().message(), HasSubstr("purpose \"hypotheses\""));
  EXPECT_THAT(response.status().message(), HasSubstr("\"" + std::string(80, 'q') + "\""));
}

TEST_F(TranscriptTest, AskingMoreOftenThanRecordedIsAnError) {
  std::string line = R"({"request":{"model":"m","system":"S","messages":[{"role":"user","content":"a"}]},)"
                     R"("response":{"content":"only once"}})";
  auto entries = ParseTranscript(line, "t.jsonl");
  ASSERT_TRUE(entries.ok()) << entries.status().message();
  TranscriptReplayer replayer(std::move(entries).value(), "t.jsonl", "m", nullptr);
  auto first = replayer.Complete(Ask("a"));
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->choices[0].content, "only once");
  auto second = replayer.Complete(Ask("a"));
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.status().message(), HasSubstr("no further recorded answer"));
}

TEST_F(TranscriptTest, HandWrittenByHashCommentsAndBlankLines) {
  std::string hash = Sha256Hex(CanonicalRequestJson(Ask("x"), "m"));
  std::string text =
      "# a comment\n\n{\"hash\":\"" + hash +
      "\",\"response\":{\"choices\":[{\"content\":\"by hash\",\"finish_reason\":\"length\"}]}}\n";
  auto entries = ParseTranscript(text, "t.jsonl");
  ASSERT_TRUE(entries.ok()) << entries.status().message();
  ASSERT_EQ(entries->size(), 1u);
  EXPECT_EQ((*entries)[0].line, 3);
  TranscriptReplayer replayer(std::move(entries).value(), "t.jsonl", "m", nullptr);
  auto response = replayer.Complete(Ask("x"));
  ASSERT_TRUE(response.ok()) << response.status().message();
  EXPECT_EQ(response->choices[0].finish_reason, "length");
}

TEST_F(TranscriptTest, MalformedLinesNameLineAndField) {
  auto not_json = ParseTranscript("\n{oops\n", "t.jsonl");
  ASSERT_FALSE(not_json.ok());
  EXPECT_THAT(not_json.status().message(), HasSubstr("t.jsonl:2"));
  auto no_response = ParseTranscript(R"({"hash":"abc"})", "t.jsonl");
  ASSERT_FALSE(no_response.ok());
  EXPECT_THAT(no_response.status().message(), HasSubstr("no \"response\""));
  auto neither = ParseTranscript(R"({"response":{"content":"x"}})", "t.jsonl");
  ASSERT_FALSE(neither.ok());
  EXPECT_THAT(neither.status().message(), HasSubstr("\"request\" or \"hash\""));
  auto mismatch =
      ParseTranscript(R"({"hash":"abc","request":{"model":"m"},"response":{"content":"x"}})", "t.jsonl");
  ASSERT_FALSE(mismatch.ok());
  EXPECT_THAT(mismatch.status().message(), HasSubstr("does not match the request"));
}

// Answers with a tool call first, then text: a tool conversation.
class ToolCallingClient : public ChatClient {
 public:
  Result<ChatResponse> Complete(const ChatRequest& request) override {
    ChatResponse response;
    if (request.messages.back().role == Role::kTool) {
      response.choices = {{"done after " + request.messages.back().content, "stop"}};
    } else {
      response.choices = {{"", "tool_calls", {{"call_7", "read", R"({"path":"sk-tool-SECRET.h"})"}}}};
    }
    response.model = "m";
    return response;
  }
};

TEST_F(TranscriptTest, ToolConversationsRecordAndReplayByteForByteWithSecretsRedacted) {
  SecretRedactor redactor;
  redactor.AddSecret("sk-tool-SECRET");
  ChatRequest first = testing::ToolConversationRequest();
  first.messages.resize(1);
  // The follow-up a tool loop sends: the call it got, then its result.
  auto follow_up = [&](const ChatResponse& call, const std::string& result_text) {
    ChatRequest next = first;
    ChatMessage assistant{Role::kAssistant, ""};
    assistant.tool_calls = call.choices[0].tool_calls;
    ChatMessage result{Role::kTool, result_text};
    result.tool_call_id = "call_7";
    next.messages.push_back(assistant);
    next.messages.push_back(result);
    return next;
  };
  std::string recorded_answer;
  {
    auto recorder =
        TranscriptRecorder::Open(std::make_unique<ToolCallingClient>(), path_, "m", &redactor, nullptr);
    ASSERT_TRUE(recorder.ok());
    auto call = (*recorder)->Complete(first);
    ASSERT_TRUE(call.ok());
    auto answer = (*recorder)->Complete(follow_up(*call, "line 1 of the file"));
    ASSERT_TRUE(answer.ok());
    recorded_answer = ResponseToJsonText(*answer);
  }
  std::string on_disk = ReadTestFile(path_);
  EXPECT_THAT(on_disk, Not(HasSubstr("sk-tool-SECRET")));
  EXPECT_THAT(on_disk, HasSubstr(R"("role":"tool","tool_call_id":"call_7")"));
  auto replayer = TranscriptReplayer::Open(path_, "m", nullptr);
  ASSERT_TRUE(replayer.ok()) << replayer.status().message();
  auto call = (*replayer)->Complete(first);
  ASSERT_TRUE(call.ok()) << call.status().message();
  EXPECT_EQ(call->choices[0].tool_calls.at(0).arguments, R"({"path":"[REDACTED].h"})");
  // The follow-up built from the replayed call is the recorded (redacted) request.
  auto answer = (*replayer)->Complete(follow_up(*call, "line 1 of the file"));
  ASSERT_TRUE(answer.ok()) << answer.status().message();
  EXPECT_EQ(ResponseToJsonText(*answer), recorded_answer);
  // A different tool result is a different request: not in the transcript.
  auto again = TranscriptReplayer::Open(path_, "m", nullptr);
  ASSERT_TRUE(again.ok());
  ASSERT_TRUE((*again)->Complete(first).ok());
  EXPECT_FALSE((*again)->Complete(follow_up(*call, "another file")).ok());
}

TEST_F(TranscriptTest, RecorderRedactsSecrets) {
  SecretRedactor redactor;
  redactor.AddSecret("sk-transcript-SECRET");
  auto recorder =
      TranscriptRecorder::Open(std::make_unique<ScriptedClient>(), path_, "m", &redactor, nullptr);
  ASSERT_TRUE(recorder.ok());
  ASSERT_TRUE((*recorder)->Complete(Ask("my key is sk-transcript-SECRET")).ok());
  EXPECT_THAT(ReadTestFile(path_), Not(HasSubstr("sk-transcript-SECRET")));
  EXPECT_THAT(ReadTestFile(path_), HasSubstr("[REDACTED]"));
}

}  // namespace
}  // namespace kopt::llm
