#include "app/diff.h"

#include "core/file_io.h"
#include "report/comparison_renderer.h"
#include "report/report_output.h"

namespace kopt {

Status RunDiff(const DiffOptions& options, CommandRunner& runner, std::ostream& out, std::ostream& log) {
  KOPT_ASSIGN_OR_RETURN(ReportFormat format,
                        ResolveReportFormat(options.format, options.output_path, kComparisonFormats));
  const DiffSettings& settings = options.settings;
  KOPT_RETURN_IF_ERROR(CheckOutputIsNotAnInput(
      options.output_path, {settings.before, settings.after, settings.config_path, settings.llm.config_path,
                            settings.llm.record_path, settings.llm.replay_path}));
  KOPT_RETURN_IF_ERROR(CheckLlmConfiguration(settings.llm));
  StreamLogSink llm_log(log);
  auto check_inputs = [&](const std::vector<std::string>& inputs) {
    return CheckOutputIsNotAnInput(options.output_path, inputs);
  };
  KOPT_ASSIGN_OR_RETURN(ProfileComparison comparison, ExplainDiff(settings, runner, &llm_log, check_inputs));
  return WriteReport(RenderComparison(comparison, format), options.output_path, out);
}

}  // namespace kopt
