// `kopt diff`: its options and its action, the declare function of its row in
// CommandTable() (command_table.h).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "app/diff.h"
#include "cli/command_options.h"
#include "cli/command_table.h"
#include "core/subprocess.h"

namespace kopt::cli {

CommandAction DeclareDiff(CLI::App& command, const std::vector<std::string>&) {
  auto options = std::make_shared<DiffOptions>();
  command
      .add_option("before", options->settings.before,
                  "The profile before the change (anything explain accepts)")
      ->required();
  command.add_option("after", options->settings.after, "The profile after the change")->required();
  command.add_option("--format,-f", options->format, "Output format: term, md, json or html")
      ->capture_default_str();
  AddReportOutputOption(command, options->output_path);
  command.add_option("--kernel,-k", options->settings.profile.kernel_regex,
                     "Only kernels whose demangled name matches REGEX");
  command.add_option(
      "--pair", options->settings.pairs,
      "Pair kernels by hand: BEFORE=AFTER, each a name regex or #N (launch index from 0); repeatable");
  command.add_option("--metrics", options->settings.moved_metrics, "Moved metrics listed per pair")
      ->capture_default_str();
  command.add_option("--gpu", options->settings.gpu,
                     "GPU spec row to use (key or device name; see kopt gpus)");
  command.add_option("--config", options->settings.config_path,
                     "Tool configuration (TOML): threshold overrides");
  AddCollectionOptions(command, options->settings.profile.collection);
  command.add_flag("--verbose,-v", options->settings.llm.verbose, "With --llm: log every LLM call to stderr");
  AddLlmNarrativeOptions(command, options->settings.llm,
                         "Add a narrative written by an LLM, every number checked against the comparison");
  command.footer(
      "Examples:\n  kopt diff before.csv after.csv\n  kopt diff ref/raw.csv cand/raw.csv -f html -o "
      "diff.html\n"
      "  kopt diff a.csv b.csv --pair 'reduce_pass1=#0'");
  return [options]() {
    KOPT_RETURN_IF_ERROR(CheckLlmOptionsNeedLlm(options->settings.llm));
    auto runner = MakeSystemCommandRunner();
    return RunDiff(*options, *runner, std::cout, std::cerr);
  };
}

}  // namespace kopt::cli
