#include "agents/llm_generator.h"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "agents/code_extraction.h"
#include "agents/generator_table.h"
#include "core/file_io.h"
#include "harness/cutlass_tree.h"
#include "harness/kernelbench_task.h"
#include "harness/task_spec.h"

namespace kopt::agents {
namespace {

using nlohmann::json;

// What one generation has used of its tool limits.
struct ToolBudget {
  int rounds = 0;        // rounds executed so far
  size_t bytes = 0;      // result bytes sent so far
  bool refused = false;  // the last round's calls were refused (limits reached)
};

std::string ExchangeLine(int round, const llm::ToolCall& call, const ToolAnswer& answer) {
  json line{{"round", round},
            {"id", call.id},
            {"name", call.name},
            {"arguments", call.arguments},
            {"is_error", answer.is_error},
            {"result", answer.text}};
  return line.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

// `search_source "make_layout"`, `read_source include/cute/layout.hpp`: what a call looked up.
std::string LookupText(const llm::ToolCall& call) {
  json arguments = json::parse(call.arguments, nullptr, /*allow_exceptions=*/false);
  if (arguments.is_object()) {
    if (arguments.contains("query") && arguments["query"].is_string()) {
      return fmt::format("{} \"{}\"", call.name, arguments["query"].get<std::string>());
    }
    if (arguments.contains("path") && arguments["path"].is_string()) {
      return fmt::format("{} {}", call.name, arguments["path"].get<std::string>());
    }
  }
  return call.name;
}

// Cuts `answer` to the bytes left (at a line end when there is one); true when it did: the budget
// is then spent, whatever the cut left over.
bool FitToBudget(ToolAnswer& answer, size_t left) {
  if (answer.text.size() <= left) return false;
  size_t cut = answer.text.rfind('\n', left);
  answer.text.resize(cut == std::string::npos ? left : cut + 1);
  answer.text += "(cut: the tool-result budget of this generation is spent)\n";
  return true;
}

}  // namespace

LlmGenerator::LlmGenerator(llm::ChatClient& client, std::string prompt_directory, ProgrammerTask task,
                           ProgrammerTools tools)
    : client_(client),
      prompt_directory_(std::move(prompt_directory)),
      task_(std::move(task)),
      tools_(std::move(tools)) {}

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
  llm::ChatRequest& chat = programmer_request.request;
  if (tools_.tree != nullptr) {
    KOPT_RETURN_IF_ERROR(AddToolInstructions(prompt_directory_, tools_.tree_description, tools_.max_rounds,
                                             programmer_request));
    chat.tools = SourceSearchToolDefinitions(*tools_.tree, tools_.tree_description);
  }
  GeneratedCandidate result;
  result.prompts = std::move(programmer_request.prompts);
  ToolBudget budget;
  llm::ChatResponse response;
  while (true) {
    KOPT_ASSIGN_OR_RETURN(response, client_.Complete(chat));
    result.input_tokens += response.usage.input_tokens;
    result.output_tokens += response.usage.output_tokens;
    result.cost_usd += response.cost_usd;
    result.cost_known = result.cost_known && response.cost_known;
    const llm::ChatChoice& choice = response.choices.front();
    if (tools_.tree == nullptr || choice.tool_calls.empty()) break;
    if (budget.refused) {
      result.response_text = choice.content;
      result.outcome = GenerationOutcome::kNoCode;
      result.reason = fmt::format("llm {} ({}, tools past the limit)", GenerationModeName(request.mode),
                                  response.model.empty() ? "model unknown" : response.model);
      result.message = fmt::format(
          "the answer kept calling tools after the limit ({} rounds, {} bytes of results) instead of "
          "giving the code",
          tools_.max_rounds, tools_.max_result_bytes);
      return result;
    }
    budget.refused = budget.rounds >= tools_.max_rounds || budget.bytes >= tools_.max_result_bytes;
    int round = budget.rounds + 1;
    llm::ChatMessage assistant{llm::Role::kAssistant, choice.content};
    assistant.tool_calls = choice.tool_calls;
    chat.messages.push_back(std::move(assistant));
    for (const llm::ToolCall& call : choice.tool_calls) {
      ToolAnswer answer;
      if (budget.refused) {
        answer = {fmt::format("error: the tool limit of this answer is reached ({} rounds, {} bytes of "
                              "results); do not call tools again: answer now with the complete kernel "
                              "in one ```cuda block",
                              tools_.max_rounds, tools_.max_result_bytes),
                  true};
      } else {
        answer = ExecuteSourceSearchTool(*tools_.tree, call);
        bool cut =
            FitToBudget(answer, tools_.max_result_bytes - std::min(budget.bytes, tools_.max_result_bytes));
        budget.bytes = cut ? tools_.max_result_bytes : budget.bytes + answer.text.size();
      }
      result.tool_exchange += ExchangeLine(round, call, answer);
      if (!answer.is_error) result.source_lookups.push_back(LookupText(call));
      ++result.tool_calls;
      llm::ChatMessage message{llm::Role::kTool, std::move(answer.text)};
      message.tool_call_id = call.id;
      message.is_error = answer.is_error;
      chat.messages.push_back(std::move(message));
    }
    if (!budget.refused) ++budget.rounds;
  }
  const llm::ChatChoice& choice = response.choices.front();
  result.response_text = choice.content;
  ExtractedCode code = ExtractCode(choice.content, choice.finish_reason, task_.entry_point);
  result.reason = fmt::format("llm {} ({}, {}{})", GenerationModeName(request.mode),
                              response.model.empty() ? "model unknown" : response.model,
                              ExtractionOutcomeName(code.outcome),
                              result.tool_calls > 0 ? fmt::format(", {} tool calls", result.tool_calls) : "");
  if (!code.usable()) {
    result.outcome = GenerationOutcome::kNoCode;
    result.message = code.message;
    return result;
  }
  result.outcome = GenerationOutcome::kSource;
  result.source = std::move(code.source);
  return result;
}

namespace {

Result<ProgrammerTask> ProgrammerTaskFor(const TaskSpec& task, const std::string& architecture) {
  ProgrammerTask programmer;
  programmer.name = task.name;
  programmer.entry_point = task.entry;
  programmer.entry_signature = EntryPrototype(task);
  KOPT_ASSIGN_OR_RETURN(programmer.task_toml,
                        ReadWholeFile((std::filesystem::path(task.directory) / "task.toml").string()));
  programmer.reference_source = task.reference_source;
  programmer.architecture = architecture;
  KOPT_ASSIGN_OR_RETURN(programmer.kernelbench, LoadKernelBenchStatement(task.directory));
  return programmer;
}

}  // namespace

Status MakeLlmGeneratorParts(const GeneratorInputs& inputs, GeneratorParts& parts) {
  KOPT_ASSIGN_OR_RETURN(llm::ChatClient * client, inputs.open_client("--generator llm"));
  KOPT_ASSIGN_OR_RETURN(std::string prompts, inputs.prompt_directory());
  KOPT_ASSIGN_OR_RETURN(ProgrammerTask programmer, ProgrammerTaskFor(*inputs.task, inputs.architecture));
  ProgrammerTools tools;
  if (inputs.cutlass != nullptr) {
    KOPT_ASSIGN_OR_RETURN(SourceTree tree, SourceTree::Open(inputs.cutlass->root));
    parts.source_tree = std::make_unique<SourceTree>(std::move(tree));
    tools.tree = parts.source_tree.get();
    tools.tree_description = DescribeCutlassTree(*inputs.cutlass);
    parts.notes.push_back(
        fmt::format("the LLM programmer could search {} ({} files; at most {} tool rounds per answer)",
                    tools.tree_description, tools.tree->file_count(), tools.max_rounds));
  }
  parts.generator = std::make_unique<LlmGenerator>(*client, prompts, std::move(programmer), tools);
  return Status::Ok();
}

}  // namespace kopt::agents
