// `kopt task import-kernelbench PROBLEM.py|LEVEL_DIR... [--out DIR]`: turns
// KernelBench problem files into kopt task directories (docs/kernelbench.md;
// the conversion is harness/kernelbench_task.h). Each problem becomes
// DIR/<task name>/ (task.toml, reference.cu, problem.py, kernelbench.json,
// kopt_torch_reference.py). An existing task directory whose files differ
// from what the import would write (an edited task, another problem of the
// same name, other settings) is refused, naming the first differing file,
// unless `force` (then kopt's files are replaced); other files (a
// candidates/ folder) are always left alone. A directory argument imports
// its *.py files in name order. Each problem's probe runs under
// import.timeout_seconds: a get_inputs() that never returns fails that
// problem, naming its file, and the rest go on.
//
// Result: OK when every problem was imported; InvalidInput for a single
// problem kopt cannot read (the message names the file and the cause);
// WorkFailed when some problems of a directory failed (each is listed on
// `out`, the others are imported); NotFound for a path that does not exist.
//
// Thread safety: one call at a time per output directory.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"
#include "harness/kernelbench_task.h"

namespace kopt {

struct TaskImportOptions {
  std::vector<std::string> paths;      // problem files or level directories
  std::string output_directory = ".";  // where the task directories go
  KernelBenchImportOptions import;
  std::string protocol;  // "kernelbench" | "verified" | "kopt"; empty: import.inputs/tolerance as given
  bool force = false;    // replace kopt's files of an existing, different task directory
};

Status RunTaskImportKernelBench(const TaskImportOptions& options, CommandRunner& runner, std::ostream& out);

}  // namespace kopt
