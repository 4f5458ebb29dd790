// LocalLlmServer: a real HTTP server on 127.0.0.1 (an ephemeral port) for
// tests of anything that talks to an LLM endpoint. Tests script a queue of
// responses per path and inspect the requests received. Test-only (uses
// cpp-httplib, on the test binary's include path).
//
//   LocalLlmServer server;
//   server.Enqueue("/v1/chat/completions", {200, OpenAiTextBody("hello")});
//   config.base_url = server.BaseUrl();
//   ... client->Complete(...) ...
//   EXPECT_EQ(server.Requests().size(), 1u);
//
// A path with an empty queue answers 500 {"error":{"message":"no scripted
// response"}}. A response with delay_seconds > 0 is sent after that delay
// (for read timeouts); the destructor cuts delays short.
//
// Thread safety: Enqueue and Requests may be called while requests arrive.
#pragma once

#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace kopt::llm::testing {

struct ScriptedResponse {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  double delay_seconds = 0;
};

struct ReceivedRequest {
  std::string path;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

class LocalLlmServer {
 public:
  LocalLlmServer() {
    server_.Post(R"(/.*)", [this](const httplib::Request& request, httplib::Response& response) {
      Handle(request, response);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~LocalLlmServer() {
    stopping_ = true;
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  LocalLlmServer(const LocalLlmServer&) = delete;
  LocalLlmServer& operator=(const LocalLlmServer&) = delete;

  int Port() const { return port_; }
  std::string BaseUrl() const { return "http://127.0.0.1:" + std::to_string(port_); }

  void Enqueue(const std::string& path, ScriptedResponse response) {
    std::lock_guard lock(mutex_);
    queues_[path].push_back(std::move(response));
  }
  std::vector<ReceivedRequest> Requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  void Handle(const httplib::Request& request, httplib::Response& response) {
    ScriptedResponse scripted{500, R"({"error":{"message":"no scripted response","type":"test"}})", {}, 0};
    {
      std::lock_guard lock(mutex_);
      ReceivedRequest received{request.path, {}, request.body};
      for (const auto& [name, value] : request.headers) {
        std::string lower = name;
        for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        received.headers[lower] = value;
      }
      requests_.push_back(std::move(received));
      auto& queue = queues_[request.path];
      if (!queue.empty()) {
        scripted = std::move(queue.front());
        queue.pop_front();
      }
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(scripted.delay_seconds);
    while (!stopping_ && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    response.status = scripted.status;
    for (const auto& [name, value] : scripted.headers) response.set_header(name, value);
    response.set_content(scripted.body, "application/json");
  }

  httplib::Server server_;
  int port_ = -1;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::map<std::string, std::deque<ScriptedResponse>> queues_;
  std::vector<ReceivedRequest> requests_;
};

// A port on 127.0.0.1 with nothing listening (bound, then closed): an
// unreachable endpoint.
inline int ClosedLocalPort() {
  int socket_fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(socket_fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  getsockname(socket_fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(socket_fd);
  return ntohs(address.sin_port);
}

// A successful OpenAI chat.completions body with one choice.
inline std::string OpenAiTextBody(const std::string& content, const std::string& model = "test-model",
                                  int prompt_tokens = 10, int completion_tokens = 5,
                                  const std::string& finish_reason = "stop") {
  nlohmann::json body{
      {"id", "chatcmpl-test"},
      {"object", "chat.completion"},
      {"model", model},
      {"choices",
       {{{"index", 0},
         {"message", {{"role", "assistant"}, {"content", content}}},
         {"finish_reason", finish_reason}}}},
      {"usage", {{"prompt_tokens", prompt_tokens}, {"completion_tokens", completion_tokens}}}};
  return body.dump();
}

// A successful Anthropic messages body with one text block.
inline std::string AnthropicTextBody(const std::string& text, const std::string& model = "test-model",
                                     int input_tokens = 10, int output_tokens = 5,
                                     const std::string& stop_reason = "end_turn") {
  nlohmann::json body{{"id", "msg_test"},
                      {"type", "message"},
                      {"role", "assistant"},
                      {"model", model},
                      {"content", {{{"type", "text"}, {"text", text}}}},
                      {"stop_reason", stop_reason},
                      {"usage", {{"input_tokens", input_tokens}, {"output_tokens", output_tokens}}}};
  return body.dump();
}

}  // namespace kopt::llm::testing
