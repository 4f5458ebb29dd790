#include "agents/llm_generator.h"

#include <fmt/format.h>

#include "agents/code_extraction.h"

namespace kopt::agents {

LlmGenerator::LlmGenerator(llm::ChatClient& client, std::string prompt_directory, ProgrammerTask task)
    : client_(client), prompt_directory_(std::move(prompt_directory)), task_(std::move(task)) {}

Result<ProgrammerRequest> LlmGenerator::BuildRequest(const GenerationRequest& request) const {
  switch (request.mode) {
    case GenerationMode::kInitial: return BuildGenerateRequest(prompt_directory_, task_);
    case GenerationMode::kRepair: {
      RepairInput input;
      input.previous_source = request.parent_source;
      input.compiler_output = request.compiler_output;
      input.correctness_failure = request.correctness_failure;
      if (input.compiler_output.has_value() == input.correctness_failure.has_value()) {
        return Internal("repair request needs exactly one of compiler output and correctness failure");
      }
      return BuildRepairRequest(prompt_directory_, task_, input);
    }
    case GenerationMode::kOptimize: {
      OptimizeInput input;
      input.previous_source = request.parent_source;
      input.feedback_text = request.feedback_text;
      input.reference_time_seconds = request.reference_time_seconds;
      input.previous_time_seconds = request.parent_time_seconds;
      input.best_time_seconds = request.best_time_seconds;
      input.memory_notes = request.memory_notes;
      input.last_change_text = request.last_change_text;
      return BuildOptimizeRequest(prompt_directory_, task_, input);
    }
  }
  return Internal("unknown generation mode");
}

Result<GeneratedCandidate> LlmGenerator::Generate(const GenerationRequest& request) {
  KOPT_ASSIGN_OR_RETURN(ProgrammerRequest programmer_request, BuildRequest(request));
  KOPT_ASSIGN_OR_RETURN(llm::ChatResponse response, client_.Complete(programmer_request.request));
  GeneratedCandidate result;
  result.prompts = std::move(programmer_request.prompts);
  result.input_tokens = response.usage.input_tokens;
  result.output_tokens = response.usage.output_tokens;
  result.cost_usd = response.cost_usd;
  result.cost_known = response.cost_known;
  const llm::ChatChoice& choice = response.choices.front();
  result.response_text = choice.content;
  ExtractedCode code = ExtractCode(choice.content, choice.finish_reason, task_.entry_point);
  result.reason = fmt::format("llm {} ({}, {})", GenerationModeName(request.mode),
                              response.model.empty() ? "model unknown" : response.model,
                              ExtractionOutcomeName(code.outcome));
  if (!code.usable()) {
    result.outcome = GenerationOutcome::kNoCode;
    result.message = code.message;
    return result;
  }
  result.outcome = GenerationOutcome::kSource;
  result.source = std::move(code.source);
  return result;
}

}  // namespace kopt::agents
