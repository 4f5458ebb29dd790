#include "agents/mcq_scorer.h"

#include <fmt/format.h>

#include "agents/prompt_template.h"

namespace kopt::agents {

std::string_view McqContextName(McqContext context) {
  switch (context) {
    case McqContext::kNone: return "none";
    case McqContext::kRaw: return "raw";
    case McqContext::kDiagnosis: return "diagnosis";
    case McqContext::kExplanation: return "explanation";
  }
  return "unknown";
}

Result<McqContext> ParseMcqContext(std::string_view text) {
  for (McqContext context :
       {McqContext::kNone, McqContext::kRaw, McqContext::kDiagnosis, McqContext::kExplanation}) {
    if (text == McqContextName(context)) return context;
  }
  return InvalidInput(
      fmt::format("--contexts: \"{}\" is not a context; expected none, raw, diagnosis or explanation", text));
}

Result<McqReply> AskMcq(llm::ChatClient& client, const std::string& prompt_directory,
                        const McqQuestion& question, const std::string& context_text) {
  KOPT_ASSIGN_OR_RETURN(PromptTemplate system_template,
                        LoadPromptTemplate(prompt_directory, "eval/mcq_system"));
  KOPT_ASSIGN_OR_RETURN(PromptTemplate user_template, LoadPromptTemplate(prompt_directory, "eval/mcq_user"));
  std::string options;
  for (size_t i = 0; i < question.options.size(); ++i) {
    options += fmt::format("{}. {}\n", static_cast<char>('A' + i), question.options[i]);
  }
  std::string context = context_text.empty() ? "(no context)" : "Context:\n" + context_text;
  KOPT_ASSIGN_OR_RETURN(RenderedPrompt system, RenderPrompt(system_template, {}));
  KOPT_ASSIGN_OR_RETURN(
      RenderedPrompt user,
      RenderPrompt(user_template, {{"context", context}, {"question", question.stem}, {"options", options}}));
  llm::ChatRequest request;
  request.system_prompt = system.text;
  request.messages = {{llm::Role::kUser, user.text}};
  request.max_tokens = 128;
  request.purpose = "eval-mcq";
  KOPT_ASSIGN_OR_RETURN(llm::ChatResponse response, client.Complete(request));
  McqReply reply;
  reply.input_tokens = response.usage.input_tokens;
  reply.output_tokens = response.usage.output_tokens;
  reply.cost_usd = response.cost_usd;
  reply.cost_known = response.cost_known || response.replayed || response.from_cache;
  if (response.choices.empty()) return reply;
  reply.text = response.choices.front().content;
  reply.chosen = ParseOptionLetter(reply.text);
  if (reply.chosen && *reply.chosen >= question.options.size()) reply.chosen.reset();
  return reply;
}

}  // namespace kopt::agents
