// `kopt bench`: its options and its action, the declare function of its row in
// CommandTable() (command_table.h).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <map>
#include <memory>

#include "app/bench.h"
#include "cli/command_options.h"
#include "cli/command_table.h"
#include "core/subprocess.h"

namespace kopt::cli {

CommandAction DeclareBench(CLI::App& command, const std::vector<std::string>&) {
  auto options = std::make_shared<BenchOptions>();
  auto seed = std::make_shared<long long>(-1);
  auto quiet = std::make_shared<bool>(false);
  AddQuietOption(command, *quiet);
  command.add_option("task", options->task_directory, "Task directory (task.toml + reference.cu)")
      ->required();
  command.add_option("candidates", options->candidate_paths,
                     "Candidate .cu files (default: TASK_DIR/candidates/*.cu)");
  command.add_option("--format,-f", options->format,
                     "Output format: term, md or json; default: from -o's extension (.md, .json), else term");
  AddReportOutputOption(command, options->output_path);
  command.add_option("--seed", *seed, "Derive the seeds from this number (reproduce a run; default: random)")
      ->check(NonNegative());
  command.add_flag("!--no-time", options->measure.time, "Check correctness only, do not time");
  AddMeasureOptions(command, options->measure);
  command.add_flag("--rerun", options->measure.rerun, "Measure again what the workspace already has");
  command.add_option("--device", options->measure.device, "CUDA device ordinal")->capture_default_str();
  command.add_flag("--compile-only", options->measure.compile_only, "Only compile (no GPU needed)");
  command
      .add_option(
          "--reference-cache", options->measure.reference_cache,
          "Reuse the expected outputs and seeds of an earlier run (trusted candidates only: they sit in the "
          "workspace): off (default), auto (imported KernelBench tasks), on")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, MeasureSettings::ReferenceCache>{
              {"auto", MeasureSettings::ReferenceCache::kAuto},
              {"on", MeasureSettings::ReferenceCache::kOn},
              {"off", MeasureSettings::ReferenceCache::kOff}},
          CLI::ignore_case));
  command
      .add_option(
          "--output-channel", options->measure.output_channel,
          "How candidate children send their outputs: pull (the default: kopt copies them out of the "
          "child's memory on several threads into reused memory; the pipe where the kernel refuses), pipe "
          "(lent to the pipe, read into reused memory) or memory (shared memory kopt seals after the child "
          "ended, where the kernel allows)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, MeasureSettings::OutputChannel>{
              {"pipe", MeasureSettings::OutputChannel::kPipe},
              {"memory", MeasureSettings::OutputChannel::kMemory},
              {"pull", MeasureSettings::OutputChannel::kPull}},
          CLI::ignore_case));
  command.footer(
      "Exit status: 0 when the run completed (even with failing candidates), 1 when the reference failed, 2 "
      "on bad input.\n\nExamples:\n  kopt bench examples/tasks/saxpy\n"
      "  kopt bench examples/tasks/softmax my_softmax.cu --format json -o result.json");
  return [options, seed, quiet]() {
    if (*seed >= 0) options->measure.seed = static_cast<uint64_t>(*seed);
    options->progress = isatty(STDERR_FILENO) && !*quiet;
    auto runner = MakeSystemCommandRunner();
    return RunBench(*options, DefaultBenchEnvironment(*runner, std::cerr), std::cout);
  };
}

}  // namespace kopt::cli
