#include "app/suite.h"

#include <array>
#include <filesystem>
#include <fmt/format.h>

#include "agents/candidate_generator.h"
#include "core/file_io.h"
#include "core/terminal_text.h"
#include "report/report_format.h"
#include "search/search_policy.h"
#include "suite/local_executor.h"
#include "suite/suite_driver.h"
#include "suite/suite_renderer.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

constexpr std::array<ReportFormat, 4> kSuiteFormats = {ReportFormat::kTerminal, ReportFormat::kMarkdown,
                                                       ReportFormat::kJson, ReportFormat::kHtml};

std::string Number(double value) { return fmt::format("{}", value); }

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

std::string Absolute(const std::string& path) { return path.empty() ? path : fs::absolute(path).string(); }

// The suite's reports beside its state: report.md, report.json, report.html.
Status WriteSuiteFiles(const suite::SuiteReport& report) {
  for (ReportFormat format : {ReportFormat::kMarkdown, ReportFormat::kJson, ReportFormat::kHtml}) {
    KOPT_ASSIGN_OR_RETURN(std::string text, suite::RenderSuiteReport(report, format));
    std::string path = (fs::path(report.directory) / ("report." + std::string(ReportFileExtension(format)))).string();
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

}  // namespace

Result<std::vector<std::string>> SuiteOptimizeArguments(const SuiteOptimizeOptions& options) {
  KOPT_RETURN_IF_ERROR(ValidateBudget(options.budget));
  KOPT_RETURN_IF_ERROR(agents::ParseGeneratorKind(options.generator).status());
  std::string search = options.random_control ? "random" : options.search;
  std::string feedback = options.random_control ? "none" : options.feedback;
  if (search != "auto") KOPT_RETURN_IF_ERROR(ParseSearchPolicyKind(search).status());
  KOPT_RETURN_IF_ERROR(ParseFeedbackMode(feedback).status());
  std::vector<std::string> arguments = {"--generator", options.generator, "--search", search, "--feedback", feedback};
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
  suite::LocalExecutorSettings local;
  local.devices = options.devices;
  KOPT_ASSIGN_OR_RETURN(std::unique_ptr<suite::Executor> executor, suite::MakeLocalExecutor(local));
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
  return Emit(report, options.format, options.output_path, out);
}

}  // namespace kopt
