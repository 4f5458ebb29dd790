// `kopt ask`: its options and its action, the declare function of its row in
// CommandTable() (command_table.h).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "app/ask.h"
#include "cli/command_table.h"
#include "core/subprocess.h"

namespace kopt::cli {

CommandAction DeclareAsk(CLI::App& command, const std::vector<std::string>&) {
  auto options = std::make_shared<AskCommandOptions>();
  command
      .add_option("arguments", options->arguments,
                  "One or two profiles (or a .cu file), then the question in quotes; with --plan, programs")
      ->required();
  command.add_flag("--plan", options->plan,
                   "The targets are programs as kopt plan reads them (profiles or directories of them); the "
                   "agent also reads their plan");
  command.add_flag("--interactive,-i", options->interactive,
                   "Then read follow-up questions from standard input, one per line (an empty line ends)");
  command.add_option("--source", options->source_path,
                     "Kernel source the agent may read (default: a .cu TARGET)");
  command.add_option("--format,-f", options->format, "Output format: term, md or json")
      ->capture_default_str();
  command.add_option("--output,-o", options->output_path, "Write the answers to FILE instead of stdout");
  command.add_option("--kernel,-k", options->kernel_regex, "Only kernels whose demangled name matches REGEX");
  command.add_option("--gpu", options->gpu, "GPU spec row to use (key or device name; see kopt gpus)");
  command.add_option("--max-tool-rounds", options->max_tool_rounds, "Tool rounds per question")
      ->capture_default_str();
  command.add_flag("--verbose,-v", options->verbose, "Log every LLM call to stderr");
  command.add_option("--llm-config", options->llm_config_path, "LLM configuration (TOML, [llm] table)");
  auto* record = command.add_option("--llm-record", options->llm_record_path, "Record every LLM exchange");
  command.add_option("--llm-replay", options->llm_replay_path, "Answer LLM calls from this transcript only")
      ->excludes(record);
  command.footer(
      "Examples:\n  kopt ask bundle/ \"is it worth moving this to tensor cores?\"\n"
      "  kopt ask before.csv after.csv \"why is the new version slower?\"\n  kopt ask raw.csv -i\n"
      "  kopt ask --plan profiles/ \"which kernel should I fix first?\"");
  return [options]() {
    auto runner = MakeSystemCommandRunner();
    return RunAsk(*options, *runner, std::cin, std::cout, std::cerr);
  };
}

}  // namespace kopt::cli
