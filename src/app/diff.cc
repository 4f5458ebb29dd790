#include "app/diff.h"

#include "report/comparison_renderer.h"
#include "report/report_output.h"

namespace kopt {

Status RunDiff(const DiffOptions& options, CommandRunner& runner, std::ostream& out, std::ostream& log) {
  KOPT_ASSIGN_OR_RETURN(ReportFormat format,
                        ResolveReportFormat(options.format, options.output_path, kComparisonFormats));
  StreamLogSink llm_log(log);
  KOPT_ASSIGN_OR_RETURN(ProfileComparison comparison, ExplainDiff(options.settings, runner, &llm_log));
  return WriteReport(RenderComparison(comparison, format), options.output_path, out);
}

}  // namespace kopt
