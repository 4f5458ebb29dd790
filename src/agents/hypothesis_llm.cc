// The LLM pass of the hypotheses (hypotheses.h): the prompt with the source,
// SASS and ptxas summaries and the static pass's findings, and the robust
// parse of the answer.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "agents/hypotheses.h"
#include "analysis/tool.h"
#include "core/text.h"
#include "profile/kernel_launch.h"

namespace kopt::agents {
namespace {

std::string NumberedSource(std::string_view source) {
  std::string text;
  int line = 0;
  for (std::string_view row : SplitLines(source)) text += fmt::format("{:4} | {}\n", ++line, row);
  return text;
}

std::string SassSummary(const HypothesisInputs& inputs) {
  if (!inputs.sass) return "(not available)";
  std::string text;
  for (const SassFunction& function : inputs.sass->functions) {
    text += fmt::format("- {} ({}): {} instructions", FunctionNameOf(function.demangled_name),
                        function.architecture, function.InstructionCount());
    for (size_t index = 0; index < static_cast<size_t>(InstructionClass::kCount); ++index) {
      int count = function.class_counts[index];
      if (count > 0)
        text += fmt::format(", {} {}", count, InstructionClassName(static_cast<InstructionClass>(index)));
    }
    text += "\n";
  }
  return text.empty() ? "(no functions)" : text;
}

std::string PtxasSummary(const HypothesisInputs& inputs) {
  if (!inputs.ptxas) return "(not available)";
  std::string text;
  for (const PtxasFunctionReport& report : inputs.ptxas->functions) {
    text += fmt::format(
        "- {}: {} registers, {} bytes shared memory, {} bytes stack frame, {} bytes spill stores, {} "
        "bytes spill loads\n",
        FunctionNameOf(report.demangled_name), report.registers, report.shared_memory_bytes,
        report.stack_frame_bytes, report.spill_store_bytes, report.spill_load_bytes);
  }
  return text.empty() ? "(no functions)" : text;
}

std::string StaticSummary(const std::vector<Hypothesis>& hypotheses) {
  if (hypotheses.empty()) return "(none)";
  std::string text;
  for (const Hypothesis& hypothesis : hypotheses) {
    std::string lines;
    for (int line : hypothesis.source_lines) lines += (lines.empty() ? "" : ",") + std::to_string(line);
    text += fmt::format("- {} [{}] kernel '{}' lines {}\n", hypothesis.title,
                        fmt::join(hypothesis.confirming_findings, ", "), hypothesis.kernel,
                        lines.empty() ? "-" : lines);
  }
  return text;
}

Result<std::string> RenderHypothesisPrompt(const std::string& directory, const std::string& name,
                                           const std::map<std::string, std::string>& values,
                                           std::vector<PromptRecord>& records) {
  KOPT_ASSIGN_OR_RETURN(PromptTemplate prompt_template, LoadPromptTemplate(directory, "hypotheses/" + name));
  KOPT_ASSIGN_OR_RETURN(RenderedPrompt rendered, RenderPrompt(prompt_template, values));
  records.push_back(rendered.record);
  return rendered.text;
}

Result<llm::ChatRequest> BuildHypothesisRequest(const HypothesisInputs& inputs,
                                                const std::vector<Hypothesis>& found,
                                                const std::string& directory,
                                                std::vector<PromptRecord>& records) {
  std::string ids;
  for (const std::string& id : KnownFindingIds()) ids += "- " + id + "\n";
  llm::ChatRequest request;
  request.purpose = "hypotheses";
  KOPT_ASSIGN_OR_RETURN(
      request.system_prompt,
      RenderHypothesisPrompt(directory, "system", {{"finding_ids", ids}, {"max_predictions", "8"}}, records));
  KOPT_ASSIGN_OR_RETURN(std::string user,
                        RenderHypothesisPrompt(directory, "user",
                                               {{"source_file", inputs.source_file},
                                                {"numbered_source", NumberedSource(inputs.source)},
                                                {"sass_summary", SassSummary(inputs)},
                                                {"ptxas_summary", PtxasSummary(inputs)},
                                                {"static_predictions", StaticSummary(found)}},
                                               records));
  request.messages.push_back(llm::ChatMessage{llm::Role::kUser, std::move(user)});
  return request;
}

// The JSON text of an answer: a ```json fence's content, else from the first '[' or '{' to the last ']' or
// '}'.
std::string_view JsonPart(std::string_view answer) {
  size_t fence = answer.find("```json");
  if (fence != std::string_view::npos) {
    size_t begin = answer.find('\n', fence);
    size_t end = begin == std::string_view::npos ? begin : answer.find("```", begin);
    if (begin != std::string_view::npos && end != std::string_view::npos)
      return answer.substr(begin + 1, end - begin - 1);
  }
  size_t begin = answer.find_first_of("[{");
  size_t end = answer.find_last_of("]}");
  if (begin == std::string_view::npos || end == std::string_view::npos || end < begin) return {};
  return answer.substr(begin, end - begin + 1);
}

std::optional<std::string> StringField(const nlohmann::json& entry, const char* name) {
  auto found = entry.find(name);
  if (found == entry.end() || !found->is_string()) return std::nullopt;
  return found->get<std::string>();
}

// One entry of the LLM's array; nullopt (with `problem` set) when unusable.
std::optional<Hypothesis> ParseLlmEntry(const nlohmann::json& entry, const std::set<std::string>& known,
                                        std::string_view source_file, std::string& problem) {
  if (!entry.is_object()) {
    problem = "not an object";
    return std::nullopt;
  }
  Hypothesis hypothesis;
  hypothesis.origin = HypothesisOrigin::kLlm;
  hypothesis.source_file = std::string(source_file);
  hypothesis.kernel = StringField(entry, "kernel").value_or("");
  hypothesis.title = StringField(entry, "title").value_or("");
  hypothesis.reason = StringField(entry, "reason").value_or("");
  std::vector<std::string> unknown;
  auto findings = entry.find("findings");
  if (findings != entry.end() && findings->is_array()) {
    for (const nlohmann::json& id : *findings) {
      if (!id.is_string()) continue;
      std::string text = id.get<std::string>();
      if (known.count(text))
        hypothesis.confirming_findings.push_back(text);
      else
        unknown.push_back(text);
    }
  }
  auto lines = entry.find("lines");
  if (lines != entry.end() && lines->is_array()) {
    for (const nlohmann::json& line : *lines) {
      if (line.is_number_integer() && line.get<long long>() > 0 && line.get<long long>() < 10000000) {
        hypothesis.source_lines.push_back(static_cast<int>(line.get<long long>()));
      }
    }
  }
  if (hypothesis.confirming_findings.empty()) {
    problem = unknown.empty() ? "no \"findings\" list"
                              : fmt::format("unknown finding ids {}", fmt::join(unknown, ", "));
    return std::nullopt;
  }
  if (hypothesis.title.empty()) hypothesis.title = hypothesis.confirming_findings.front();
  return hypothesis;
}

}  // namespace

std::vector<std::string> KnownFindingIds() {
  std::vector<std::string> ids;
  for (const ToolDefinition& tool : ToolRegistry()) {
    if (tool.finding_ids.empty()) ids.push_back(tool.id);
    for (const std::string& id : tool.finding_ids) ids.push_back(id);
  }
  ids.erase(std::remove(ids.begin(), ids.end(), "healthy"), ids.end());
  return ids;
}

Result<LlmHypothesisParse> ParseLlmHypotheses(std::string_view answer, std::string_view source_file) {
  std::string_view json_text = JsonPart(answer);
  if (json_text.empty()) return InvalidInput("hypotheses answer: no JSON array in the answer");
  nlohmann::json parsed = nlohmann::json::parse(json_text, nullptr, false);
  if (parsed.is_discarded()) {
    return InvalidInput("hypotheses answer: invalid JSON (" + Abbreviate(json_text, 80) + ")");
  }
  if (parsed.is_object() && parsed.contains("hypotheses")) parsed = parsed["hypotheses"];
  if (!parsed.is_array()) return InvalidInput("hypotheses answer: expected a JSON array of predictions");
  std::vector<std::string> ids = KnownFindingIds();
  std::set<std::string> known(ids.begin(), ids.end());
  LlmHypothesisParse result;
  for (const nlohmann::json& entry : parsed) {
    std::string problem;
    std::optional<Hypothesis> hypothesis = ParseLlmEntry(entry, known, source_file, problem);
    if (!hypothesis) {
      ++result.dropped;
      result.problems.push_back(
          fmt::format("entry {}: {}", result.dropped + result.hypotheses.size(), problem));
      continue;
    }
    hypothesis->id = "llm_" + std::to_string(result.hypotheses.size() + 1);
    result.hypotheses.push_back(std::move(*hypothesis));
  }
  return result;
}

HypothesisSet PredictHypotheses(const HypothesisInputs& inputs, llm::ChatClient* client,
                                const std::string& prompt_directory) {
  HypothesisSet set;
  set.hypotheses = PredictStaticHypotheses(inputs);
  if (!client) return set;
  set.llm_attempted = true;
  Result<llm::ChatRequest> request =
      BuildHypothesisRequest(inputs, set.hypotheses, prompt_directory, set.prompts);
  if (!request.ok()) {
    set.llm_error = request.status().message();
    return set;
  }
  Result<llm::ChatResponse> response = client->Complete(*request);
  if (!response.ok()) {
    set.llm_error = "LLM call failed: " + response.status().message();
    return set;
  }
  if (response->choices.empty() || TrimWhitespace(response->choices.front().content).empty()) {
    std::string reason = response->choices.empty() ? "" : response->choices.front().finish_reason;
    set.llm_error =
        "the LLM gave an empty answer" + (reason.empty() ? "" : " (finish_reason " + reason + ")");
    return set;
  }
  Result<LlmHypothesisParse> parsed =
      ParseLlmHypotheses(response->choices.front().content, inputs.source_file);
  if (!parsed.ok()) {
    set.llm_error = parsed.status().message();
    return set;
  }
  if (parsed->dropped > 0) {
    set.llm_error =
        fmt::format("{} LLM prediction(s) dropped: {}", parsed->dropped, fmt::join(parsed->problems, "; "));
  }
  for (Hypothesis& hypothesis : parsed->hypotheses) set.hypotheses.push_back(std::move(hypothesis));
  return set;
}

}  // namespace kopt::agents
