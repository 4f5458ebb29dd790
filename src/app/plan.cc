#include "app/plan.h"

#include <algorithm>
#include <filesystem>

#include "analysis/diagnose.h"
#include "analysis/program_plan.h"
#include "core/file_io.h"
#include "explain/explain.h"
#include "explain/plan_narrative.h"
#include "explain/profile_request.h"
#include "report/program_plan_renderer.h"
#include "report/report_output.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

constexpr std::array<ReportFormat, 4> kPlanFormats = {ReportFormat::kTerminal, ReportFormat::kMarkdown,
                                                      ReportFormat::kJson, ReportFormat::kHtml};

bool IsBundle(const fs::path& directory) {
  std::error_code error;
  return fs::is_regular_file(directory / "raw.csv", error);
}

bool IsProfileFile(const fs::path& path) {
  std::string extension = path.extension().string();
  return extension == ".csv" || extension == ".ncu-rep";
}

}  // namespace

Result<std::vector<std::string>> ExpandPlanTargets(const std::vector<std::string>& targets) {
  if (targets.empty())
    return InvalidInput("kopt plan: expected at least one TARGET (a profile or a directory)");
  std::vector<std::string> profiles;
  for (const std::string& target : targets) {
    std::error_code error;
    if (!fs::exists(target, error)) return NotFound("kopt plan: " + target + ": no such file or directory");
    if (!fs::is_directory(target, error) || IsBundle(target)) {
      profiles.push_back(target);
      continue;
    }
    // Bundle subdirectories when there are any (a CSV beside them is their sidecar), else the profile files.
    std::vector<std::string> found, files;
    for (const fs::directory_entry& entry : fs::directory_iterator(target, error)) {
      if (entry.is_directory() && IsBundle(entry.path())) found.push_back(entry.path().string());
      if (entry.is_regular_file() && IsProfileFile(entry.path())) files.push_back(entry.path().string());
    }
    if (found.empty()) found = std::move(files);
    if (found.empty()) {
      return InvalidInput(
          "kopt plan: " + target +
          ": the directory holds no profile (*.csv, *.ncu-rep, or a bundle directory with raw.csv)");
    }
    std::sort(found.begin(), found.end());
    profiles.insert(profiles.end(), found.begin(), found.end());
  }
  return profiles;
}

Result<std::vector<Diagnosis>> DiagnosePrograms(const PlanCommandOptions& options, CommandRunner& runner) {
  KOPT_ASSIGN_OR_RETURN(std::vector<std::string> profiles, ExpandPlanTargets(options.targets));
  KOPT_ASSIGN_OR_RETURN(DiagnoseOptions diagnose_options,
                        ResolveDiagnoseOptions(options.gpu, options.config_path));
  std::vector<Diagnosis> diagnoses;
  diagnoses.reserve(profiles.size());
  for (const std::string& path : profiles) {
    std::vector<std::string> notes;
    KOPT_ASSIGN_OR_RETURN(Profile profile,
                          LoadSelectedProfile(RequestFor(path, options.kernel_regex), runner, notes));
    Diagnosis diagnosis = Diagnose(profile, diagnose_options);
    diagnosis.source = path;
    diagnoses.push_back(std::move(diagnosis));
  }
  return diagnoses;
}

Status RunPlan(const PlanCommandOptions& options, CommandRunner& runner, std::ostream& out,
               std::ostream& log) {
  KOPT_ASSIGN_OR_RETURN(ReportFormat format,
                        ResolveReportFormat(options.format, options.output_path, kPlanFormats));
  KOPT_RETURN_IF_ERROR(CheckOutputIsNotAnInput(
      options.output_path,
      {options.config_path, options.llm.config_path, options.llm.record_path, options.llm.replay_path}));
  KOPT_RETURN_IF_ERROR(CheckLlmConfiguration(options.llm));
  KOPT_ASSIGN_OR_RETURN(std::vector<Diagnosis> diagnoses, DiagnosePrograms(options, runner));
  std::vector<const Diagnosis*> programs;
  for (const Diagnosis& diagnosis : diagnoses) programs.push_back(&diagnosis);
  PlanOptions plan_options;
  plan_options.max_findings = options.max_findings;
  plan_options.max_kernels = options.max_kernels;
  ProgramPlan plan = BuildProgramPlan(programs, plan_options);
  if (options.llm.narrative) {
    StreamLogSink llm_log(log);
    LlmSession session = LlmSession::Open(options.llm, options.llm.verbose ? &llm_log : nullptr);
    plan.narrative = NarratePlan(session, plan);
  }
  return WriteReport(RenderProgramPlan(plan, format), options.output_path, out);
}

}  // namespace kopt
