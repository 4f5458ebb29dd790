#include "app/explain.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>
#include <mutex>
#include <optional>

#include "analysis/collection_metrics.h"
#include "analysis/diagnose.h"
#include "analysis/tool_config.h"
#include "app/explain_llm.h"
#include "app/explain_series.h"
#include "core/file_io.h"
#include "core/terminal_text.h"
#include "core/text.h"
#include "hw/ceilings_table.h"
#include "hw/energy_coefficients.h"
#include "llm/config.h"
#include "profile/launch_trace_collection.h"
#include "profile/profile_loader.h"
#include "profile/program_launcher.h"
#include "report/renderer.h"
#include "report/report_format.h"

namespace kopt {
namespace {

// `--gpu a100` names a family: the row it picks, and the variants it did not (a note, never silent).
std::optional<std::string> GpuVariantNote(const std::string& given, const GpuSpec& chosen) {
  std::string prefix = ToLowerAscii(given);
  std::replace(prefix.begin(), prefix.end(), '_', '-');
  if (prefix == chosen.key) return std::nullopt;
  std::vector<std::string> others;
  for (const GpuSpec& spec : KnownGpus()) {
    if (&spec != &chosen && spec.key.rfind(prefix + "-", 0) == 0) others.push_back(spec.key);
  }
  if (others.empty()) return std::nullopt;
  return fmt::format("--gpu {} took {} ({}); the GPU table also has {}: name one of them to choose another",
                     given, chosen.key, chosen.name, fmt::join(others, ", "));
}

// `--set targeted` (the default): the collection analysis/collection_metrics.h describes.
constexpr std::string_view kTargetedCollection = "targeted";

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
  if (options.section_set == kTargetedCollection) {
    for (std::string_view metric : TargetedCollectionMetrics()) sources.metrics.emplace_back(metric);
    for (std::string_view section : TargetedCollectionSections()) sources.sections.emplace_back(section);
    sources.write_report = false;  // ncu prints the raw page: one ncu process
  }
  bool live = !options.program_argv.empty() || EndsWith(options.target, ".cu");
  if (live && options.timeline_path != "none") sources.timeline_library = FindTimelineLibrary();
  if (EndsWith(options.target, ".cu")) {
    sources.launcher = FindProgramLauncher();
    sources.launcher_warmup = LauncherWarmupWanted();
  }
  if (!live) sources.timeline_path = options.timeline_path;
  sources.launches_per_configuration = options.launches_per_kernel;
  return sources;
}

// The GPU the profile names (device__attribute_display_name), empty when none does.
std::string ProfileDeviceName(const Profile& profile) {
  for (const KernelLaunch& launch : profile.launches) {
    if (auto name = launch.Text("device__attribute_display_name")) return *name;
  }
  return "";
}

// The measured ceilings of the profile's GPU (see ExplainOptions::ceilings_path).
Result<std::optional<CeilingsTable>> CeilingsFor(const ExplainOptions& options, const Profile& profile,
                                                 std::vector<std::string>& notes) {
  if (options.ceilings_path == "none") return std::optional<CeilingsTable>();
  std::string device = ProfileDeviceName(profile);
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

// The energy model's coefficients for the profile's GPU (see ExplainOptions::energy_model_path).
Result<std::optional<EnergyCoefficients>> EnergyCoefficientsFor(const ExplainOptions& options,
                                                                const Profile& profile,
                                                                std::vector<std::string>& notes) {
  if (options.energy_model_path == "none") return std::optional<EnergyCoefficients>();
  bool named = !options.energy_model_path.empty();
  std::string device = ProfileDeviceName(profile);
  if (device.empty()) {
    if (named)
      return InvalidInput(
          "--energy-model: the profile does not name its GPU (device__attribute_display_name)");
    return std::optional<EnergyCoefficients>();
  }
  std::vector<std::string> lookup_notes;
  auto table = FindEnergyCoefficients(options.energy_model_path, device, lookup_notes);
  if (table.ok()) {
    notes.insert(notes.end(), lookup_notes.begin(), lookup_notes.end());
    return std::optional<EnergyCoefficients>(std::move(*table));
  }
  if (named) return table.status().WithContext("--energy-model");
  return std::optional<EnergyCoefficients>();  // none for this GPU: no energy section
}

}  // namespace

Status RunExplain(const ExplainOptions& options, CommandRunner& runner, std::ostream& out) {
  return RunExplain(options, runner, out, std::cerr);
}

Status RunExplain(const ExplainOptions& options, CommandRunner& runner, std::ostream& out,
                  std::ostream& log) {
  PhaseTimer phases;  // live collection: where the seconds go (Diagnosis::collection_phases)
  std::vector<std::string> named = options.more_targets;
  named.insert(
      named.end(),
      {options.target, options.sass_path, options.ptxas_path, options.source_page_path, options.config_path,
       options.source_path, options.llm_config_path, options.llm_replay_path, options.llm_record_path,
       options.energy_model_path == "none" ? std::string() : options.energy_model_path});
  KOPT_RETURN_IF_ERROR(CheckOutputIsNotAnInput(options.output_path, named));
  if (options.llm) {
    // --llm with no usable configuration (none at all, a typo in the named file, no model or key) is bad
    // input (exit 2), found before any work; an unreachable endpoint later only costs the narrative.
    KOPT_RETURN_IF_ERROR(
        llm::CheckLlmConfig(options.llm_config_path, options.llm_record_path, options.llm_replay_path));
  }
  if (IsSeriesRequest(options)) return RunExplainSeries(options, runner, out, log);
  KOPT_ASSIGN_OR_RETURN(ReportFormat format,
                        ResolveReportFormat(options.format, options.output_path, kExplainFormats));
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
  if (gpu) {
    if (auto note = GpuVariantNote(options.gpu, *gpu)) notes.push_back(*note);
  }
  ProfileSources sources = SourcesOf(options);
  bool live = IsLiveCollection(sources);
  if (live) sources.phases = &phases;
  bool drew_progress = false;
  std::mutex progress_mutex;  // steps arrive from two threads (cuobjdump beside ncu, the two exports)
  if (options.progress && live) {
    sources.progress = [&log, &drew_progress, &progress_mutex](std::string_view step) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      log << "\r\033[K"
          << "kopt: " << Truncate(SanitizeForTerminal(step), 100) << std::flush;
      drew_progress = true;
    };
  }
  Result<Profile> loaded = LoadProfile(sources, runner, notes);
  // The collection's ticker has ended (profile/ncu_progress.h); the analysis keeps the line until the
  // report is written or an error returns.
  struct ClearProgressLine {
    std::ostream& log;
    bool& drawn;
    void operator()() {
      if (drawn) log << "\r\033[K" << std::flush;
      drawn = false;
    }
    ~ClearProgressLine() { (*this)(); }
  } clear_progress{log, drew_progress};
  if (loaded.ok() && drew_progress) {
    sources.progress(fmt::format("analysing {} launch{}", loaded->launches.size(),
                                 loaded->launches.size() == 1 ? "" : "es"));
  }
  sources.progress = nullptr;
  sources.phases = nullptr;
  KOPT_ASSIGN_OR_RETURN(Profile profile, std::move(loaded));
  KOPT_RETURN_IF_ERROR(CheckOutputIsNotAnInput(options.output_path, InputPathsOf({&profile})));
  ProfileSources selection = sources;
  if (IsLiveCollection(sources))
    selection.launch_skip = selection.launch_count = 0;  // ncu applied them already
  KOPT_RETURN_IF_ERROR(SelectLaunches(selection, profile));
  std::optional<CeilingsTable> ceilings;
  KOPT_ASSIGN_OR_RETURN(ceilings, CeilingsFor(options, profile, notes));
  if (ceilings) diagnose_options.ceilings = &*ceilings;
  std::optional<EnergyCoefficients> energy;
  KOPT_ASSIGN_OR_RETURN(energy, EnergyCoefficientsFor(options, profile, notes));
  if (energy) diagnose_options.energy_coefficients = &*energy;

