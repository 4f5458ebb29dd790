#include "app/explain.h"

#include <iostream>
#include <mutex>

#include "core/file_io.h"
#include "core/terminal_text.h"
#include "core/text.h"
#include "report/comparison_renderer.h"
#include "report/renderer.h"
#include "report/report_format.h"
#include "report/report_output.h"

namespace kopt {
namespace {

// The live collection's progress line on `log`: each step drawn in place,
// cleared before the LLM's log lines and before the report. Steps arrive from
// two threads (cuobjdump beside ncu, the two exports).
class ProgressLine {
 public:
  explicit ProgressLine(std::ostream& log) : log_(log) {}
  ~ProgressLine() { Clear(); }
  void Draw(std::string_view step) {
    std::lock_guard<std::mutex> lock(mutex_);
    log_ << "\r\033[K"
         << "kopt: " << Truncate(SanitizeForTerminal(step), 100) << std::flush;
    drawn_ = true;
  }
  void Clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (drawn_) log_ << "\r\033[K" << std::flush;
    drawn_ = false;
  }

 private:
  std::mutex mutex_;
  std::ostream& log_;
  bool drawn_ = false;
};

// The LLM exchanges (--llm --verbose) on `log`, below a cleared progress line.
class LlmLogSink : public llm::LogSink {
 public:
  LlmLogSink(ProgressLine& line, std::ostream& log) : line_(line), sink_(log) {}
  void Log(std::string_view text) override {
    line_.Clear();
    sink_.Log(text);
  }

 private:
  ProgressLine& line_;
  StreamLogSink sink_;
};

// `kopt explain` over many profiles: a sweep or versions (explain/series.h).
Status RunExplainSeries(const ExplainOptions& options, const ExplainSettings& settings, CommandRunner& runner,
                        std::ostream& out, std::ostream& log) {
  KOPT_ASSIGN_OR_RETURN(ReportFormat format,
                        ResolveReportFormat(options.format, options.output_path, kComparisonFormats));
  StreamLogSink llm_log(log);
  InputCheck check_inputs = [&](const std::vector<std::string>& inputs) {
    return CheckOutputIsNotAnInput(options.output_path, inputs);
  };
  if (!options.series.sweep.empty()) {
    KOPT_ASSIGN_OR_RETURN(SweepAnalysis sweep,
                          ExplainSweep(settings, options.series, runner, &llm_log, check_inputs));
    return WriteReport(RenderSweep(sweep, format), options.output_path, out);
  }
  KOPT_ASSIGN_OR_RETURN(VersionSeries versions,
                        ExplainVersions(settings, options.series, runner, &llm_log, check_inputs));
  return WriteReport(RenderVersions(versions, format), options.output_path, out);
}

}  // namespace

Status RunExplain(const ExplainOptions& options, CommandRunner& runner, std::ostream& out) {
  return RunExplain(options, runner, out, std::cerr);
}

Status RunExplain(const ExplainOptions& options, CommandRunner& runner, std::ostream& out,
                  std::ostream& log) {
  std::vector<std::string> named = InputPathsOf(options.settings);
  named.insert(named.end(), options.series.more_targets.begin(), options.series.more_targets.end());
  KOPT_RETURN_IF_ERROR(CheckOutputIsNotAnInput(options.output_path, named));
  ExplainSettings settings = options.settings;
  settings.llm.verbose = options.verbose;
  if (IsSeriesRequest(settings.profile, options.series))
    return RunExplainSeries(options, settings, runner, out, log);
  KOPT_ASSIGN_OR_RETURN(ReportFormat format,
                        ResolveReportFormat(options.format, options.output_path, kExplainFormats));
  ProgressLine progress_line(log);
  LlmLogSink llm_log(progress_line, log);
  ExplainEnvironment environment;
  environment.command_runner = &runner;
  if (options.progress) environment.progress = [&](std::string_view step) { progress_line.Draw(step); };
  environment.llm_log = &llm_log;
  environment.check_inputs = [&](const std::vector<std::string>& inputs) {
    return CheckOutputIsNotAnInput(options.output_path, inputs);
  };
  KOPT_ASSIGN_OR_RETURN(Diagnosis diagnosis, Explain(settings, environment));
  RenderOptions render_options;
  render_options.color = options.color && options.output_path.empty();
  render_options.verbose = options.verbose;
  render_options.width = options.output_path.empty() ? options.width : RenderOptions{}.width;
  std::string rendered = MakeRenderer(format, render_options)->Render(diagnosis);
  progress_line.Clear();
  return WriteReport(rendered, options.output_path, out);
}

}  // namespace kopt
