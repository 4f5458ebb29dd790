// `kopt plan`: its options and its action, the declare function of its row in
// CommandTable() (command_table.h).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "app/plan.h"
#include "cli/command_options.h"
#include "cli/command_table.h"
#include "core/subprocess.h"

namespace kopt::cli {

CommandAction DeclarePlan(CLI::App& command, const std::vector<std::string>&) {
  auto options = std::make_shared<PlanCommandOptions>();
  command
      .add_option("targets", options->targets,
                  "Profiles (one per program: CSV, bundle directory, .ncu-rep) or directories of them")
      ->required();
  command.add_option("--format,-f", options->format, "Output format: term, md, json or html");
  command.add_option("--output,-o", options->output_path, "Write the plan to FILE instead of stdout");
  command.add_option("--kernel,-k", options->kernel_regex, "Only kernels whose demangled name matches REGEX");
  command.add_option("--gpu", options->gpu, "GPU spec row to use (key or device name; see kopt gpus)");
  command.add_option("--config", options->config_path, "Tool configuration (TOML): threshold overrides");
  command.add_option("--max-findings", options->max_findings, "Ranked findings listed (0: all)")
      ->capture_default_str();
  command.add_option("--max-kernels", options->max_kernels, "Kernels listed by time (0: all)")
      ->capture_default_str();
  command.add_flag("--verbose,-v", options->llm.verbose, "With --llm: log every LLM call to stderr");
  AddLlmNarrativeOptions(
      command, options->llm,
      "Add a narrative over the whole plan written by an LLM, every number checked against "
      "the plan (docs/plan.md)");
  command.footer(
      "Examples:\n  kopt plan model_forward_backward.csv\n  kopt plan profiles/ -f html -o plan.html\n"
      "  kopt plan profiles/ --llm --llm-config llm.toml");
  return [options]() {
    KOPT_RETURN_IF_ERROR(CheckLlmOptionsNeedLlm(options->llm));
    auto runner = MakeSystemCommandRunner();
    return RunPlan(*options, *runner, std::cout, std::cerr);
  };
}

}  // namespace kopt::cli