  // The LLM side (--llm, --hypotheses) never fails the command.
  if (options.llm && options.verbose) clear_progress();  // the exchanges are logged on `log`
  StreamLogSink log_sink(log);
  std::optional<LlmSession> session;
  if (options.llm) session = LlmSession::Open(options, options.verbose ? &log_sink : nullptr);
  KernelSource source;
  std::optional<agents::HypothesisSet> predictions;  // made before the diagnosis: they see no metrics
  if (options.hypotheses || options.llm) {
    source = LoadKernelSource(options, notes);
    predictions = PredictHypothesesFor(profile, source, session ? &*session : nullptr);
  }

  PhaseTimer::Scope analysis_phase(live ? &phases : nullptr, "analysis (diagnose)");
  Diagnosis diagnosis = Diagnose(profile, diagnose_options);
  analysis_phase.Stop();
  diagnosis.notes.insert(diagnosis.notes.end(), notes.begin(), notes.end());
  if (predictions) AddCheckedHypotheses(*predictions, diagnosis);
  if (session) AddNarrative(profile, source, *session, diagnosis);
  if (live) diagnosis.collection_phases = phases.Phases();

  RenderOptions render_options;
  render_options.color = options.color && options.output_path.empty();
  render_options.verbose = options.verbose;
  render_options.width = options.output_path.empty() ? options.width : RenderOptions{}.width;
  std::string rendered = MakeRenderer(format, render_options)->Render(diagnosis);
  clear_progress();
  if (options.output_path.empty()) {
    out << rendered;
    return Status::Ok();
  }
  return WriteFileAtomically(options.output_path, rendered);
}

}  // namespace kopt
