#include "agents/programmer_prompts.h"

#include <fmt/format.h>

#include <map>

namespace kopt::agents {
namespace {

using Values = std::map<std::string, std::string>;

// Loads and renders prompts/programmer/<name>.md, appending its record.
Result<std::string> RenderProgrammerPrompt(const std::string& prompt_directory, const std::string& name,
                                           const Values& values, std::vector<PromptRecord>& records) {
  std::string id = std::string(kProgrammerPromptGroup) + "/" + name;
  KOPT_ASSIGN_OR_RETURN(PromptTemplate prompt_template, LoadPromptTemplate(prompt_directory, id));
  KOPT_ASSIGN_OR_RETURN(RenderedPrompt rendered, RenderPrompt(prompt_template, values));
  records.push_back(rendered.record);
  return rendered.text;
}

std::string ArchitectureText(const ProgrammerTask& task) {
  return task.architecture.empty() ? "the target GPU's architecture" : task.architecture;
}

Status CheckTask(const ProgrammerTask& task) {
  if (task.entry_point.empty())
    return InvalidInput("programmer prompt: the task's entry point name is empty");
  if (task.entry_signature.empty()) {
    return InvalidInput("programmer prompt: the task's entry-point signature is empty");
  }
  return Status::Ok();
}

std::string TrimTrailingNewlines(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// The KernelBench problem section: empty for a native task, else the
// rendered kernelbench_problem template followed by a blank line.
Result<std::string> ProblemText(const std::string& prompt_directory, const ProgrammerTask& task,
                                std::vector<PromptRecord>& records) {
  if (!task.kernelbench.has_value()) return std::string();
  const KernelBenchStatement& problem = *task.kernelbench;
  std::string arguments;
  for (const std::string& line : problem.argument_lines) arguments += "- " + line + "\n";
  if (!arguments.empty()) arguments.pop_back();
  KOPT_ASSIGN_OR_RETURN(
      std::string text,
      RenderProgrammerPrompt(prompt_directory, "kernelbench_problem",
                             {{"problem", problem.problem},
                              {"level", problem.level > 0 ? std::to_string(problem.level) : "unknown"},
                              {"problem_source", TrimTrailingNewlines(problem.source)},
                              {"init_inputs", problem.init_inputs},
                              {"entry_signature", task.entry_signature},
                              {"arguments", arguments}},
                             records));
  return TrimTrailingNewlines(std::move(text)) + "\n\n";
}

// Renders <mode>_system (with the contract) and <mode>_user into a request.
Result<ProgrammerRequest> BuildRequest(const std::string& prompt_directory, const ProgrammerTask& task,
                                       const std::string& mode, const Values& user_values) {
  KOPT_RETURN_IF_ERROR(CheckTask(task));
  ProgrammerRequest result;
  std::vector<PromptRecord> contract_record;
  KOPT_ASSIGN_OR_RETURN(std::string contract,
                        RenderProgrammerPrompt(prompt_directory, "contract",
                                               {{"architecture", ArchitectureText(task)},
                                                {"entry_signature", task.entry_signature}},
                                               contract_record));
  KOPT_ASSIGN_OR_RETURN(std::string system, RenderProgrammerPrompt(prompt_directory, mode + "_system",
                                                                   {{"architecture", ArchitectureText(task)},
                                                                    {"contract", contract}},
                                                                   result.prompts));
  result.prompts.push_back(contract_record.front());
  Values values = user_values;
  values["task_name"] = task.name;
  values["entry_signature"] = task.entry_signature;
  values["task_toml"] = task.task_toml;
  if (mode != "generate") {
    KOPT_ASSIGN_OR_RETURN(values["problem"], ProblemText(prompt_directory, task, result.prompts));
  }
  KOPT_ASSIGN_OR_RETURN(std::string user,
                        RenderProgrammerPrompt(prompt_directory, mode + "_user", values, result.prompts));
  result.request.system_prompt = std::move(system);
  result.request.messages.push_back(llm::ChatMessage{llm::Role::kUser, std::move(user)});
  result.request.purpose = mode;
  result.request.max_tokens = 8192;
  return result;
}

std::string FormatNumber(double value) {
  return fmt::format("{:.4g}", value);
}

std::string FailureText(const RepairInput& input) {
  if (input.compiler_output) {
    return "It did not compile. The compiler output, verbatim:\n\n```text\n" + *input.compiler_output +
           "\n```";
  }
  const CorrectnessFailure& failure = *input.correctness_failure;
  std::string text = "It compiled but failed in the harness with `" + failure.kind + "`: " + failure.message;
  if (failure.max_abs_error) text += "\n- max absolute error: " + FormatNumber(*failure.max_abs_error);
  if (failure.max_rel_error) text += "\n- max relative error: " + FormatNumber(*failure.max_rel_error);
  if (failure.mismatches) text += "\n- mismatched elements: " + std::to_string(*failure.mismatches);
  return text;
}

std::string TimeText(double seconds) {
  return FormatNumber(seconds * 1e6) + " µs";
}

std::string TimingText(const OptimizeInput& input) {
  std::string text;
  if (input.reference_time_seconds) text += "- reference: " + TimeText(*input.reference_time_seconds) + "\n";
  auto add_candidate = [&](const char* label, const std::optional<double>& seconds) {
    if (!seconds) return;
    text += std::string("- ") + label + ": " + TimeText(*seconds);
    if (input.reference_time_seconds && *seconds > 0) {
      text += " (speedup " + FormatNumber(*input.reference_time_seconds / *seconds) + "x over the reference)";
    }
    text += "\n";
  };
  add_candidate("current implementation", input.previous_time_seconds);
  add_candidate("best so far", input.best_time_seconds);
  if (text.empty()) return "- no measurements yet";
  text.pop_back();
  return text;
}

std::string NotesText(const std::vector<std::string>& notes) {
  if (notes.empty()) return "- none yet";
  std::string text;
  for (const std::string& note : notes) text += "- " + note + "\n";
  text.pop_back();
  return text;
}

}  // namespace

Result<ProgrammerRequest> BuildGenerateRequest(const std::string& prompt_directory,
                                               const ProgrammerTask& task) {
  std::vector<PromptRecord> problem_records;
  Values values;
  if (task.kernelbench.has_value()) {
    KOPT_ASSIGN_OR_RETURN(std::string problem, ProblemText(prompt_directory, task, problem_records));
    values["reference"] = std::move(problem);
  } else {
    if (task.reference_source.empty())
      return InvalidInput("generate prompt: the task's reference.cu is empty");
    KOPT_ASSIGN_OR_RETURN(
        values["reference"],
        RenderProgrammerPrompt(prompt_directory, "reference_source",
                               {{"reference_source", task.reference_source}}, problem_records));
    values["reference"] = TrimTrailingNewlines(std::move(values["reference"])) + "\n\n";
  }
  KOPT_ASSIGN_OR_RETURN(ProgrammerRequest request, BuildRequest(prompt_directory, task, "generate", values));
  // The user template stays the last record (its text is the message sent).
  request.prompts.insert(request.prompts.end() - 1, problem_records.begin(), problem_records.end());
  return request;
}

Result<ProgrammerRequest> BuildRepairRequest(const std::string& prompt_directory, const ProgrammerTask& task,
                                             const RepairInput& input) {
  if (input.compiler_output.has_value() == input.correctness_failure.has_value()) {
    return InvalidInput("repair prompt: give exactly one of compiler_output and correctness_failure");
  }
  if (input.previous_source.empty()) return InvalidInput("repair prompt: the previous source is empty");
  return BuildRequest(prompt_directory, task, "repair",
                      {{"previous_source", input.previous_source}, {"failure", FailureText(input)}});
}

Result<ProgrammerRequest> BuildOptimizeRequest(const std::string& prompt_directory,
                                               const ProgrammerTask& task, const OptimizeInput& input) {
  if (input.previous_source.empty()) return InvalidInput("optimize prompt: the previous source is empty");
  std::string feedback = input.feedback_text.empty() ? "(no analysis available)" : input.feedback_text;
  return BuildRequest(
      prompt_directory, task, "optimize",
      {{"previous_source", input.previous_source},
       {"feedback", feedback},
       {"timing", TimingText(input)},
       {"memory_notes", NotesText(input.memory_notes)},
       {"last_change", input.last_change_text.empty()
                           ? "(no profile diff: this is the first change, or a side was not profiled)"
                           : input.last_change_text}});
}

Status AddToolInstructions(const std::string& prompt_directory, const std::string& tree_description,
                           int max_rounds, ProgrammerRequest& request) {
  KOPT_ASSIGN_OR_RETURN(std::string text, RenderProgrammerPrompt(prompt_directory, "tools",
                                                                 {{"tree_description", tree_description},
                                                                  {"max_rounds", std::to_string(max_rounds)}},
                                                                 request.prompts));
  request.request.system_prompt += "\n\n" + text;
  return Status::Ok();
}

}  // namespace kopt::agents
