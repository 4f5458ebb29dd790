#include "app/suite.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <sstream>

#include "agents/generator_table.h"
#include "core/file_io.h"
#include "core/terminal_text.h"
#include "core/toml_document.h"
#include "report/report_format.h"
#include "report/text_table.h"
#include "search/search_policy.h"
#include "suite/local_executor.h"
#include "suite/slurm_executor.h"
#include "suite/suite_driver.h"
#include "suite/suite_renderer.h"
#include "suite/suite_results.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

constexpr std::array<ReportFormat, 4> kSuiteFormats = {ReportFormat::kTerminal, ReportFormat::kMarkdown,
                                                       ReportFormat::kJson, ReportFormat::kHtml};

std::string Number(double value) {
  return fmt::format("{}", value);
}

void AddBudget(const OptimizeBudget& budget, std::vector<std::string>& arguments) {
  if (budget.max_evaluations)
    arguments.insert(arguments.end(), {"--max-evaluations", std::to_string(*budget.max_evaluations)});
  if (budget.max_seconds) arguments.insert(arguments.end(), {"--max-seconds", Number(*budget.max_seconds)});
  if (budget.max_gpu_seconds)
    arguments.insert(arguments.end(), {"--max-gpu-seconds", Number(*budget.max_gpu_seconds)});
  if (budget.max_llm_cost_usd)
    arguments.insert(arguments.end(), {"--max-llm-cost", Number(*budget.max_llm_cost_usd)});
  if (budget.max_llm_tokens)
    arguments.insert(arguments.end(), {"--max-llm-tokens", std::to_string(*budget.max_llm_tokens)});
}

std::string Absolute(const std::string& path) {
  return path.empty() ? path : fs::absolute(path).string();
}

// The suite's reports beside its state: report.md, report.json, report.html.
Status WriteSuiteFiles(const suite::SuiteReport& report) {
  for (ReportFormat format : {ReportFormat::kMarkdown, ReportFormat::kJson, ReportFormat::kHtml}) {
    KOPT_ASSIGN_OR_RETURN(std::string text, suite::RenderSuiteReport(report, format));
    std::string path =
        (fs::path(report.directory) / ("report." + std::string(ReportFileExtension(format)))).string();
    KOPT_RETURN_IF_ERROR(WriteFileAtomically(path, text));
  }
  return Status::Ok();
}

Status Emit(const suite::SuiteReport& report, const std::string& format_name, const std::string& output_path,
            std::ostream& out) {
  KOPT_ASSIGN_OR_RETURN(ReportFormat format, ResolveReportFormat(format_name, output_path, kSuiteFormats));
  KOPT_ASSIGN_OR_RETURN(std::string text, suite::RenderSuiteReport(report, format));
  if (output_path.empty()) {
    out << (format == ReportFormat::kTerminal ? SanitizeLinesForTerminal(text) : text);
    return Status::Ok();
  }
  return WriteFileAtomically(output_path, text);
}

Result<std::string> KoptProgram() {
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) return Unavailable("cannot find the kopt executable (/proc/self/exe): " + error.message());
  return self.string();
}

// The [slurm] table of the config file, then the flags over it.
Result<suite::SlurmSettings> ResolveSlurmSettings(const SuiteOptions& options) {
  suite::SlurmSettings slurm;
  if (!options.config_path.empty()) {
    KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(options.config_path));
    KOPT_ASSIGN_OR_RETURN(toml::table document, ParseTomlDocument(text, options.config_path));
    KOPT_RETURN_IF_ERROR(suite::ReadSlurmTable(document, options.config_path, slurm));
  }
  const SlurmFlags& flags = options.slurm;
  if (flags.partition) slurm.partition = *flags.partition;
  if (flags.account) slurm.account = *flags.account;
  if (flags.qos) slurm.qos = *flags.qos;
  if (flags.time_limit) slurm.time_limit = *flags.time_limit;
  if (flags.environment_setup) slurm.environment_setup = *flags.environment_setup;
  if (flags.gpus_per_task) slurm.gpus_per_task = *flags.gpus_per_task;
  slurm.extra_sbatch_options.insert(slurm.extra_sbatch_options.end(), flags.extra_sbatch_options.begin(),
                                    flags.extra_sbatch_options.end());
  KOPT_RETURN_IF_ERROR(suite::ValidateSlurmSettings(slurm));
  return slurm;
}

