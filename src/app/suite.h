// `kopt suite TASKS...` and `kopt suite status` (docs/suite.md): the
// commands' wiring. The driver is suite/suite_driver.h; this file turns the
// options into each problem's `kopt optimize` arguments, makes the local
// executor over --devices, draws the progress line and renders the table
// (also written as report.{md,json,html} into the suite's directory).
//
// Result: OK when every problem ended (failed problems are rows of the
// table, not an error); InvalidInput / NotFound for bad options, tasks or a
// suite that asks other work than the one of the same name.
//
// Thread safety: one call at a time per suite.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/status.h"
#include "optimize/optimize_settings.h"
#include "suite/slurm_settings.h"

namespace kopt {

// What every problem's optimize run is asked; each maps to the kopt optimize
// flag of the same name (docs/optimize.md), passed through unchanged.
struct SuiteOptimizeOptions {
  OptimizeBudget budget;               // per problem
  std::string generator = "scripted";  // scripted | llm | builtin
  std::string script_directory;        // --script
  std::string search = "auto";         // mcts | greedy | beam | random | sampling | auto
  std::string feedback = "diagnosis";  // diagnosis | raw | none | explanation | diagnosis+explanation
  bool profile = true;                 // false: --no-profile
  std::string llm_config_path;
  std::optional<uint64_t> seed;
  // The random-sampling control at the same budget (`--control random`):
  // --search sampling (independent initial samples, search/sampling_policy.cc)
  // --feedback none --no-profile, whatever the three say.
  bool random_control = false;
  std::vector<std::string> extra_arguments;  // after `--`: any other kopt optimize flags, verbatim
};

// Where the problems run (`--executor`): this host's GPUs, or Slurm jobs
// (suite/slurm_executor.h, docs/slurm.md).
enum class SuiteExecutorKind { kLocal, kSlurm };
Result<SuiteExecutorKind> ParseSuiteExecutorKind(std::string_view text);  // "local", "slurm"

// The Slurm flags of `kopt suite`; each set one overrides its key of the
// config file's [slurm] table (suite/slurm_settings.h).
struct SlurmFlags {
  std::optional<std::string> partition, account, qos, time_limit, environment_setup;
  std::optional<int> gpus_per_task;
  std::vector<std::string> extra_sbatch_options;  // added to the table's
};

struct SuiteOptions {
  std::vector<std::string> tasks;  // empty: resume the suite `name`
  SuiteExecutorKind executor = SuiteExecutorKind::kLocal;
  std::string config_path;  // TOML with a [slurm] table; "": none
  SlurmFlags slurm;
  std::string workspace = ".kopt";
  std::string name = "suite";
  std::vector<int> devices = {0};  // this host's GPUs; one problem per GPU at a time
  SuiteOptimizeOptions optimize;
  std::string format = "term";  // the final table: term | md | json | html
  std::string output_path;      // empty: stdout
  bool quiet = false;           // no progress lines
};

Status RunSuiteCommand(const SuiteOptions& options, std::ostream& out, std::ostream* progress);

struct SuiteStatusOptions {
  std::string workspace = ".kopt";
  std::string name = "suite";
  std::string format = "term";
  std::string output_path;
};

// The table so far of a suite (running, interrupted or finished); for a
// suite run with --executor slurm, then its Slurm jobs (term and md).
Status RunSuiteStatus(const SuiteStatusOptions& options, std::ostream& out);

// The kopt optimize arguments of SuiteOptimizeOptions (validated: InvalidInput
// naming the option for an unknown generator, search, feedback or a zero budget).
Result<std::vector<std::string>> SuiteOptimizeArguments(const SuiteOptimizeOptions& options);

}  // namespace kopt
