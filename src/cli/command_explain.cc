// `kopt explain`: its options and its action, the declare function of its row in
// CommandTable() (command_table.h).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "app/explain.h"
#include "cli/command_options.h"
#include "cli/command_table.h"
#include "core/subprocess.h"

namespace kopt::cli {

// Over 80 lines by design: the command's option table, one declaration per option, kept in one place.
CommandAction DeclareExplain(CLI::App& command, const std::vector<std::string>& program_argv) {
  auto options = std::make_shared<ExplainOptions>();
  auto targets = std::make_shared<std::vector<std::string>>();
  auto color = std::make_shared<std::string>("auto");
  auto quiet = std::make_shared<bool>(false);
  AddColorOption(command, *color);
  AddQuietOption(command, *quiet);
  command.add_option(
      "target", *targets,
      "ncu raw-page CSV export, profile bundle directory, .ncu-rep report, or .cu file; several "
      "(versions of one operation, ranked), or a directory / glob / multi-kernel export with --sweep");
  command.add_option("--sweep", options->series.sweep,
                     "Treat the profiles as a sweep of parameter NAME (values from file names NAME=VALUE, "
                     "a sweep.csv sidecar, or the launch configuration: block, grid)");
  command.add_option("--sweep-values", options->series.sweep_values_path,
                     "CSV sidecar of the sweep: a file (or launch) column and parameter columns");
  command.add_option(
      "--format,-f", options->format,
      "Output format: term, md, json, html or feedback (compact, for an LLM programmer agent); "
      "default: from -o's extension (.html, .md, .json), else term");
  AddReportOutputOption(command, options->output_path);
  command.add_option("--kernel,-k", options->settings.profile.kernel_regex,
                     "Only kernels whose demangled name matches REGEX (case-insensitive unless REGEX has an "
                     "upper-case letter)");
  command
      .add_option("--launch-skip", options->settings.profile.launch_skip,
                  "Skip the first N matching launches")
      ->check(NonNegative());
  command
      .add_option("--launch-count", options->settings.profile.launch_count,
                  "Keep at most N matching launches (0: all)")
      ->check(NonNegative());
  command.add_option("--sass", options->settings.profile.sass_path,
                     "SASS listing (cuobjdump -sass) for a CSV profile");
  command.add_option("--ptxas", options->settings.profile.ptxas_path,
                     "ptxas report (nvcc -Xptxas -v) for a CSV profile");
  command.add_option("--source-page", options->settings.profile.source_page_path,
                     "ncu source page (--page source --csv --print-source sass) for a CSV profile");
  command.add_option("--gpu", options->settings.gpu,
                     "GPU spec row to use (key or device name; see kopt gpus)");
  command.add_option("--work-dir", options->settings.profile.work_directory,
                     "Live collection: where the profile bundle is written (default kopt-profile-<name>)");
  AddCollectionOptions(command, options->settings.profile.collection);
  command.add_option("--timeline", options->settings.profile.timeline_path,
                     "Launch timeline (kopt's CUPTI JSON lines) for a CSV profile (default: timeline*.jsonl "
                     "beside it); live collection: \"none\" skips the timeline run");
  command.add_option("--config", options->settings.config_path,
                     "Tool configuration (TOML): threshold overrides, see kopt rules");
  command.add_option(
      "--ceilings", options->settings.ceilings_path,
      "Measured ceilings (kopt calibrate): a table file or a directory of them; \"none\": peaks only "
      "(default: $KOPT_CEILINGS_DIR or ~/.local/share/kopt/ceilings)");
  command.add_option("--energy-model", options->settings.energy_model_path,
                     "Energy model coefficients (docs/energy.md): a *.energy.toml file or a directory of "
                     "them; \"none\": no energy section (default: $KOPT_CEILINGS_DIR, then the table shipped "
                     "for the GPU)");
  command.add_flag("--verbose,-v", options->verbose,
                   "Include every detail (with --llm: log every LLM call to stderr)");
  command.add_option(
      "--source", options->settings.source_path,
      "Kernel source (.cu) for the hypotheses and the LLM (default: TARGET when it is a .cu file)");
  command.add_flag("--hypotheses", options->settings.hypotheses,
                   "Predict bottlenecks from the source, SASS and ptxas report, then confirm or refute them");
  AddLlmNarrativeOptions(
      command, options->settings.llm,
      "Add a narrative written by an LLM, every number checked against the evidence (docs/explain-llm.md)");
  command.footer(
      "A program to profile may follow --: kopt explain [OPTIONS] -- PROGRAM [ARGS...]\n\nExamples:\n  kopt "
      "explain tests/fixtures/h200/uncoalesced_loads/raw.csv\n"
      "  kopt explain my_kernel.cu --format html -o report.html\n  kopt explain -- ./app --size 4096\n"
      "  kopt explain raw.csv --llm --llm-config llm.toml");
  return [options, targets, color, quiet, &program_argv]() {
    options->settings.profile.program_argv = program_argv;
    if (!targets->empty()) {
      options->settings.profile.target = targets->front();
      options->series.more_targets.assign(targets->begin() + 1, targets->end());
    }
    if (options->settings.profile.target.empty() && options->settings.profile.program_argv.empty()) {
      return InvalidInput("explain needs a TARGET (a profile, a .cu file) or a program after --");
    }
    if (!options->settings.profile.target.empty() && !options->settings.profile.program_argv.empty()) {
      return InvalidInput("explain takes a TARGET or a program after --, not both");
    }
    KOPT_RETURN_IF_ERROR(CheckLlmOptionsNeedLlm(options->settings.llm));
    // --timeline none: no timeline run for a live collection (a CSV's timeline file stays "none").
    if (options->settings.profile.timeline_path == "none")
      options->settings.profile.collection.timeline = false;
    options->color = ColorWanted(*color);
    options->width = TerminalWidth();
    options->progress = isatty(STDERR_FILENO) && !*quiet;
    auto runner = MakeSystemCommandRunner();
    return RunExplain(*options, *runner, std::cout);
  };
}

}  // namespace kopt::cli
