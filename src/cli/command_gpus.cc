// `kopt gpus`: its options and its action, the declare function of its row in
// CommandTable() (command_table.h).
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "app/gpus.h"
#include "cli/command_table.h"

namespace kopt::cli {

CommandAction DeclareGpus(CLI::App& command, const std::vector<std::string>&) {
  auto options = std::make_shared<GpusOptions>();
  command.add_option("--format,-f", options->format, "Output format: term, md or json")
      ->capture_default_str();
  command.add_flag("!--no-live", options->query_live, "Do not query the GPUs of this machine");
  return [options]() {
    if (const char* skip = std::getenv("KOPT_NO_GPU_QUERY"); skip && std::string(skip) == "1") {
      options->query_live = false;
    }
    return RunGpus(*options, std::cout);
  };
}

}  // namespace kopt::cli
