#include "cli/commands.h"

#include <CLI/CLI.hpp>

namespace kopt {

int RunCommandLine(int argc, char** argv) {
  CLI::App app{"kopt: explains and optimizes CUDA kernels"};
  app.require_subcommand(1);
  CLI11_PARSE(app, argc, argv);
  return 0;
}

}  // namespace kopt
