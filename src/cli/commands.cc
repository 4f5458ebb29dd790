#include "cli/commands.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "app/ask.h"
#include "app/bench.h"
#include "app/calibrate.h"
#include "app/diff.h"
#include "app/eval.h"
#include "app/explain.h"
#include "app/gpus.h"
#include "app/optimize.h"
#include "app/plan.h"
#include "app/rules.h"
#include "app/suite.h"
#include "app/task_import.h"
#include "cli/help_documents.h"
#include "core/interrupt.h"
#include "core/subprocess.h"
#include "core/terminal_text.h"
#include "core/text.h"

namespace kopt {
namespace {

// One row of the command table: its name, one-line summary, and the function
// that declares its options on a CLI11 subcommand and returns the action.
// `program_argv` is everything after a `--` on the command line.
struct Command {
  const char* name;
  const char* summary;
  std::function<std::function<Status()>(CLI::App&, const std::vector<std::string>& program_argv)> declare;
};

// CLI11's NonNegativeNumber prints its range up to DBL_MAX (a 300-digit number); this says it plainly.
CLI::Validator NonNegative() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        double value = std::strtod(text.c_str(), &end);
        if (!text.empty() && end == text.c_str() + text.size() && value >= 0) return "";
        return "expected a number of at least 0, got " + text;
      },
      "NUMBER >= 0", "NonNegative");
}

// -o FILE of a command that writes one report: "-" (or leaving it out) is stdout.
void AddReportOutputOption(CLI::App& command, std::string& output_path) {
  command
      .add_option(
          "--output,-o", output_path,
          "Write the report to FILE instead of stdout (\"-\": stdout); its extension (.txt, .md, .json, "
          ".html) picks the format unless -f does")
      ->transform([](const std::string& value) { return value == "-" ? std::string() : value; });
}

// --color WHEN of the commands that colour a terminal report: auto (the default) colours when stdout is
// a terminal and NO_COLOR is unset or empty (no-color.org); always and never override both.
void AddColorOption(CLI::App& command, std::string& when) {
  command
      .add_option("--color", when,
                  "Colour the terminal report: auto, always or never (auto honours NO_COLOR)")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
}

// --quiet of the commands that draw a progress line on stderr: no progress (errors are still printed).
void AddQuietOption(CLI::App& command, bool& quiet) {
  command.add_flag("--quiet,-q", quiet, "No progress lines on stderr (errors are still printed)");
}

