// `kopt eval mcq`: its options and its action, the declare function of its row in
// CommandTable() (command_table.h).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "app/eval.h"
#include "cli/command_table.h"
#include "core/subprocess.h"

namespace kopt::cli {

CommandAction DeclareEval(CLI::App& command, const std::vector<std::string>&) {
  auto options = std::make_shared<EvalMcqOptions>();
  command.require_subcommand(1);
  CLI::App* mcq = command.add_subcommand(
      "mcq", "Multiple-choice benchmark from labelled profile sets, scored per context with an LLM");
  mcq->add_option("sets", options->set_directories,
                  "Directories whose subdirectories hold a profile and its expected.toml label")
      ->required();
  mcq->add_option("--contexts", options->contexts, "Contexts to score: none, raw, diagnosis, explanation")
      ->delimiter(',')
      ->capture_default_str();
  mcq->add_option("--seed", options->seed, "Seed of the option order")->capture_default_str();
  mcq->add_option("--max-questions", options->max_questions, "Ask at most N questions (0: all)");
  mcq->add_option("--format,-f", options->format, "Output format: term, md, json or html");
  mcq->add_option("--output,-o", options->output_path, "Write the results to FILE instead of stdout");
  mcq->add_flag("--verbose,-v", options->verbose, "Log every LLM call to stderr");
  mcq->add_option("--llm-config", options->llm_config_path, "LLM configuration (TOML, [llm] table)");
  auto* record = mcq->add_option("--llm-record", options->llm_record_path, "Record every LLM exchange");
  mcq->add_option("--llm-replay", options->llm_replay_path, "Answer LLM calls from this transcript only")
      ->excludes(record);
  return [options]() {
    auto runner = MakeSystemCommandRunner();
    return RunEvalMcq(*options, *runner, std::cout, std::cerr);
  };
}

}  // namespace kopt::cli