// A work's command after an interruption: `kopt optimize --resume RUN` over
// its workspace once the workspace holds the run (as OptimizeCommandFor
// builds it for a restarted driver), else the command again.
std::vector<std::string> ContinuationCommand(const suite::ProblemWork& work) {
  std::vector<std::string> command = work.command;
  auto workspace = std::find(command.begin(), command.end(), "--workspace");
  if (command.size() < 3 || command[1] != "optimize" || command[2] == "--resume" ||
      workspace == command.end() || workspace + 1 == command.end()) {
    return command;
  }
  std::optional<int64_t> run = suite::ProblemRun(*(workspace + 1));
  if (!run) return command;
  command[2] = "--resume";
  command.insert(command.begin() + 3, std::to_string(*run));
  return command;
}

Result<std::unique_ptr<suite::Executor>> MakeExecutor(const SuiteOptions& options) {
  switch (options.executor) {
    case SuiteExecutorKind::kLocal: {
      suite::LocalExecutorSettings local;
      local.devices = options.devices;
      return suite::MakeLocalExecutor(local);
    }
    case SuiteExecutorKind::kSlurm: {
      suite::SlurmExecutorSettings settings;
      KOPT_ASSIGN_OR_RETURN(settings.slurm, ResolveSlurmSettings(options));
      settings.suite_directory =
          fs::absolute(suite::SuiteDirectory(options.workspace, options.name)).string();
      settings.continuation_command = ContinuationCommand;
      static std::unique_ptr<CommandRunner> runner = MakeSystemCommandRunner();
      return suite::MakeSlurmExecutor(settings, *runner);
    }
  }
  return Internal("kopt bug: unknown executor kind");
}

// The Slurm jobs of a suite run with --executor slurm ("" for another).
Result<std::string> SlurmJobsText(const std::string& suite_directory, ReportFormat format) {
  KOPT_ASSIGN_OR_RETURN(std::vector<suite::SlurmJobRow> rows, suite::ReadSlurmJobRecord(suite_directory));
  if (rows.empty() || (format != ReportFormat::kTerminal && format != ReportFormat::kMarkdown))
    return std::string();
  TextTable table;
  table.rows.push_back({"problem", "state", "job", "attempt", "lost", "continued", "detail"});
  table.right_aligned = {false, false, false, true, true, true, false};
  for (const suite::SlurmJobRow& row : rows) {
    table.rows.push_back({row.key, std::string(suite::WorkStateName(row.state)),
                          row.job.empty() ? "-" : row.job, std::to_string(row.attempt),
                          std::to_string(row.node_failures), std::to_string(row.continuations), row.detail});
  }
  if (format == ReportFormat::kMarkdown)
    return "\n## Slurm jobs\n\n" + MarkdownTable(table, MarkdownRule::kSpaced);
  std::string text = "\nSlurm jobs\n";
  for (const std::string& line : AlignedTableLines(table, AlignedLayout{2, 0, false})) text += line + "\n";
  return text;
}

}  // namespace

Result<SuiteExecutorKind> ParseSuiteExecutorKind(std::string_view text) {
  if (text == "local") return SuiteExecutorKind::kLocal;
  if (text == "slurm") return SuiteExecutorKind::kSlurm;
  return InvalidInput(fmt::format("--executor: \"{}\": expected local or slurm", text));
}

