// `kopt calibrate`: its options and its action, the declare function of its row in
// CommandTable() (command_table.h).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "app/calibrate.h"
#include "cli/command_table.h"
#include "core/subprocess.h"

namespace kopt::cli {

CommandAction DeclareCalibrate(CLI::App& command, const std::vector<std::string>&) {
  auto options = std::make_shared<CalibrateOptions>();
  command.add_option("--output,-o", options->output_path,
                     "Write the ceilings table to FILE (default: $KOPT_CEILINGS_DIR, else "
                     "~/.local/share/kopt/ceilings, named after the GPU)");
  command.add_option("--work-dir", options->work_directory,
                     "Build the microbenchmarks here (default: a temporary directory)");
  command.add_flag("--quick", options->quick, "Fewer points (one occupancy, three repetitions)");
  command.add_flag("!--no-ncu", options->ncu_copies, "Do not time the copies under ncu");
  command.add_flag(
      "--energy", options->energy,
      "Fit the energy model instead: NVML energy and ncu counts of the probe kernels (and of --task "
      "references); writes <gpu>.energy.toml and its samples (docs/energy.md)");
  command
      .add_option("--task", options->energy_tasks,
                  "With --energy: also fit on this task's reference (a task directory; repeatable)")
      ->check(CLI::ExistingDirectory);
  command.footer(
      "Needs a GPU: it runs microbenchmarks on it. Format of the tables: docs/calibrate.md, docs/energy.md.");
  return [options]() {
    auto runner = MakeSystemCommandRunner();
    return RunCalibrate(*options, *runner, std::cout);
  };
}

}  // namespace kopt::cli
