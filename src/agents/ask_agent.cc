#include "agents/ask_agent.h"

#include <fmt/format.h>

#include "agents/explanation_agent.h"
#include "agents/prompt_template.h"

namespace kopt::agents {
namespace {

PromptTemplateUse UseOf(const PromptRecord& record) {
  return PromptTemplateUse{record.id, record.version, record.template_sha256};
}

Result<RenderedPrompt> Render(const std::string& directory, std::string_view id,
                              const std::map<std::string, std::string>& values) {
  KOPT_ASSIGN_OR_RETURN(PromptTemplate prompt_template, LoadPromptTemplate(directory, id));
  return RenderPrompt(prompt_template, values);
}

std::string Trimmed(const std::string& text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::string CallLine(const llm::ToolCall& call, const ToolAnswer& answer) {
  size_t lines = 0;
  for (char character : answer.text) lines += character == '\n';
  return fmt::format("{} {} → {}", call.name, call.arguments.empty() ? "{}" : call.arguments,
                     answer.is_error ? answer.text : fmt::format("{} lines", lines));
}

}  // namespace

AskAgent::AskAgent(llm::ChatClient& client, const AskEvidence& evidence, AskOptions options)
    : client_(client), evidence_(evidence), options_(std::move(options)) {}

Result<llm::ChatRequest> AskAgent::FirstRequest(const std::string& question) {
  KOPT_ASSIGN_OR_RETURN(RenderedPrompt system, Render(options_.prompt_directory, "ask/system", {}));
  EvidenceSet shown;
  std::string overview = EvidenceOverview(evidence_, shown);
  KOPT_ASSIGN_OR_RETURN(RenderedPrompt user, Render(options_.prompt_directory, "ask/user",
                                                    {{"overview", overview}, {"question", question}}));
  system_prompt_ = system.text;
  templates_ = {UseOf(system.record), UseOf(user.record)};
  shown_ = std::move(shown);
  llm::ChatRequest request;
  request.system_prompt = system_prompt_;
  request.messages = {{llm::Role::kUser, user.text}};
  return request;
}

Result<llm::ChatChoice> AskAgent::Converse(llm::ChatRequest& request, AskAnswer& answer) {
  request.model = options_.model;
  request.temperature = options_.temperature;
  request.max_tokens = options_.max_tokens;
  request.tools = EvidenceToolDefinitions(evidence_);
  for (int round = 0;; ++round) {
    if (round >= options_.max_tool_rounds) {
      request.tools.clear();  // the last request: answer with what was read
      request.messages.push_back(
          {llm::Role::kUser, "The tool limit is reached: answer now from what the tools returned."});
    }
    request.purpose = request.tools.empty() ? "ask-answer" : "ask";
    KOPT_ASSIGN_OR_RETURN(llm::ChatResponse response, client_.Complete(request));
    if (response.choices.empty()) return WorkFailed("the LLM returned no answer");
    answer.answer.model = response.model;
    answer.answer.input_tokens += response.usage.input_tokens;
    answer.answer.output_tokens += response.usage.output_tokens;
    answer.answer.replayed = answer.answer.replayed || response.replayed;
    answer.cost_usd += response.cost_usd;
    answer.cost_known =
        answer.cost_known && (response.cost_known || response.replayed || response.from_cache);
    llm::ChatChoice choice = response.choices.front();
    if (choice.tool_calls.empty() || request.tools.empty()) return choice;
    llm::ChatMessage assistant{llm::Role::kAssistant, choice.content};
    assistant.tool_calls = choice.tool_calls;
    request.messages.push_back(std::move(assistant));
    for (const llm::ToolCall& call : choice.tool_calls) {
      ToolAnswer result = ExecuteEvidenceTool(evidence_, call, shown_);
      answer.tool_calls.push_back(CallLine(call, result));
      llm::ChatMessage message{llm::Role::kTool, std::move(result.text)};
      message.tool_call_id = call.id;
      message.is_error = result.is_error;
      request.messages.push_back(std::move(message));
    }
  }
}

Result<AskAnswer> AskAgent::Ask(const std::string& question) {
  AskAnswer answer;
  answer.question = question;
  llm::ChatRequest request;
  if (conversation_.empty()) {
    KOPT_ASSIGN_OR_RETURN(request, FirstRequest(question));
  } else {
    request.system_prompt = system_prompt_;
    request.messages = conversation_;
    request.messages.push_back({llm::Role::kUser, question});
  }
  answer.answer.templates = templates_;
  KOPT_ASSIGN_OR_RETURN(llm::ChatChoice choice, Converse(request, answer));
  std::string text = Trimmed(choice.content);
  if (choice.finish_reason == "refusal" || choice.finish_reason == "content_filter" || text.empty()) {
    answer.answer.missing_reason =
        text.empty() ? "the LLM returned an empty answer" : "the LLM declined to answer";
    return answer;
  }
  answer.answer.claims = CheckNumericClaims(text, shown_);
  if (answer.answer.UnsupportedCount() > 0) {
    for (const NumericClaim& claim : answer.answer.claims) {
      if (!claim.supported) answer.answer.first_attempt_unsupported.push_back(claim.text);
    }
    KOPT_ASSIGN_OR_RETURN(RenderedPrompt regenerate,
                          Render(options_.prompt_directory, "ask/regenerate",
                                 {{"unsupported_claims", UnsupportedClaimList(answer.answer.claims)}}));
    answer.answer.templates.push_back(UseOf(regenerate.record));
    answer.answer.regenerated = true;
    request.messages.push_back({llm::Role::kAssistant, choice.content});
    request.messages.push_back({llm::Role::kUser, regenerate.text});
    Result<llm::ChatChoice> second = Converse(request, answer);
    if (second.ok() && !Trimmed(second->content).empty()) {
      text = Trimmed(second->content);
      choice = *second;
    } else {
      answer.answer.regeneration_error =
          second.ok() ? "the LLM returned an empty answer" : second.status().message();
    }
    answer.answer.claims = CheckNumericClaims(text, shown_);
  }
  answer.answer.text = MarkUnsupportedClaims(text, answer.answer.claims);
  request.messages.push_back({llm::Role::kAssistant, choice.content});
  conversation_ = std::move(request.messages);
  return answer;
}

}  // namespace kopt::agents
