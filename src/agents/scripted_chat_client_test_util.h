// A ChatClient for tests: answers from a script, in order, and records every
// request. Used by the explanation agent's tests and the narratives built on
// it (explain/plan_narrative_test.cc).
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "core/status.h"
#include "llm/chat.h"

namespace kopt::agents {

class ScriptedChatClient : public llm::ChatClient {
 public:
  void Answer(std::string content, std::string finish_reason = "stop") {
    llm::ChatResponse response;
    response.choices.push_back({std::move(content), std::move(finish_reason)});
    response.model = "fake-model-1";
    response.usage = {100, 20};
    script_.push_back(std::move(response));
  }
  void Fail(Status status) { script_.push_back(std::move(status)); }

  Result<llm::ChatResponse> Complete(const llm::ChatRequest& request) override {
    requests.push_back(request);
    if (script_.empty()) return Internal("the test script has no more answers");
    Result<llm::ChatResponse> next = std::move(script_.front());
    script_.pop_front();
    return next;
  }

  std::vector<llm::ChatRequest> requests;

 private:
  std::deque<Result<llm::ChatResponse>> script_;
};

}  // namespace kopt::agents
