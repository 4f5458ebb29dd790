// `kopt report`: its options and its action, the declare function of its row in
// CommandTable() (command_table.h).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "app/optimize.h"
#include "cli/command_options.h"
#include "cli/command_table.h"

namespace kopt::cli {

CommandAction DeclareReport(CLI::App& command, const std::vector<std::string>&) {
  auto options = std::make_shared<ReportOptions>();
  auto run = std::make_shared<long long>(-1);
  command.add_option("run", *run, "Run id (default: the newest kopt optimize run)")->check(NonNegative());
  command.add_option("--workspace,-w", options->workspace, "Workspace directory")->capture_default_str();
  command.add_option("--format,-f", options->format, "Output format: term, md, json or html")
      ->capture_default_str();
  AddReportOutputOption(command, options->output_path);
  return [options, run]() {
    if (*run >= 0) options->run = *run;
    return RunReport(*options, std::cout);
  };
}

}  // namespace kopt::cli
