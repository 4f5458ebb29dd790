#include "agents/explanation_agent.h"

#include <fmt/format.h>

#include <map>

#include "agents/prompt_template.h"

namespace kopt::agents {
namespace {

struct ExplainPrompts {
  RenderedPrompt system, user;
  PromptTemplate regenerate;
};

Result<RenderedPrompt> RenderTemplate(const std::string& directory, std::string_view id,
                                      const std::map<std::string, std::string>& values) {
  KOPT_ASSIGN_OR_RETURN(PromptTemplate prompt_template, LoadPromptTemplate(directory, id));
  return RenderPrompt(prompt_template, values);
}

Result<ExplainPrompts> LoadPrompts(const std::string& directory, std::string_view family,
                                   const std::string& digest) {
  ExplainPrompts prompts;
  KOPT_ASSIGN_OR_RETURN(prompts.system, RenderTemplate(directory, fmt::format("{}/system", family), {}));
  KOPT_ASSIGN_OR_RETURN(prompts.user,
                        RenderTemplate(directory, fmt::format("{}/user", family), {{"digest", digest}}));
  KOPT_ASSIGN_OR_RETURN(prompts.regenerate,
                        LoadPromptTemplate(directory, fmt::format("{}/regenerate", family)));
  return prompts;
}

PromptTemplateUse UseOf(const PromptRecord& record) {
  return PromptTemplateUse{record.id, record.version, record.template_sha256};
}

std::string OneLine(std::string text) {
  for (char& character : text) {
    if (character == '\n' || character == '\r') character = ' ';
  }
  return text;
}

std::string Trimmed(const std::string& text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  size_t last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

// The answer's text, or why there is none.
Result<std::string> AnswerText(const llm::ChatResponse& response) {
  if (response.choices.empty()) return WorkFailed("the LLM returned no answer");
  const llm::ChatChoice& choice = response.choices.front();
  if (choice.finish_reason == "refusal" || choice.finish_reason == "content_filter") {
    return WorkFailed(fmt::format("the LLM declined to answer (finish reason \"{}\")", choice.finish_reason));
  }
  std::string text = Trimmed(choice.content);
  if (text.empty()) return WorkFailed("the LLM returned an empty answer");
  return text;
}

void Account(const llm::ChatResponse& response, Narrative& narrative) {
  narrative.model = response.model;
  narrative.input_tokens += response.usage.input_tokens;
  narrative.output_tokens += response.usage.output_tokens;
  narrative.replayed = narrative.replayed || response.replayed;
}

Narrative Missing(std::string reason) {
  Narrative narrative;
  narrative.missing_reason = OneLine(std::move(reason));
  return narrative;
}

void Finish(const std::string& answer, const EvidenceSet& evidence, Narrative& narrative) {
  narrative.claims = CheckNumericClaims(answer, evidence);
  narrative.text = MarkUnsupportedClaims(answer, narrative.claims);
}

}  // namespace

std::string UnsupportedClaimList(const std::vector<NumericClaim>& claims) {
  std::string list;
  for (const NumericClaim& claim : claims) {
    if (!claim.supported) list += fmt::format("- \"{}\"\n", claim.text);
  }
  return list;
}

Narrative ExplanationAgent::Explain(const DigestInputs& inputs) {
  return ExplainDigest("explain", RenderEvidenceDigest(inputs), BuildEvidenceSet(inputs));
}

Narrative ExplanationAgent::ExplainDigest(std::string_view family, const std::string& digest,
                                          const EvidenceSet& evidence) {
  Result<ExplainPrompts> prompts = LoadPrompts(options_.prompt_directory, family, digest);
  if (!prompts.ok()) return Missing("no LLM narrative: prompt templates: " + prompts.status().message());
  llm::ChatRequest request;
  request.model = options_.model;
  request.system_prompt = prompts->system.text;
  request.messages = {{llm::Role::kUser, prompts->user.text}};
  request.temperature = options_.temperature;
  request.max_tokens = options_.max_tokens;
  request.purpose = std::string(family);
  Result<llm::ChatResponse> response = client_.Complete(request);
  if (!response.ok()) return Missing("no LLM narrative: " + response.status().message());
  Result<std::string> answer = AnswerText(*response);
  if (!answer.ok()) return Missing("no LLM narrative: " + answer.status().message());

  Narrative narrative;
  narrative.templates = {UseOf(prompts->system.record), UseOf(prompts->user.record)};
  Account(*response, narrative);
  Finish(*answer, evidence, narrative);
  if (narrative.UnsupportedCount() == 0) return narrative;

  // One regeneration, naming the offending claims.
  std::string offending = UnsupportedClaimList(narrative.claims);
  for (const NumericClaim& claim : narrative.claims) {
    if (!claim.supported) narrative.first_attempt_unsupported.push_back(claim.text);
  }
  Result<RenderedPrompt> regenerate = RenderPrompt(prompts->regenerate, {{"unsupported_claims", offending}});
  if (!regenerate.ok()) return narrative;
  narrative.templates.push_back(UseOf(regenerate->record));
  request.messages.push_back({llm::Role::kAssistant, *answer});
  request.messages.push_back({llm::Role::kUser, regenerate->text});
  request.purpose = std::string(family) + "-regenerate";
  narrative.regenerated = true;
  Result<llm::ChatResponse> second = client_.Complete(request);
  Result<std::string> second_answer =
      second.ok() ? AnswerText(*second) : Result<std::string>(second.status());
  if (!second_answer.ok()) {
    narrative.regeneration_error = OneLine(second_answer.status().message());
    return narrative;  // the first answer, marked
  }
  Account(*second, narrative);
  Finish(*second_answer, evidence, narrative);
  return narrative;
}

}  // namespace kopt::agents
