// `kopt task import-kernelbench`: its options and its action, the declare function of its row in
// CommandTable() (command_table.h).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "app/task_import.h"
#include "cli/command_table.h"
#include "core/subprocess.h"

namespace kopt::cli {

CommandAction DeclareTask(CLI::App& command, const std::vector<std::string>&) {
  auto options = std::make_shared<TaskImportOptions>();
  command.require_subcommand(1);
  CLI::App* import = command.add_subcommand(
      "import-kernelbench",
      "Turn KernelBench problem files (or a level directory) into kopt task directories");
  import->add_option("problems", options->paths, "KernelBench problem files (*.py) or level directories")
      ->required();
  import->add_option("--out,-o", options->output_directory, "Where the task directories go")
      ->capture_default_str();
  CLI::Option* inputs =
      import
          ->add_option("--inputs", options->import.inputs,
                       "exercise (Student-t inputs: negatives, outliers) or kernelbench (the problem's own)")
          ->capture_default_str();
  CLI::Option* tolerance = import
                               ->add_option("--tolerance", options->import.tolerance,
                                            "kernelbench (its eval.py: 1e-4 for fp32), verified "
                                            "(KernelBench-Verified: 1e-3) or kopt (kopt's stricter defaults)")
                               ->capture_default_str();
  import
      ->add_option("--protocol", options->protocol,
                   "kernelbench (its inputs and tolerances), verified (its inputs, fp32 1e-3) or kopt "
                   "(exercising inputs, kopt's tolerances); sets --inputs and --tolerance")
      ->excludes(inputs)
      ->excludes(tolerance);
  import
      ->add_option(
          "--timeout", options->import.timeout_seconds,
          "Seconds to read one problem (its get_inputs, Model and forward); past it that problem fails")
      ->capture_default_str();
  import->add_flag("--force", options->force,
                   "Replace kopt's files of an existing task directory that differs (an edited task)");
  import->add_option("--python", options->import.python, "Python 3 interpreter (no PyTorch needed)")
      ->capture_default_str();
  import->footer(
      "Exit status: 0 when every problem was imported, 1 when some of a directory failed, 2 on bad input.\n\n"
      "Examples:\n  kopt task import-kernelbench KernelBench/level1/19_ReLU.py --out tasks/\n"
      "  kopt task import-kernelbench KernelBench/level1 --out tasks/ && kopt bench tasks/kb_level1_19_ReLU "
      "my_relu.cu");
  return [options]() {
    auto runner = MakeSystemCommandRunner();
    return RunTaskImportKernelBench(*options, *runner, std::cout);
  };
}

}  // namespace kopt::cli
