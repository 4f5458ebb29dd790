#include "app/explain.h"

#include <fmt/format.h>

#include <iostream>
#include <optional>

#include "analysis/diagnose.h"
#include "analysis/tool_config.h"
#include "app/explain_llm.h"
#include "core/file_io.h"
#include "core/text.h"
#include "hw/ceilings_table.h"
#include "profile/profile_loader.h"
#include "report/renderer.h"

namespace kopt {
namespace {

// The profile half of the options.
ProfileSources SourcesOf(const ExplainOptions& options) {
  ProfileSources sources;
  sources.target = options.target;
  sources.program_argv = options.program_argv;
  sources.kernel_regex = options.kernel_regex;
  sources.launch_skip = options.launch_skip;
  sources.launch_count = options.launch_count;
  sources.sass_path = options.sass_path;
  sources.ptxas_path = options.ptxas_path;
  sources.source_page_path = options.source_page_path;
  sources.work_directory = options.work_directory;
  sources.section_set = options.section_set;
  return sources;
}

// The measured ceilings of the profile's GPU (see ExplainOptions::ceilings_path).
Result<std::optional<CeilingsTable>> CeilingsFor(const ExplainOptions& options, const Profile& profile,
                                                 std::vector<std::string>& notes) {
  if (options.ceilings_path == "none") return std::optional<CeilingsTable>();
  std::string device;
  for (const KernelLaunch& launch : profile.launches) {
    if (auto name = launch.Text("device__attribute_display_name")) {
      device = *name;
      break;
    }
  }
  bool named = !options.ceilings_path.empty();
  std::string path = named ? options.ceilings_path : DefaultCeilingsDirectory();
  if (device.empty() || path.empty()) {
    if (named)
      return InvalidInput("--ceilings: the profile does not name its GPU (device__attribute_display_name)");
    return std::optional<CeilingsTable>();
  }
  auto table = FindCeilingsTable(path, device, notes);
  if (table.ok()) return std::optional<CeilingsTable>(std::move(*table));
  if (named) return table.status().WithContext("--ceilings");
  return std::optional<CeilingsTable>();  // none for this GPU: the peaks alone, as without kopt calibrate
}

}  // namespace

Status RunExplain(const ExplainOptions& options, CommandRunner& runner, std::ostream& out) {
  return RunExplain(options, runner, out, std::cerr);
}

Status RunExplain(const ExplainOptions& options, CommandRunner& runner, std::ostream& out,
                  std::ostream& log) {
  KOPT_ASSIGN_OR_RETURN(ReportFormat format, ParseReportFormat(options.format, kExplainFormats));
  const GpuSpec* gpu = nullptr;
  if (!options.gpu.empty()) {
    gpu = FindGpu(options.gpu);
    if (!gpu)
      return InvalidInput(
          fmt::format("--gpu \"{}\": not in the GPU table (kopt gpus lists it)", options.gpu));
  }
  DiagnoseOptions diagnose_options;  // the config is read first: a bad one fails before a long collection
  diagnose_options.gpu = gpu;
  if (!options.config_path.empty()) {
    KOPT_ASSIGN_OR_RETURN(diagnose_options.tools, LoadToolConfig(options.config_path));
  }
  std::vector<std::string> notes;
  ProfileSources sources = SourcesOf(options);
  KOPT_ASSIGN_OR_RETURN(Profile profile, LoadProfile(sources, runner, notes));
  ProfileSources selection = sources;
  if (IsLiveCollection(sources))
    selection.launch_skip = selection.launch_count = 0;  // ncu applied them already
  KOPT_RETURN_IF_ERROR(SelectLaunches(selection, profile));
  std::optional<CeilingsTable> ceilings;
  KOPT_ASSIGN_OR_RETURN(ceilings, CeilingsFor(options, profile, notes));
  if (ceilings) diagnose_options.ceilings = &*ceilings;

  // The LLM side (--llm, --hypotheses) never fails the command.
  StreamLogSink log_sink(log);
  std::optional<LlmSession> session;
  if (options.llm) session = LlmSession::Open(options, options.verbose ? &log_sink : nullptr);
  KernelSource source;
  std::optional<agents::HypothesisSet> predictions;  // made before the diagnosis: they see no metrics
  if (options.hypotheses || options.llm) {
    source = LoadKernelSource(options, notes);
    predictions = PredictHypothesesFor(profile, source, session ? &*session : nullptr);
  }

  Diagnosis diagnosis = Diagnose(profile, diagnose_options);
  diagnosis.notes.insert(diagnosis.notes.end(), notes.begin(), notes.end());
  if (predictions) AddCheckedHypotheses(*predictions, diagnosis);
  if (session) AddNarrative(profile, source, *session, diagnosis);

  RenderOptions render_options;
  render_options.color = options.color && options.output_path.empty();
  render_options.verbose = options.verbose;
  std::string rendered = MakeRenderer(format, render_options)->Render(diagnosis);
  if (options.output_path.empty()) {
    out << rendered;
    return Status::Ok();
  }
  return WriteFileAtomically(options.output_path, rendered);
}

}  // namespace kopt
