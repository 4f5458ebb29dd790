// `kopt rules`: its options and its action, the declare function of its row in
// CommandTable() (command_table.h).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "app/rules.h"
#include "cli/command_options.h"
#include "cli/command_table.h"

namespace kopt::cli {

CommandAction DeclareRules(CLI::App& command, const std::vector<std::string>&) {
  auto options = std::make_shared<RulesOptions>();
  command.add_option("tool", options->tool, "Show only this tool");
  command.add_option("--format,-f", options->format, "Output format: term, md or json")
      ->capture_default_str();
  command.add_option("--config", options->config_path, "Tool configuration (TOML) whose overrides to show");
  command.add_flag(
      "--policy", options->policy,
      "List the static policy of kopt bench instead: the constructs a candidate may not use, why, "
      "and how to allow one");
  return [options]() {
    options->width = TerminalWidth();
    return RunRules(*options, std::cout);
  };
}

}  // namespace kopt::cli
