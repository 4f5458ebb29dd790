// LocalLlmServer: a real HTTP server on 127.0.0.1 (an ephemeral port) for
// tests of anything that talks to an LLM endpoint. Tests script a queue of
// responses per path and inspect the requests received. Test-only (uses
// plain POSIX sockets: one thread per connection, HTTP/1.1 with
// Content-Length bodies, every response "Connection: close"; enough for
// libcurl, no library to link).
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

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "llm/chat.h"

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
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int yes = 1;
    setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address));
    socklen_t length = sizeof(address);
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    listen(listen_fd_, 64);
    accept_thread_ = std::thread([this] { AcceptLoop(); });
  }
  ~LocalLlmServer() {
    stopping_ = true;
    shutdown(listen_fd_, SHUT_RDWR);
    close(listen_fd_);
    if (accept_thread_.joinable()) accept_thread_.join();
    std::vector<std::thread> connections;
    {
      std::lock_guard lock(mutex_);
      connections.swap(connection_threads_);
    }
    for (auto& thread : connections) thread.join();
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
  void AcceptLoop() {
    while (!stopping_) {
      pollfd poll_fd{listen_fd_, POLLIN, 0};
      if (poll(&poll_fd, 1, 50) <= 0) continue;
      int connection = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (connection < 0) continue;
      std::lock_guard lock(mutex_);
      connection_threads_.emplace_back([this, connection] {
        Serve(connection);
        close(connection);
      });
    }
  }

  static std::string Lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  }

  // Reads one request (headers, then Content-Length bytes of body).
  bool ReadRequest(int connection, ReceivedRequest& request) {
    std::string data;
    char buffer[4096];
    size_t header_end = std::string::npos;
    while ((header_end = data.find("\r\n\r\n")) == std::string::npos) {
      ssize_t got = recv(connection, buffer, sizeof(buffer), 0);
      if (got <= 0) return false;
      data.append(buffer, static_cast<size_t>(got));
    }
    std::istringstream head(data.substr(0, header_end));
    std::string line, method;
    std::getline(head, line);
    std::istringstream(line) >> method >> request.path;
    size_t content_length = 0;
    while (std::getline(head, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = Lower(line.substr(0, colon));
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(' '));
      request.headers[name] = value;
      if (name == "content-length") content_length = std::stoul(value);
    }
    request.body = data.substr(header_end + 4);
    while (request.body.size() < content_length) {
      ssize_t got = recv(connection, buffer, sizeof(buffer), 0);
      if (got <= 0) return false;
      request.body.append(buffer, static_cast<size_t>(got));
    }
    return true;
  }

  void Serve(int connection) {
    ReceivedRequest request;
    if (!ReadRequest(connection, request)) return;
    ScriptedResponse scripted{500, R"({"error":{"message":"no scripted response","type":"test"}})", {}, 0};
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(request);
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
    std::string response = "HTTP/1.1 " + std::to_string(scripted.status) + " Scripted\r\n";
    response += "Content-Type: application/json\r\nConnection: close\r\n";
    response += "Content-Length: " + std::to_string(scripted.body.size()) + "\r\n";
    for (const auto& [name, value] : scripted.headers) response += name + ": " + value + "\r\n";
    response += "\r\n" + scripted.body;
    size_t sent = 0;
    while (sent < response.size()) {
      ssize_t wrote = send(connection, response.data() + sent, response.size() - sent, MSG_NOSIGNAL);
      if (wrote <= 0) return;
      sent += static_cast<size_t>(wrote);
    }
  }

  int listen_fd_ = -1;
  int port_ = -1;
  std::thread accept_thread_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::vector<std::thread> connection_threads_;
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

// A request that offers one tool ("search") and carries one finished tool
// round: the question, the assistant's two calls (the second one failed),
// their results.
inline ChatRequest ToolConversationRequest() {
  ChatRequest request;
  request.system_prompt = "Use the tools.";
  request.tools = {{"search", "Search the source tree.",
                    R"({"type":"object","properties":{"query":{"type":"string"}},"required":["query"]})"}};
  ChatMessage assistant{Role::kAssistant, "Looking."};
  assistant.tool_calls = {{"call_1", "search", R"({"query":"make_layout"})"},
                          {"call_2", "search", R"({"query":"../etc"})"}};
  ChatMessage first{Role::kTool, "include/cute/layout.hpp:42: make_layout("};
  first.tool_call_id = "call_1";
  ChatMessage second{Role::kTool, "error: outside the tree"};
  second.tool_call_id = "call_2";
  second.is_error = true;
  request.messages = {{Role::kUser, "Find make_layout."}, assistant, first, second};
  return request;
}

// A successful OpenAI body whose one choice asks for tool calls
// ({id, name, arguments JSON text} each), finish_reason "tool_calls".
inline std::string OpenAiToolCallBody(const std::vector<std::vector<std::string>>& calls,
                                      const std::string& content = "",
                                      const std::string& model = "test-model") {
  nlohmann::json tool_calls = nlohmann::json::array();
  for (const std::vector<std::string>& call : calls) {
    tool_calls.push_back({{"id", call.at(0)},
                          {"type", "function"},
                          {"function", {{"name", call.at(1)}, {"arguments", call.at(2)}}}});
  }
  nlohmann::json message{{"role", "assistant"}, {"tool_calls", tool_calls}};
  message["content"] = content.empty() ? nlohmann::json(nullptr) : nlohmann::json(content);
  nlohmann::json body{{"id", "chatcmpl-tools"},
                      {"object", "chat.completion"},
                      {"model", model},
                      {"choices", {{{"index", 0}, {"message", message}, {"finish_reason", "tool_calls"}}}},
                      {"usage", {{"prompt_tokens", 20}, {"completion_tokens", 8}}}};
  return body.dump();
}

// A successful Anthropic body with optional text then tool_use blocks
// ({id, name, input JSON object text} each), stop_reason "tool_use".
inline std::string AnthropicToolUseBody(const std::vector<std::vector<std::string>>& calls,
                                        const std::string& text = "",
                                        const std::string& model = "test-model") {
  nlohmann::json content = nlohmann::json::array();
  if (!text.empty()) content.push_back({{"type", "text"}, {"text", text}});
  for (const std::vector<std::string>& call : calls) {
    content.push_back({{"type", "tool_use"},
                       {"id", call.at(0)},
                       {"name", call.at(1)},
                       {"input", nlohmann::json::parse(call.at(2))}});
  }
  nlohmann::json body{{"id", "msg_tools"},
                      {"type", "message"},
                      {"role", "assistant"},
                      {"model", model},
                      {"content", content},
                      {"stop_reason", "tool_use"},
                      {"usage", {{"input_tokens", 20}, {"output_tokens", 8}}}};
  return body.dump();
}

}  // namespace kopt::llm::testing