// The columns of the terminal on stdout; 100 when stdout is no terminal (a file or pipe gets the same
// report wherever it is made).
int TerminalWidth() {
  winsize size{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return size.ws_col;
  return 100;
}

bool ColorWanted(const std::string& when) {
  if (when == "always") return true;
  if (when == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  return isatty(STDOUT_FILENO) && (no_color == nullptr || *no_color == '\0');
}

// The live-collection options `kopt explain` and `kopt diff` share (analysis/collection_settings.h).
// --llm (its help names what the numbers are checked against), --llm-config,
// --llm-record and --llm-replay: the narrative options explain, diff and plan
// share (docs/llm.md). --verbose stays each command's own.
void AddLlmNarrativeOptions(CLI::App& command, LlmSettings& llm, const std::string& llm_help) {
  command.add_flag("--llm", llm.narrative, llm_help);
  command.add_option("--llm-config", llm.config_path, "LLM configuration (TOML, [llm] table; docs/llm.md)");
  auto* record = command.add_option("--llm-record", llm.record_path,
                                    "Record every LLM exchange to this transcript (JSON lines)");
  command
      .add_option("--llm-replay", llm.replay_path,
                  "Answer LLM calls from this transcript only (no network, no key)")
      ->excludes(record);
}

// The configuration and transcript options mean nothing without --llm.
Status CheckLlmOptionsNeedLlm(const LlmSettings& llm) {
  bool llm_options = !llm.config_path.empty() || !llm.record_path.empty() || !llm.replay_path.empty();
  if (llm_options && !llm.narrative)
    return InvalidInput("--llm-config, --llm-record and --llm-replay need --llm");
  return Status::Ok();
}

void AddCollectionOptions(CLI::App& command, CollectionSettings& settings) {
  command
      .add_option(
          "--set", settings.section_set,
          "Live collection: \"targeted\" (the metrics kopt's analysis reads, one fast ncu pass) or an "
          "ncu section set such as \"full\"")
      ->capture_default_str();
  command
      .add_option("--launches-per-kernel", settings.launches_per_configuration,
                  "Live collection: profile the first N launches of each kernel launch configuration under "
                  "ncu (the launch timeline still times every launch); 0: every launch")
      ->check(NonNegative())
      ->capture_default_str();
}

std::function<Status()> DeclareExplain(CLI::App& command, const std::vector<std::string>& program_argv) {
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

std::function<Status()> DeclareDiff(CLI::App& command, const std::vector<std::string>&) {
  auto options = std::make_shared<DiffOptions>();
  command
      .add_option("before", options->settings.before,
                  "The profile before the change (anything explain accepts)")
      ->required();
  command.add_option("after", options->settings.after, "The profile after the change")->required();
  command.add_option("--format,-f", options->format, "Output format: term, md, json or html")
      ->capture_default_str();
  AddReportOutputOption(command, options->output_path);
  command.add_option("--kernel,-k", options->settings.profile.kernel_regex,
                     "Only kernels whose demangled name matches REGEX");
  command.add_option(
      "--pair", options->settings.pairs,
      "Pair kernels by hand: BEFORE=AFTER, each a name regex or #N (launch index from 0); repeatable");
  command.add_option("--metrics", options->settings.moved_metrics, "Moved metrics listed per pair")
      ->capture_default_str();
  command.add_option("--gpu", options->settings.gpu,
                     "GPU spec row to use (key or device name; see kopt gpus)");
  command.add_option("--config", options->settings.config_path,
                     "Tool configuration (TOML): threshold overrides");
  AddCollectionOptions(command, options->settings.profile.collection);
  command.add_flag("--verbose,-v", options->settings.llm.verbose, "With --llm: log every LLM call to stderr");
  AddLlmNarrativeOptions(command, options->settings.llm,
                         "Add a narrative written by an LLM, every number checked against the comparison");
  command.footer(
      "Examples:\n  kopt diff before.csv after.csv\n  kopt diff ref/raw.csv cand/raw.csv -f html -o "
      "diff.html\n"
      "  kopt diff a.csv b.csv --pair 'reduce_pass1=#0'");
  return [options]() {
    KOPT_RETURN_IF_ERROR(CheckLlmOptionsNeedLlm(options->settings.llm));
    auto runner = MakeSystemCommandRunner();
    return RunDiff(*options, *runner, std::cout, std::cerr);
  };
}

std::function<Status()> DeclarePlan(CLI::App& command, const std::vector<std::string>&) {
  auto options = std::make_shared<PlanCommandOptions>();
  command
      .add_option("targets", options->targets,
                  "Profiles (one per program: CSV, bundle directory, .ncu-rep) or directories of them")
      ->required();
  command.add_option("--format,-f", options->format, "Output format: term, md, json or html");
  command.add_option("--output,-o", options->output_path, "Write the plan to FILE instead of stdout");
  command.add_option("--kernel,-k", options->kernel_regex, "Only kernels whose demangled name matches REGEX");
  command.add_option("--gpu", options->gpu, "GPU spec row to use (key or device name; see kopt gpus)");
  command.add_option("--config", options->config_path, "Tool configuration (TOML): threshold overrides");
  command.add_option("--max-findings", options->max_findings, "Ranked findings listed (0: all)")
      ->capture_default_str();
  command.add_option("--max-kernels", options->max_kernels, "Kernels listed by time (0: all)")
      ->capture_default_str();
  command.add_flag("--verbose,-v", options->llm.verbose, "With --llm: log every LLM call to stderr");
  AddLlmNarrativeOptions(
      command, options->llm,
      "Add a narrative over the whole plan written by an LLM, every number checked against "
      "the plan (docs/plan.md)");
  command.footer(
      "Examples:\n  kopt plan model_forward_backward.csv\n  kopt plan profiles/ -f html -o plan.html\n"
      "  kopt plan profiles/ --llm --llm-config llm.toml");
  return [options]() {
    KOPT_RETURN_IF_ERROR(CheckLlmOptionsNeedLlm(options->llm));
    auto runner = MakeSystemCommandRunner();
    return RunPlan(*options, *runner, std::cout, std::cerr);
  };
}

std::function<Status()> DeclareAsk(CLI::App& command, const std::vector<std::string>&) {
  auto options = std::make_shared<AskCommandOptions>();
  command
      .add_option("arguments", options->arguments,
                  "One or two profiles (or a .cu file), then the question in quotes")
      ->required();
  command.add_flag("--interactive,-i", options->interactive,
                   "Then read follow-up questions from standard input, one per line (an empty line ends)");
  command.add_option("--source", options->source_path,
                     "Kernel source the agent may read (default: a .cu TARGET)");
  command.add_option("--format,-f", options->format, "Output format: term, md or json")
      ->capture_default_str();
  command.add_option("--output,-o", options->output_path, "Write the answers to FILE instead of stdout");
  command.add_option("--kernel,-k", options->kernel_regex, "Only kernels whose demangled name matches REGEX");
  command.add_option("--gpu", options->gpu, "GPU spec row to use (key or device name; see kopt gpus)");
  command.add_option("--max-tool-rounds", options->max_tool_rounds, "Tool rounds per question")
      ->capture_default_str();
  command.add_flag("--verbose,-v", options->verbose, "Log every LLM call to stderr");
  command.add_option("--llm-config", options->llm_config_path, "LLM configuration (TOML, [llm] table)");
  auto* record = command.add_option("--llm-record", options->llm_record_path, "Record every LLM exchange");
  command.add_option("--llm-replay", options->llm_replay_path, "Answer LLM calls from this transcript only")
      ->excludes(record);
  command.footer(
      "Examples:\n  kopt ask bundle/ \"is it worth moving this to tensor cores?\"\n"
      "  kopt ask before.csv after.csv \"why is the new version slower?\"\n  kopt ask raw.csv -i");
  return [options]() {
    auto runner = MakeSystemCommandRunner();
    return RunAsk(*options, *runner, std::cin, std::cout, std::cerr);
  };
}

std::function<Status()> DeclareEval(CLI::App& command, const std::vector<std::string>&) {
  auto options = std::make_shared<EvalMcqOptions>();
  command.require_subcommand(1);
  CLI::App* mcq = command.add_subcommand(
      "mcq", "Multiple-choice benchmark from labelled profile sets, scored per context with an LLM");
  mcq->add_option("sets", options->set_directories,
                  "Directories whose subdirectories hold a profile and its expected.toml label")
      ->required();
  mcq->add_option("--contexts", options->contexts, "Contexts to score: none, raw, diagnosis, explanation")
      ->delimiter(',')
      ->capture_default_str();
  mcq->add_option("--seed", options->seed, "Seed of the option order")->capture_default_str();
  mcq->add_option("--max-questions", options->max_questions, "Ask at most N questions (0: all)");
  mcq->add_option("--format,-f", options->format, "Output format: term, md, json or html");
  mcq->add_option("--output,-o", options->output_path, "Write the results to FILE instead of stdout");
  mcq->add_flag("--verbose,-v", options->verbose, "Log every LLM call to stderr");
  mcq->add_option("--llm-config", options->llm_config_path, "LLM configuration (TOML, [llm] table)");
  auto* record = mcq->add_option("--llm-record", options->llm_record_path, "Record every LLM exchange");
  mcq->add_option("--llm-replay", options->llm_replay_path, "Answer LLM calls from this transcript only")
      ->excludes(record);
  return [options]() {
    auto runner = MakeSystemCommandRunner();
    return RunEvalMcq(*options, *runner, std::cout, std::cerr);
  };
}

std::function<Status()> DeclareGpus(CLI::App& command, const std::vector<std::string>&) {
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

std::function<Status()> DeclareRules(CLI::App& command, const std::vector<std::string>&) {
  auto options = std::make_shared<RulesOptions>();
  command.add_option("tool", options->tool, "Show only this tool");
  command.add_option("--format,-f", options->format, "Output format: term, md or json")
      ->capture_default_str();
  command.add_option("--config", options->config_path, "Tool configuration (TOML) whose overrides to show");
  command.add_flag(
      "--policy", options->policy,
      "List the static policy of kopt bench instead: the constructs a candidate may not use, why, "
      "and how to allow one");
  return [options]() {
    options->width = TerminalWidth();
    return RunRules(*options, std::cout);
  };
}

// The harness options `kopt bench` and `kopt optimize` share (measure/measure.h).
void AddMeasureOptions(CLI::App& command, MeasureSettings& settings) {
  command.add_option("--workspace,-w", settings.workspace, "Workspace directory (results database)")
      ->capture_default_str();
  command.add_option("--seeds", settings.seeds, "Correctness seeds per candidate (default: the task's)")
      ->check(NonNegative());
  command.add_flag("--energy", settings.energy, "Measure joules per launch (NVML)");
  command.add_option("--jobs,-j", settings.jobs, "Parallel compiles (default: all cores)")
      ->check(NonNegative());
  command.add_option("--timeout", settings.timeout_seconds, "Watchdog per child process, seconds")
      ->capture_default_str();
  command.add_option("--max-noise", settings.max_noise, "Stop timing at this relative stdev (fraction)")
      ->capture_default_str();
  command.add_option("--min-samples", settings.min_samples, "Timing samples at least")->capture_default_str();
  command
      .add_option("--timing-seconds", settings.timing_seconds, "Stop timing after this much time, seconds")
      ->capture_default_str();
  command.add_flag("--warm", settings.warm, "Warm-cache timing (no L2 flush before each sample)");
  command
      .add_option_function<std::vector<std::string>>(
          "--allow",
          [&settings](const std::vector<std::string>& names) {
            for (const std::string& name : names) settings.policy_allow.insert(*ParsePolicyConstruct(name));
          },
          "Let candidates use a construct the static policy screens out (threads, host_wait, ...; kopt rules "
          "--policy lists them); repeatable")
      ->check(CLI::Validator(
          [](std::string& name) {
            return ParsePolicyConstruct(name)
                       ? std::string()
                       : "\"" + name +
                             "\" is not a policy construct; expected one of: " + PolicyConstructList();
          },
          "CONSTRUCT"));
  command
      .add_option("--input-scale", settings.inputs.scale,
                  "Scale every floating-point input by this factor (3, 0.01; -1 negates); default 1")
      ->capture_default_str();
  command
      .add_option("--input-shape", settings.inputs.shape,
                  "Input values' shape: declared (the task's initialisers) or heavy_tailed (Student-t of the "
                  "declared spread)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, InputShape>{{"declared", InputShape::kDeclared},
                                            {"heavy_tailed", InputShape::kHeavyTailed}},
          CLI::ignore_case));
  command.add_option("--arch", settings.arch, "nvcc architecture, e.g. sm_90a (default: the GPU's)");
  command.add_option("--include-dir", settings.include_directories,
                     "Add DIR to every compile's include path (-I DIR); repeatable");
  CLI::Option* cutlass_dir = command.add_option("--cutlass-dir", settings.cutlass,
                                                "Compile with the CUTLASS/CuTe tree DIR (a checkout or its "
                                                "include/); the LLM programmer may search it");
  command
      .add_flag_callback(
          "--cutlass", [&settings] { settings.cutlass = kCutlassFromPip; },
          "Compile with the pip-installed nvidia-cutlass wheel's CUTLASS/CuTe headers; the LLM programmer "
          "may search them")
      ->excludes(cutlass_dir);
}

std::function<Status()> DeclareBench(CLI::App& command, const std::vector<std::string>&) {
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

// Parses the comma-separated --devices list ("0,1").
Result<std::vector<int>> ParseDevices(const std::string& text) {
  std::vector<int> devices;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    std::optional<long long> ordinal = ParseInteger(item);
    if (!ordinal || *ordinal < 0 || *ordinal > 1024) {
      return InvalidInput("--devices: \"" + text +
                          "\": expected CUDA ordinals separated by commas, e.g. 0,1");
    }
    devices.push_back(static_cast<int>(*ordinal));
    start = end + 1;
  }
  return devices;
}

struct OptimizeCommandLine {
  OptimizeOptions options;
  std::string generator = "scripted";
  std::string search = "auto";
  std::string objective = "time";
  std::string feedback = "diagnosis";
  std::string devices = "0";
  long long seed = -1;
  long long resume = -1;
  long long max_evaluations = 20;
  double max_seconds = -1, max_gpu_seconds = -1, max_llm_cost = -1;
  long long max_llm_tokens = -1;
  std::string task;
};

Status ResolveOptimizeCommandLine(OptimizeCommandLine& line, CLI::App& command) {
  OptimizeSettings& settings = line.options.settings;
  settings.task_directory = line.task;
  KOPT_ASSIGN_OR_RETURN(settings.generator, agents::ParseGeneratorKind(line.generator));
  if (line.search == "auto") {
    settings.search = DefaultSearchPolicy(settings.generator);
  } else {
    KOPT_ASSIGN_OR_RETURN(settings.search, ParseSearchPolicyKind(line.search));
  }
  std::optional<Objective> objective = ParseObjective(line.objective);
  if (!objective)
    return InvalidInput("--objective: \"" + line.objective + "\": expected time or time+energy");
  settings.objective = *objective;
  if (settings.objective == Objective::kTimeEnergy) settings.measure.energy = true;
  KOPT_ASSIGN_OR_RETURN(settings.feedback, ParseFeedbackMode(line.feedback));
  KOPT_ASSIGN_OR_RETURN(settings.devices, ParseDevices(line.devices));
  if (line.seed >= 0) settings.seed = static_cast<uint64_t>(line.seed);
  if (line.resume >= 0) settings.resume_run = line.resume;
  settings.budget.max_evaluations = line.max_evaluations;
  if (command.count("--max-seconds")) settings.budget.max_seconds = line.max_seconds;
  if (command.count("--max-gpu-seconds")) settings.budget.max_gpu_seconds = line.max_gpu_seconds;
  if (command.count("--max-llm-cost")) settings.budget.max_llm_cost_usd = line.max_llm_cost;
  if (command.count("--max-llm-tokens")) settings.budget.max_llm_tokens = line.max_llm_tokens;
  return Status::Ok();
}

std::function<Status()> DeclareOptimize(CLI::App& command, const std::vector<std::string>&) {
  auto line = std::make_shared<OptimizeCommandLine>();
  auto color = std::make_shared<std::string>("auto");
  AddColorOption(command, *color);
  OptimizeSettings& settings = line->options.settings;
  command.add_option("task", line->task, "Task directory (task.toml + reference.cu); optional with --resume");
  command.add_option("seeds", settings.seed_candidate_paths, "Seed candidate .cu files, evaluated first");
  command
      .add_option("--generator,-g", line->generator, "Candidate generator: " + agents::GeneratorNameList())
      ->capture_default_str();
  command.add_option("--script", settings.script_directory,
                     "Scripted generator: directory of .cu files or a script.toml (docs/optimize.md)");
  command
      .add_option(
          "--search", line->search,
          "Search policy: " + SearchPolicyNameList() + "; auto: greedy for --generator builtin, else mcts")
      ->capture_default_str();
  command
      .add_option("--objective", line->objective, "time, or time+energy (energy breaks ties within noise)")
      ->capture_default_str();
  command
      .add_option("--feedback", line->feedback,
                  "What the generator is shown: diagnosis, raw, none, explanation (the LLM's checked "
                  "narrative of the "
                  "profile) or diagnosis+explanation")
      ->capture_default_str();
  command.add_option(
      "--energy-model", settings.energy_model_path,
      "Energy proxy-model coefficients (file or directory; default: calibrated, else built-in)");
  command.add_flag("!--no-profile", settings.profile,
                   "Do not profile candidates (no feedback for the generator)");
  command.add_option("--max-evaluations", line->max_evaluations, "Stop after this many evaluations")
      ->capture_default_str();
  command.add_option("--max-seconds", line->max_seconds, "Stop after this much wall time, seconds");
  command.add_option("--max-gpu-seconds", line->max_gpu_seconds,
                     "Stop after this much GPU child time, seconds");
  command.add_option("--max-llm-cost", line->max_llm_cost, "Stop after this LLM cost, USD");
  command.add_option("--max-llm-tokens", line->max_llm_tokens, "Stop after this many LLM tokens");
  command
      .add_option("--seed", line->seed, "The run's seed (search and check seeds; default: random, stored)")
      ->check(NonNegative());
  command.add_option("--devices", line->devices, "CUDA ordinals to use, e.g. 0,1 (one evaluation per GPU)")
      ->capture_default_str();
  command.add_option("--resume", line->resume, "Continue run RUN of the workspace")->check(NonNegative());
  command.add_option("--llm-config", settings.llm_config_path, "LLM configuration (TOML, docs/llm.md)");
  command.add_option("--llm-record", settings.llm_record_path, "Record the LLM exchanges to this transcript");
  command.add_option("--llm-replay", settings.llm_replay_path, "Serve the LLM answers from this transcript");
  command.add_option("--format,-f", line->options.format, "Final report: term, md, json or html")
      ->capture_default_str();
  AddReportOutputOption(command, line->options.output_path);
  AddQuietOption(command, line->options.quiet);
  AddMeasureOptions(command, settings.measure);
  command.footer(
      "Exit status: 0 when the run finished, 1 when the reference failed, 2 on bad input or a paused run "
      "(resume it with --resume RUN).\n\nExamples:\n"
      "  kopt optimize examples/tasks/softmax --generator scripted --script my_candidates/\n"
      "  kopt optimize examples/tasks/gelu --generator llm --llm-config llm.toml --max-evaluations 40\n"
      "  kopt optimize --resume 3");
  return [line, color, &command]() -> Status {
    KOPT_RETURN_IF_ERROR(ResolveOptimizeCommandLine(*line, command));
    auto runner = MakeSystemCommandRunner();
    OptimizeCommandEnvironment environment;
    environment.measure = DefaultMeasureEnvironment(*runner);
    environment.progress = &std::cerr;
    line->options.color = ColorWanted(*color);
    return RunOptimize(line->options, environment, std::cout);
  };
}

// `kopt suite TASKS... [-- OPTIMIZE FLAGS]` and `kopt suite status`.
struct SuiteCommandLine {
  SuiteOptions options;
  SuiteStatusOptions status;
  std::string devices = "0";
  std::string control = "none";
  std::string executor = "local";
  std::string partition, account, qos, time_limit, environment_setup;
  int gpus_per_task = 1;
  long long max_evaluations = 20, max_llm_tokens = -1, seed = -1;
  double max_seconds = -1, max_gpu_seconds = -1, max_llm_cost = -1;
};

Status ResolveSuiteCommandLine(SuiteCommandLine& line, CLI::App& command) {
  SuiteOptimizeOptions& optimize = line.options.optimize;
  KOPT_ASSIGN_OR_RETURN(line.options.devices, ParseDevices(line.devices));
  KOPT_ASSIGN_OR_RETURN(line.options.executor, ParseSuiteExecutorKind(line.executor));
  SlurmFlags& slurm = line.options.slurm;
  if (command.count("--partition")) slurm.partition = line.partition;
  if (command.count("--account")) slurm.account = line.account;
  if (command.count("--qos")) slurm.qos = line.qos;
  if (command.count("--time")) slurm.time_limit = line.time_limit;
  if (command.count("--env-setup")) slurm.environment_setup = line.environment_setup;
  if (command.count("--gpus-per-task")) slurm.gpus_per_task = line.gpus_per_task;
  if (line.options.executor != SuiteExecutorKind::kSlurm &&
      (command.count("--partition") || command.count("--account") || command.count("--qos") ||
       command.count("--time") || command.count("--env-setup") || command.count("--gpus-per-task") ||
       command.count("--sbatch-option") || command.count("--config"))) {
    return InvalidInput(
        "--partition, --account, --qos, --time, --gpus-per-task, --sbatch-option, --env-setup and "
        "--config are for --executor slurm");
  }
  if (line.control != "none" && line.control != "random")
    return InvalidInput("--control: \"" + line.control + "\": expected none or random");
  optimize.random_control = line.control == "random";
  if (line.seed >= 0) optimize.seed = static_cast<uint64_t>(line.seed);
  optimize.budget.max_evaluations = line.max_evaluations;
  if (command.count("--max-seconds")) optimize.budget.max_seconds = line.max_seconds;
  if (command.count("--max-gpu-seconds")) optimize.budget.max_gpu_seconds = line.max_gpu_seconds;
  if (command.count("--max-llm-cost")) optimize.budget.max_llm_cost_usd = line.max_llm_cost;
  if (command.count("--max-llm-tokens")) optimize.budget.max_llm_tokens = line.max_llm_tokens;
  return Status::Ok();
}

std::function<Status()> DeclareSuite(CLI::App& command, const std::vector<std::string>& optimize_flags) {
  auto line = std::make_shared<SuiteCommandLine>();
  SuiteOptions& options = line->options;
  SuiteOptimizeOptions& optimize = options.optimize;
  optimize.extra_arguments = optimize_flags;
  command.add_option(
      "tasks", options.tasks,
      "Task directories, level directories, list files or globs (none: resume the suite --name)");
  command
      .add_option("--workspace,-w", options.workspace,
                  "Workspace directory (the suite is in WORKSPACE/suites/NAME)")
      ->capture_default_str();
  command.add_option("--name", options.name, "The suite's name: the same name resumes it")
      ->capture_default_str();
  command
      .add_option("--devices", line->devices, "CUDA ordinals of this host, e.g. 0,1 (one problem per GPU)")
      ->capture_default_str();
  command
      .add_option("--executor", line->executor,
                  "Where problems run: local (--devices) or slurm (docs/slurm.md)")
      ->capture_default_str();
  command.add_option("--config", options.config_path, "Suite configuration (TOML) with a [slurm] table")
      ->check(CLI::ExistingFile);
  command.add_option("--partition", line->partition, "Slurm: sbatch --partition");
  command.add_option("--account", line->account, "Slurm: sbatch --account");
  command.add_option("--qos", line->qos, "Slurm: sbatch --qos");
  command.add_option("--time", line->time_limit,
                     "Slurm: each job's time limit (sbatch --time, e.g. 04:00:00)");
  command.add_option("--gpus-per-task", line->gpus_per_task, "Slurm: GPUs of each problem's job (default 1)")
      ->check(NonNegative());
  command.add_option("--sbatch-option", options.slurm.extra_sbatch_options,
                     "Slurm: another sbatch option, verbatim (repeatable), e.g. --sbatch-option=--mem=64G");
  command.add_option("--env-setup", line->environment_setup,
                     "Slurm: a shell line run in each job first, e.g. 'module load cuda/12.4'");
  command
      .add_option("--generator,-g", optimize.generator, "Candidate generator: " + agents::GeneratorNameList())
      ->capture_default_str();
  command.add_option("--script", optimize.script_directory,
                     "Scripted generator's answers (docs/optimize.md)");
  command
      .add_option("--search", optimize.search, "Search policy: mcts, greedy, beam, random, sampling or auto")
      ->capture_default_str();
  command
      .add_option("--feedback", optimize.feedback,
                  "What the generator is shown: diagnosis, raw, none, explanation or diagnosis+explanation")
      ->capture_default_str();
  command
      .add_option("--control", line->control,
                  "random: the random-sampling control at the same budget (independent samples, no feedback)")
      ->capture_default_str();
  command.add_flag("!--no-profile", optimize.profile, "Do not profile candidates (no feedback)");
  command.add_option("--llm-config", optimize.llm_config_path, "LLM configuration (TOML, docs/llm.md)");
  command.add_option("--seed", line->seed, "Every problem's seed")->check(NonNegative());
  command
      .add_option("--max-evaluations", line->max_evaluations, "Per problem: stop after this many evaluations")
      ->capture_default_str();
  command.add_option("--max-seconds", line->max_seconds, "Per problem: wall time, seconds");
  command.add_option("--max-gpu-seconds", line->max_gpu_seconds, "Per problem: GPU child time, seconds");
  command.add_option("--max-llm-cost", line->max_llm_cost, "Per problem: LLM cost, USD");
  command.add_option("--max-llm-tokens", line->max_llm_tokens, "Per problem: LLM tokens");
  command.add_option("--format,-f", options.format, "Final table: term, md, json or html")
      ->capture_default_str();
  command.add_option("--output,-o", options.output_path, "Write the final table to FILE");
  AddQuietOption(command, options.quiet);
  CLI::App* status = command.add_subcommand("status", "The table so far of a suite (running or interrupted)");
  status->add_option("--workspace,-w", line->status.workspace, "Workspace directory")->capture_default_str();
  status->add_option("--name", line->status.name, "The suite's name")->capture_default_str();
  status->add_option("--format,-f", line->status.format, "term, md, json or html")->capture_default_str();
  status->add_option("--output,-o", line->status.output_path, "Write the table to FILE");
  command.footer(
      "Flags after -- go to every problem's kopt optimize unchanged (e.g. -- --arch sm_90a --timeout 30).\n"
      "Resume after a kill: the same command again (or kopt suite --name NAME). Exit status: 0 when every "
      "problem ended (failures are rows of the table), 2 on bad input.\n\nExamples:\n"
      "  kopt suite tasks/kb_level1_* --generator llm --llm-config llm.toml --max-evaluations 30 --devices "
      "0,1\n"
      "  kopt suite tasks/ --name ablation --feedback none\n"
      "  kopt suite status -f html -o suite.html\n"
      "  kopt suite tasks/ --executor slurm --config cluster.toml --partition gpu --time 04:00:00");
  return [line, &command, status]() -> Status {
    if (status->parsed()) return RunSuiteStatus(line->status, std::cout);
    KOPT_RETURN_IF_ERROR(ResolveSuiteCommandLine(*line, command));
    return RunSuiteCommand(line->options, std::cout, &std::cerr);
  };
}

std::function<Status()> DeclareReport(CLI::App& command, const std::vector<std::string>&) {
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

std::function<Status()> DeclareTask(CLI::App& command, const std::vector<std::string>&) {
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

std::function<Status()> DeclareCalibrate(CLI::App& command, const std::vector<std::string>&) {
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

std::function<Status()> DeclareCompletion(CLI::App& command, const std::vector<std::string>&) {
  auto shell = std::make_shared<std::string>();
  command.add_option("shell", *shell, "The shell: bash or zsh")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));
  command.footer(
      "cmake --install puts both scripts where bash-completion and zsh look. By hand:\n"
      "  kopt completion bash > ~/.local/share/bash-completion/completions/kopt\n"
      "  kopt completion zsh > ~/.zfunc/_kopt   # a directory on $fpath");
  return [shell, &command]() {
    const CLI::App& app = *command.get_parent();
    std::cout << (*shell == "zsh" ? ZshCompletionScript(app) : BashCompletionScript(app));
    return Status::Ok();
  };
}

std::function<Status()> DeclareMan(CLI::App& command, const std::vector<std::string>&) {
  command.footer("cmake --install puts it in share/man/man1/kopt.1. Without installing: kopt man | man -l -");
  return [&command]() {
    std::cout << ManPage(*command.get_parent(), KOPT_VERSION);
    return Status::Ok();
  };
}

const std::vector<Command>& CommandTable() {
  static const std::vector<Command> kCommands = {
      {"explain", "Explain what limits a kernel, from a profile, a report, a .cu file or a program",
       DeclareExplain},
      {"gpus", "List the GPU specification table and the GPUs of this machine", DeclareGpus},
      {"rules", "List the micro-profiling tools: inputs, thresholds, triggers", DeclareRules},
      {"bench", "Verify and time candidate kernels against a task's reference", DeclareBench},
      {"optimize", "Search for a faster kernel: generate, verify, time, profile, diagnose, repeat",
       DeclareOptimize},
      {"report", "Render a stored kopt optimize run", DeclareReport},
      {"suite", "Optimize a set of tasks (a KernelBench level, a list, a glob): resumable, fast_p table",
       DeclareSuite},
      {"task", "Task tools: import-kernelbench (KernelBench problems as kopt tasks)", DeclareTask},
      {"diff", "Explain what changed between two profiles: time attributed to its causes, findings",
       DeclareDiff},
      {"ask", "Ask a question about a profile (or two); an LLM answers from the evidence, numbers checked",
       DeclareAsk},
      {"eval", "Evaluations: eval mcq (multiple-choice benchmark over labelled profiles, per context)",
       DeclareEval},
      {"plan", "Plan a program's (or programs') optimization: where the time goes, findings by time saved",
       DeclarePlan},
      {"calibrate", "Measure this GPU's achievable ceilings (bandwidth and FLOP rate by size) for explain",
       DeclareCalibrate},
      {"completion", "Print the bash or zsh completion script", DeclareCompletion},
      {"man", "Print the man page (roff): kopt man | man -l -", DeclareMan},
  };
  return kCommands;
}

// Whether the command line asks for JSON (-f json, -fjson, --format json, --format=json, or without a
// format -o FILE.json): its error then goes to stderr as one JSON object, for the program reading it.
bool JsonRequested(const std::vector<std::string>& arguments) {
  std::optional<std::string> format;
  std::optional<std::string> output;
  for (size_t index = 0; index < arguments.size(); ++index) {
    const std::string& argument = arguments[index];
    std::string next = index + 1 < arguments.size() ? arguments[index + 1] : "";
    if (argument == "-f" || argument == "--format") {
      format = next;
    } else if (StartsWith(argument, "--format=")) {
      format = argument.substr(9);
    } else if (StartsWith(argument, "-f") && argument.size() > 2) {
      format = argument.substr(2);
    } else if (argument == "-o" || argument == "--output") {
      output = next;
    } else if (StartsWith(argument, "--output=")) {
      output = argument.substr(9);
    }
  }
  if (format) return ToLowerAscii(*format) == "json";
  return output && EndsWith(ToLowerAscii(*output), ".json");
}

// The kind as machine-readable errors name it (docs/json-schema.md, "Errors").
const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kOk: return "ok";
    case ErrorKind::kInvalidInput: return "invalid_input";
    case ErrorKind::kNotFound: return "not_found";
    case ErrorKind::kUnavailable: return "unavailable";
    case ErrorKind::kPermission: return "permission";
    case ErrorKind::kWorkFailed: return "work_failed";
    case ErrorKind::kInternal: return "internal";
  }
  return "internal";
}

// The one place errors are printed: "kopt: error: MESSAGE" (sanitized: messages quote input files,
// compilers and servers), or under JSON {"tool": "kopt", "error": {"kind", "exit_code", "message"}}.
void PrintError(const Status& status, bool json) {
  if (!json) {
    std::cerr << "kopt: error: " << SanitizeLinesForTerminal(status.message()) << "\n";
    return;
  }
  nlohmann::ordered_json error;
  error["kind"] = ErrorKindName(status.kind());
  error["exit_code"] = ExitCodeFor(status);
  error["message"] = status.message();
  nlohmann::ordered_json document;
  document["tool"] = "kopt";
  document["error"] = std::move(error);
  std::cerr << document.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

}  // namespace

int RunCommandLine(int argc, char** argv) {
  CLI::App app{"kopt: explains and optimizes CUDA kernels", "kopt"};
  app.set_version_flag("--version",
                       std::string("kopt ") + KOPT_VERSION + " (commit " + KOPT_GIT_COMMIT + ")");
  app.require_subcommand(1);
  // Everything after `--` is a program to profile; CLI11 never sees it.
  std::vector<std::string> arguments(argv + 1, argv + argc);
  std::vector<std::string> program_argv;
  if (auto dashes = std::find(arguments.begin(), arguments.end(), "--"); dashes != arguments.end()) {
    program_argv.assign(dashes + 1, arguments.end());
    arguments.erase(dashes, arguments.end());
  }
  // An unknown command is named as such (CLI11 would only say "A subcommand is required").
  const bool json_errors = JsonRequested(arguments);
  if (!arguments.empty() && !arguments.front().empty() && arguments.front()[0] != '-') {
    const std::vector<Command>& table = CommandTable();
    bool known = std::any_of(table.begin(), table.end(),
                             [&](const Command& command) { return arguments.front() == command.name; });
    if (!known) {
      std::string names;
      for (const Command& command : table) names += (names.empty() ? "" : ", ") + std::string(command.name);
      std::vector<std::string_view> command_names;
      for (const Command& command : table) command_names.push_back(command.name);
      Status unknown = InvalidInput("unknown command \"" + arguments.front() + "\"" +
                                    DidYouMean(arguments.front(), command_names) + "; the commands are " +
                                    names + " (kopt --help describes them)");
      PrintError(unknown, json_errors);
      return ExitCodeFor(unknown);
    }
  }
  std::function<Status()> action;
  for (const Command& command : CommandTable()) {
    CLI::App* subcommand = app.add_subcommand(command.name, command.summary);
    auto run = command.declare(*subcommand, program_argv);
    subcommand->callback([&action, run]() { action = run; });
  }
  try {
    std::reverse(arguments.begin(), arguments.end());  // CLI11 takes the arguments reversed
    app.parse(arguments);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() != 0 && json_errors) {
      Status usage = InvalidInput(error.what());
      PrintError(usage, true);
      return ExitCodeFor(usage);
    }
    int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }
  Status status = action ? action() : Internal("no command selected");
  // After Ctrl-C the command may end early because its children were killed: what it would print is
  // not true; the interrupt handler prints what happened and exits (core/interrupt.h).
  AwaitInterruptExit();
  // A report that did not reach stdout (`> /dev/full`, a closed pipe) is a failed command.
  if (!std::cout.flush() && status.ok()) {
    status = InvalidInput("standard output: write failed: " + std::string(std::strerror(errno)));
  }
  if (!status.ok()) PrintError(status, json_errors);
  return ExitCodeFor(status);
}

}  // namespace kopt
