#include "app/plan.h"

#include <array>

#include "analysis/diagnose.h"
#include "analysis/program_plan.h"
#include "core/file_io.h"
#include "explain/explain.h"
#include "explain/plan_narrative.h"
#include "explain/program_set.h"
#include "report/program_plan_renderer.h"
#include "report/report_output.h"

namespace kopt {
namespace {

constexpr std::array<ReportFormat, 4> kPlanFormats = {ReportFormat::kTerminal, ReportFormat::kMarkdown,
                                                      ReportFormat::kJson, ReportFormat::kHtml};

}  // namespace

Status RunPlan(const PlanCommandOptions& options, CommandRunner& runner, std::ostream& out,
               std::ostream& log) {
  KOPT_ASSIGN_OR_RETURN(ReportFormat format,
                        ResolveReportFormat(options.format, options.output_path, kPlanFormats));
  KOPT_RETURN_IF_ERROR(CheckOutputIsNotAnInput(
      options.output_path,
      {options.config_path, options.llm.config_path, options.llm.record_path, options.llm.replay_path}));
  KOPT_RETURN_IF_ERROR(CheckLlmConfiguration(options.llm));
  KOPT_ASSIGN_OR_RETURN(std::vector<std::string> profiles,
                        ExpandProgramTargets(options.targets, "kopt plan"));
  KOPT_ASSIGN_OR_RETURN(DiagnoseOptions diagnose_options,
                        ResolveDiagnoseOptions(options.gpu, options.config_path));
  KOPT_ASSIGN_OR_RETURN(std::vector<DiagnosedProgram> diagnosed,
                        DiagnosePrograms(profiles, options.kernel_regex, diagnose_options, runner));
  std::vector<const Diagnosis*> programs;
  for (const DiagnosedProgram& program : diagnosed) programs.push_back(&program.diagnosis);
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
