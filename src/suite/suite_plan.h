// The problems of a suite (`kopt suite TASKS...`, docs/suite.md): what the
// command-line names, expanded into task directories.
//
// Each argument is one of:
// - a task directory (it holds task.toml): one problem;
// - a directory of task directories (a level: `tasks/level1/`, or the flat
//   output of `kopt task import-kernelbench`): each sub-directory holding a
//   task.toml, in name order;
// - a list file: one argument of these kinds per line (relative paths are
//   relative to the file's directory), `#` comments and blank lines ignored;
// - a glob (`tasks/kb_level1_*`): its matches, in name order, each expanded
//   as above (a list file is not read through a glob).
// The same task directory named twice counts once.
//
// A problem's key is its directory's name (unique in the suite: two
// directories of the same name are refused, naming both; only letters,
// digits, '.', '_' and '-', not starting with '.'). Its level: the
// `level` of an imported task's kernelbench.json, else the name of its parent
// directory when that is `levelN`, else "-".
//
// Thread safety: pure functions over the filesystem.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace kopt::suite {

struct SuiteProblem {
  std::string key;             // the task directory's name
  std::string task_directory;  // absolute, normalized
  std::string level;           // "level1", "level2", ..., or "-"
  bool operator==(const SuiteProblem&) const = default;
};

// NotFound naming the argument that names nothing (no file, no match, a
// directory without task.toml and without task directories); InvalidInput
// for two problems with the same key or an empty expansion.
Result<std::vector<SuiteProblem>> ExpandSuiteTasks(const std::vector<std::string>& arguments);

// "level1" for a KernelBench level number, "-" for 0 (unknown).
std::string LevelName(int level);

}  // namespace kopt::suite
