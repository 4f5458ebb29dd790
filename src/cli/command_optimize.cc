// `kopt optimize`: its options and its action, the declare function of its row in
// CommandTable() (command_table.h).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "app/optimize.h"
#include "cli/command_options.h"
#include "cli/command_table.h"
#include "core/subprocess.h"

namespace kopt::cli {

namespace {

struct OptimizeCommandLine {
  OptimizeOptions options;
  std::string generator = "scripted";
  std::string search = "auto";
  std::string objective = "time";
  std::string feedback = "diagnosis";
  std::string devices = "0";
  long long seed = -1;
  long long resume = -1;
  long long max_evaluations = 20;
  double max_seconds = -1, max_gpu_seconds = -1, max_llm_cost = -1;
  long long max_llm_tokens = -1;
  std::string task;
};

Status ResolveOptimizeCommandLine(OptimizeCommandLine& line, CLI::App& command) {
  OptimizeSettings& settings = line.options.settings;
  settings.task_directory = line.task;
  KOPT_ASSIGN_OR_RETURN(settings.generator, agents::ParseGeneratorKind(line.generator));
  if (line.search == "auto") {
    settings.search = DefaultSearchPolicy(settings.generator);
  } else {
    KOPT_ASSIGN_OR_RETURN(settings.search, ParseSearchPolicyKind(line.search));
  }
  std::optional<Objective> objective = ParseObjective(line.objective);
  if (!objective)
    return InvalidInput("--objective: \"" + line.objective + "\": expected time or time+energy");
  settings.objective = *objective;
  if (settings.objective == Objective::kTimeEnergy) settings.measure.energy = true;
  KOPT_ASSIGN_OR_RETURN(settings.feedback, ParseFeedbackMode(line.feedback));
  KOPT_ASSIGN_OR_RETURN(settings.devices, ParseDevices(line.devices));
  if (line.seed >= 0) settings.seed = static_cast<uint64_t>(line.seed);
  if (line.resume >= 0) settings.resume_run = line.resume;
  settings.budget.max_evaluations = line.max_evaluations;
  if (command.count("--max-seconds")) settings.budget.max_seconds = line.max_seconds;
  if (command.count("--max-gpu-seconds")) settings.budget.max_gpu_seconds = line.max_gpu_seconds;
  if (command.count("--max-llm-cost")) settings.budget.max_llm_cost_usd = line.max_llm_cost;
  if (command.count("--max-llm-tokens")) settings.budget.max_llm_tokens = line.max_llm_tokens;
  return Status::Ok();
}

}  // namespace

CommandAction DeclareOptimize(CLI::App& command, const std::vector<std::string>&) {
  auto line = std::make_shared<OptimizeCommandLine>();
  auto color = std::make_shared<std::string>("auto");
  AddColorOption(command, *color);
  OptimizeSettings& settings = line->options.settings;
  command.add_option("task", line->task, "Task directory (task.toml + reference.cu); optional with --resume");
  command.add_option("seeds", settings.seed_candidate_paths, "Seed candidate .cu files, evaluated first");
  command
      .add_option("--generator,-g", line->generator, "Candidate generator: " + agents::GeneratorNameList())
      ->capture_default_str();
  command.add_option("--script", settings.script_directory,
                     "Scripted generator: directory of .cu files or a script.toml (docs/optimize.md)");
  command
      .add_option(
          "--search", line->search,
          "Search policy: " + SearchPolicyNameList() + "; auto: greedy for --generator builtin, else mcts")
      ->capture_default_str();
  command
      .add_option("--objective", line->objective, "time, or time+energy (energy breaks ties within noise)")
      ->capture_default_str();
  command
      .add_option("--feedback", line->feedback,
                  "What the generator is shown: diagnosis, raw, none, explanation (the LLM's checked "
                  "narrative of the "
                  "profile) or diagnosis+explanation")
      ->capture_default_str();
  command.add_option(
      "--energy-model", settings.energy_model_path,
      "Energy proxy-model coefficients (file or directory; default: calibrated, else built-in)");
  command.add_flag("!--no-profile", settings.profile,
                   "Do not profile candidates (no feedback for the generator)");
  command.add_option("--max-evaluations", line->max_evaluations, "Stop after this many evaluations")
      ->capture_default_str();
  command.add_option("--max-seconds", line->max_seconds, "Stop after this much wall time, seconds");
  command.add_option("--max-gpu-seconds", line->max_gpu_seconds,
                     "Stop after this much GPU child time, seconds");
  command.add_option("--max-llm-cost", line->max_llm_cost, "Stop after this LLM cost, USD");
  command.add_option("--max-llm-tokens", line->max_llm_tokens, "Stop after this many LLM tokens");
  command
      .add_option("--seed", line->seed, "The run's seed (search and check seeds; default: random, stored)")
      ->check(NonNegative());
  command.add_option("--devices", line->devices, "CUDA ordinals to use, e.g. 0,1 (one evaluation per GPU)")
      ->capture_default_str();
  command.add_option("--resume", line->resume, "Continue run RUN of the workspace")->check(NonNegative());
  command.add_option("--llm-config", settings.llm_config_path, "LLM configuration (TOML, docs/llm.md)");
  command.add_option("--llm-record", settings.llm_record_path, "Record the LLM exchanges to this transcript");
  command.add_option("--llm-replay", settings.llm_replay_path, "Serve the LLM answers from this transcript");
  command.add_option("--format,-f", line->options.format, "Final report: term, md, json or html")
      ->capture_default_str();
  AddReportOutputOption(command, line->options.output_path);
  AddQuietOption(command, line->options.quiet);
  AddMeasureOptions(command, settings.measure);
  command.footer(
      "Exit status: 0 when the run finished, 1 when the reference failed, 2 on bad input or a paused run "
      "(resume it with --resume RUN).\n\nExamples:\n"
      "  kopt optimize examples/tasks/softmax --generator scripted --script my_candidates/\n"
      "  kopt optimize examples/tasks/gelu --generator llm --llm-config llm.toml --max-evaluations 40\n"
      "  kopt optimize --resume 3");
  return [line, color, &command]() -> Status {
    KOPT_RETURN_IF_ERROR(ResolveOptimizeCommandLine(*line, command));
    auto runner = MakeSystemCommandRunner();
    OptimizeCommandEnvironment environment;
    environment.measure = DefaultMeasureEnvironment(*runner);
    environment.progress = &std::cerr;
    line->options.color = ColorWanted(*color);
    return RunOptimize(line->options, environment, std::cout);
  };
}

}  // namespace kopt::cli
