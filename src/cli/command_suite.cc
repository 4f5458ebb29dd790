// `kopt suite` and `kopt suite status`: its options and its action, the declare function of its row in
// CommandTable() (command_table.h).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "app/suite.h"
#include "cli/command_options.h"
#include "cli/command_table.h"

namespace kopt::cli {

namespace {

// `kopt suite TASKS... [-- OPTIMIZE FLAGS]` and `kopt suite status`.
struct SuiteCommandLine {
  SuiteOptions options;
  SuiteStatusOptions status;
  std::string devices = "0";
  std::string control = "none";
  std::string executor = "local";
  std::string partition, account, qos, time_limit, environment_setup;
  int gpus_per_task = 1;
  long long max_evaluations = 20, max_llm_tokens = -1, seed = -1;
  double max_seconds = -1, max_gpu_seconds = -1, max_llm_cost = -1;
};

Status ResolveSuiteCommandLine(SuiteCommandLine& line, CLI::App& command) {
  SuiteOptimizeOptions& optimize = line.options.optimize;
  KOPT_ASSIGN_OR_RETURN(line.options.devices, ParseDevices(line.devices));
  KOPT_ASSIGN_OR_RETURN(line.options.executor, ParseSuiteExecutorKind(line.executor));
  SlurmFlags& slurm = line.options.slurm;
  if (command.count("--partition")) slurm.partition = line.partition;
  if (command.count("--account")) slurm.account = line.account;
  if (command.count("--qos")) slurm.qos = line.qos;
  if (command.count("--time")) slurm.time_limit = line.time_limit;
  if (command.count("--env-setup")) slurm.environment_setup = line.environment_setup;
  if (command.count("--gpus-per-task")) slurm.gpus_per_task = line.gpus_per_task;
  if (line.options.executor != SuiteExecutorKind::kSlurm &&
      (command.count("--partition") || command.count("--account") || command.count("--qos") ||
       command.count("--time") || command.count("--env-setup") || command.count("--gpus-per-task") ||
       command.count("--sbatch-option") || command.count("--config"))) {
    return InvalidInput(
        "--partition, --account, --qos, --time, --gpus-per-task, --sbatch-option, --env-setup and "
        "--config are for --executor slurm");
  }
  if (line.control != "none" && line.control != "random")
    return InvalidInput("--control: \"" + line.control + "\": expected none or random");
  optimize.random_control = line.control == "random";
  if (line.seed >= 0) optimize.seed = static_cast<uint64_t>(line.seed);
  optimize.budget.max_evaluations = line.max_evaluations;
  if (command.count("--max-seconds")) optimize.budget.max_seconds = line.max_seconds;
  if (command.count("--max-gpu-seconds")) optimize.budget.max_gpu_seconds = line.max_gpu_seconds;
  if (command.count("--max-llm-cost")) optimize.budget.max_llm_cost_usd = line.max_llm_cost;
  if (command.count("--max-llm-tokens")) optimize.budget.max_llm_tokens = line.max_llm_tokens;
  return Status::Ok();
}

}  // namespace

// Over 80 lines by design: the command's option table, one declaration per option, kept in one place.
CommandAction DeclareSuite(CLI::App& command, const std::vector<std::string>& optimize_flags) {
  auto line = std::make_shared<SuiteCommandLine>();
  SuiteOptions& options = line->options;
  SuiteOptimizeOptions& optimize = options.optimize;
  optimize.extra_arguments = optimize_flags;
  command.add_option(
      "tasks", options.tasks,
      "Task directories, level directories, list files or globs (none: resume the suite --name)");
  command
      .add_option("--workspace,-w", options.workspace,
                  "Workspace directory (the suite is in WORKSPACE/suites/NAME)")
      ->capture_default_str();
  command.add_option("--name", options.name, "The suite's name: the same name resumes it")
      ->capture_default_str();
  command
      .add_option("--devices", line->devices, "CUDA ordinals of this host, e.g. 0,1 (one problem per GPU)")
      ->capture_default_str();
  command
      .add_option("--executor", line->executor,
                  "Where problems run: local (--devices) or slurm (docs/slurm.md)")
      ->capture_default_str();
  command.add_option("--config", options.config_path, "Suite configuration (TOML) with a [slurm] table")
      ->check(CLI::ExistingFile);
  command.add_option("--partition", line->partition, "Slurm: sbatch --partition");
  command.add_option("--account", line->account, "Slurm: sbatch --account");
  command.add_option("--qos", line->qos, "Slurm: sbatch --qos");
  command.add_option("--time", line->time_limit,
                     "Slurm: each job's time limit (sbatch --time, e.g. 04:00:00)");
  command.add_option("--gpus-per-task", line->gpus_per_task, "Slurm: GPUs of each problem's job (default 1)")
      ->check(NonNegative());
  command.add_option("--sbatch-option", options.slurm.extra_sbatch_options,
                     "Slurm: another sbatch option, verbatim (repeatable), e.g. --sbatch-option=--mem=64G");
  command.add_option("--env-setup", line->environment_setup,
                     "Slurm: a shell line run in each job first, e.g. 'module load cuda/12.4'");
  command
      .add_option("--generator,-g", optimize.generator, "Candidate generator: " + agents::GeneratorNameList())
      ->capture_default_str();
  command.add_option("--script", optimize.script_directory,
                     "Scripted generator's answers (docs/optimize.md)");
  command
      .add_option("--search", optimize.search, "Search policy: mcts, greedy, beam, random, sampling or auto")
      ->capture_default_str();
  command
      .add_option("--feedback", optimize.feedback,
                  "What the generator is shown: diagnosis, raw, none, explanation or diagnosis+explanation")
      ->capture_default_str();
  command
      .add_option("--control", line->control,
                  "random: the random-sampling control at the same budget (independent samples, no feedback)")
      ->capture_default_str();
  command.add_flag("!--no-profile", optimize.profile, "Do not profile candidates (no feedback)");
  command.add_option("--llm-config", optimize.llm_config_path, "LLM configuration (TOML, docs/llm.md)");
  command.add_option("--seed", line->seed, "Every problem's seed")->check(NonNegative());
  command
      .add_option("--max-evaluations", line->max_evaluations, "Per problem: stop after this many evaluations")
      ->capture_default_str();
  command.add_option("--max-seconds", line->max_seconds, "Per problem: wall time, seconds");
  command.add_option("--max-gpu-seconds", line->max_gpu_seconds, "Per problem: GPU child time, seconds");
  command.add_option("--max-llm-cost", line->max_llm_cost, "Per problem: LLM cost, USD");
  command.add_option("--max-llm-tokens", line->max_llm_tokens, "Per problem: LLM tokens");
  command.add_option("--format,-f", options.format, "Final table: term, md, json or html")
      ->capture_default_str();
  command.add_option("--output,-o", options.output_path, "Write the final table to FILE");
  AddQuietOption(command, options.quiet);
  CLI::App* status = command.add_subcommand("status", "The table so far of a suite (running or interrupted)");
  status->add_option("--workspace,-w", line->status.workspace, "Workspace directory")->capture_default_str();
  status->add_option("--name", line->status.name, "The suite's name")->capture_default_str();
  status->add_option("--format,-f", line->status.format, "term, md, json or html")->capture_default_str();
  status->add_option("--output,-o", line->status.output_path, "Write the table to FILE");
  command.footer(
      "Flags after -- go to every problem's kopt optimize unchanged (e.g. -- --arch sm_90a --timeout 30).\n"
      "Resume after a kill: the same command again (or kopt suite --name NAME). Exit status: 0 when every "
      "problem ended (failures are rows of the table), 2 on bad input.\n\nExamples:\n"
      "  kopt suite tasks/kb_level1_* --generator llm --llm-config llm.toml --max-evaluations 30 --devices "
      "0,1\n"
      "  kopt suite tasks/ --name ablation --feedback none\n"
      "  kopt suite status -f html -o suite.html\n"
      "  kopt suite tasks/ --executor slurm --config cluster.toml --partition gpu --time 04:00:00");
  return [line, &command, status]() -> Status {
    if (status->parsed()) return RunSuiteStatus(line->status, std::cout);
    KOPT_RETURN_IF_ERROR(ResolveSuiteCommandLine(*line, command));
    return RunSuiteCommand(line->options, std::cout, &std::cerr);
  };
}

}  // namespace kopt::cli