Result<std::vector<std::string>> SuiteOptimizeArguments(const SuiteOptimizeOptions& options) {
  KOPT_RETURN_IF_ERROR(ValidateBudget(options.budget));
  KOPT_RETURN_IF_ERROR(agents::ParseGeneratorKind(options.generator).status());
  std::string search = options.random_control ? "sampling" : options.search;
  std::string feedback = options.random_control ? "none" : options.feedback;
  if (search != "auto") KOPT_RETURN_IF_ERROR(ParseSearchPolicyKind(search).status());
  KOPT_RETURN_IF_ERROR(ParseFeedbackMode(feedback).status());
  std::vector<std::string> arguments = {"--generator", options.generator, "--search",
                                        search,        "--feedback",      feedback};
  if (!options.profile || options.random_control) arguments.push_back("--no-profile");
  if (!options.script_directory.empty())
    arguments.insert(arguments.end(), {"--script", Absolute(options.script_directory)});
  if (!options.llm_config_path.empty())
    arguments.insert(arguments.end(), {"--llm-config", Absolute(options.llm_config_path)});
  if (options.seed) arguments.insert(arguments.end(), {"--seed", std::to_string(*options.seed)});
  AddBudget(options.budget, arguments);
  arguments.insert(arguments.end(), options.extra_arguments.begin(), options.extra_arguments.end());
  return arguments;
}

Status RunSuiteCommand(const SuiteOptions& options, std::ostream& out, std::ostream* progress) {
  KOPT_RETURN_IF_ERROR(ResolveReportFormat(options.format, options.output_path, kSuiteFormats).status());
  suite::SuiteRunSettings settings;
  settings.workspace = options.workspace;
  settings.name = options.name;
  if (!options.tasks.empty()) {
    KOPT_ASSIGN_OR_RETURN(settings.problems, suite::ExpandSuiteTasks(options.tasks));
    KOPT_ASSIGN_OR_RETURN(settings.optimize_arguments, SuiteOptimizeArguments(options.optimize));
  }
  KOPT_ASSIGN_OR_RETURN(settings.kopt_program, KoptProgram());
  KOPT_ASSIGN_OR_RETURN(std::unique_ptr<suite::Executor> executor, MakeExecutor(options));
  if (options.executor == SuiteExecutorKind::kSlurm) {
    // squeue at the cluster's pace, not the local executor's.
    KOPT_ASSIGN_OR_RETURN(suite::SlurmSettings slurm, ResolveSlurmSettings(options));
    settings.poll_seconds = slurm.poll_seconds;
  }
  suite::SuiteEnvironment environment;
  environment.executor = executor.get();
  if (progress != nullptr && !options.quiet) {
    environment.progress = [progress](const suite::SuiteReport& report) {
      *progress << SanitizeForTerminal(suite::FormatSuiteProgressLine(report)) << "\n" << std::flush;
    };
  }
  KOPT_ASSIGN_OR_RETURN(suite::SuiteReport report, suite::RunSuite(settings, environment));
  KOPT_RETURN_IF_ERROR(WriteSuiteFiles(report));
  return Emit(report, options.format, options.output_path, out);
}

Status RunSuiteStatus(const SuiteStatusOptions& options, std::ostream& out) {
  KOPT_ASSIGN_OR_RETURN(suite::SuiteState state,
                        suite::ReadSuite(suite::SuiteDirectory(options.workspace, options.name)));
  KOPT_ASSIGN_OR_RETURN(suite::SuiteReport report, suite::CollectSuiteReport(state));
  KOPT_ASSIGN_OR_RETURN(ReportFormat format,
                        ResolveReportFormat(options.format, options.output_path, kSuiteFormats));
  KOPT_ASSIGN_OR_RETURN(std::string jobs, SlurmJobsText(state.directory, format));
  if (jobs.empty()) return Emit(report, options.format, options.output_path, out);
  std::ostringstream table;
  KOPT_RETURN_IF_ERROR(Emit(report, std::string(ReportFormatName(format)), "", table));
  std::string text =
      table.str() + (format == ReportFormat::kTerminal ? SanitizeLinesForTerminal(jobs) : jobs);
  if (options.output_path.empty()) {
    out << text;
    return Status::Ok();
  }
  return WriteFileAtomically(options.output_path, text);
}

}  // namespace kopt
