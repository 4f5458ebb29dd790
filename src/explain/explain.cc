#include "explain/explain.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "analysis/tool_config.h"
#include "core/text.h"
#include "hw/ceilings_table.h"
#include "hw/energy_coefficients.h"

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

// The GPU the profile names (device__attribute_display_name), empty when none does.
std::string ProfileDeviceName(const Profile& profile) {
  for (const KernelLaunch& launch : profile.launches) {
    if (auto name = launch.Text("device__attribute_display_name")) return *name;
  }
  return "";
}

// The measured ceilings of the profile's GPU (see ExplainSettings::ceilings_path).
Result<std::optional<CeilingsTable>> CeilingsFor(const ExplainSettings& settings, const Profile& profile,
                                                 std::vector<std::string>& notes) {
  if (settings.ceilings_path == "none") return std::optional<CeilingsTable>();
  std::string device = ProfileDeviceName(profile);
  bool named = !settings.ceilings_path.empty();
  std::string path = named ? settings.ceilings_path : DefaultCeilingsDirectory();
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

// The energy model's coefficients for the profile's GPU (see ExplainSettings::energy_model_path).
Result<std::optional<EnergyCoefficients>> EnergyCoefficientsFor(const ExplainSettings& settings,
                                                                const Profile& profile,
                                                                std::vector<std::string>& notes) {
  if (settings.energy_model_path == "none") return std::optional<EnergyCoefficients>();
  bool named = !settings.energy_model_path.empty();
  std::string device = ProfileDeviceName(profile);
  if (device.empty()) {
    if (named)
      return InvalidInput(
          "--energy-model: the profile does not name its GPU (device__attribute_display_name)");
    return std::optional<EnergyCoefficients>();
  }
  std::vector<std::string> lookup_notes;
  auto table = FindEnergyCoefficients(settings.energy_model_path, device, lookup_notes);
  if (table.ok()) {
    notes.insert(notes.end(), lookup_notes.begin(), lookup_notes.end());
    return std::optional<EnergyCoefficients>(std::move(*table));
  }
  if (named) return table.status().WithContext("--energy-model");
  return std::optional<EnergyCoefficients>();  // none for this GPU: no energy section
}

// The profile, collected live with `phases` recorded, or read; the inputs checked.
Result<Profile> LoadChecked(const ExplainSettings& settings, const ExplainEnvironment& environment, bool live,
                            PhaseTimer& phases, std::vector<std::string>& notes) {
  CollectionObservers observers;
  if (live) {
    observers.progress = environment.progress;
    observers.phases = &phases;
  }
  KOPT_ASSIGN_OR_RETURN(Profile profile,
                        LoadSelectedProfile(settings.profile, *environment.command_runner, notes, observers));
  if (live && environment.progress) {
    environment.progress(fmt::format("analysing {} launch{}", profile.launches.size(),
                                     profile.launches.size() == 1 ? "" : "es"));
  }
  if (environment.check_inputs) KOPT_RETURN_IF_ERROR(environment.check_inputs(InputPathsOf({&profile})));
  return profile;
}

}  // namespace

std::vector<std::string> InputPathsOf(const ExplainSettings& settings) {
  const ProfileRequest& profile = settings.profile;
  return {profile.target,
          profile.sass_path,
          profile.ptxas_path,
          profile.source_page_path,
          settings.config_path,
          settings.source_path,
          settings.llm.config_path,
          settings.llm.replay_path,
          settings.llm.record_path,
          settings.energy_model_path == "none" ? std::string() : settings.energy_model_path};
}

Result<DiagnoseOptions> ResolveDiagnoseOptions(const std::string& gpu_name, const std::string& config_path) {
  DiagnoseOptions options;
  if (!gpu_name.empty()) {
    options.gpu = FindGpu(gpu_name);
    if (!options.gpu)
      return InvalidInput(fmt::format("--gpu \"{}\": not in the GPU table (kopt gpus lists it)", gpu_name));
  }
  if (!config_path.empty()) {
    KOPT_ASSIGN_OR_RETURN(options.tools, LoadToolConfig(config_path));
  }
  return options;
}

Result<Diagnosis> Explain(const ExplainSettings& settings, const ExplainEnvironment& environment) {
  // The configurations are read first: a bad one fails before a long collection.
  KOPT_ASSIGN_OR_RETURN(DiagnoseOptions diagnose_options,
                        ResolveDiagnoseOptions(settings.gpu, settings.config_path));
  KOPT_RETURN_IF_ERROR(CheckLlmConfiguration(settings.llm));
  std::vector<std::string> notes;
  if (diagnose_options.gpu) {
    if (auto note = GpuVariantNote(settings.gpu, *diagnose_options.gpu)) notes.push_back(*note);
  }
  PhaseTimer phases;  // live collection: where the seconds go (Diagnosis::collection_phases)
  bool live = IsLiveRequest(settings.profile);
  if (!live) KOPT_RETURN_IF_ERROR(CheckCollectionOptionsApply(settings.profile));
  KOPT_ASSIGN_OR_RETURN(Profile profile, LoadChecked(settings, environment, live, phases, notes));
  std::optional<CeilingsTable> ceilings;
  KOPT_ASSIGN_OR_RETURN(ceilings, CeilingsFor(settings, profile, notes));
  if (ceilings) diagnose_options.ceilings = &*ceilings;
  std::optional<EnergyCoefficients> energy;
  KOPT_ASSIGN_OR_RETURN(energy, EnergyCoefficientsFor(settings, profile, notes));
  if (energy) diagnose_options.energy_coefficients = &*energy;

  // The LLM side (narrative, hypotheses) never fails the command.
  std::optional<LlmSession> session;
  if (settings.llm.narrative)
    session = LlmSession::Open(settings.llm, settings.llm.verbose ? environment.llm_log : nullptr);
  KernelSource source;
  std::optional<agents::HypothesisSet> predictions;  // made before the diagnosis: they see no metrics
  if (settings.hypotheses || settings.llm.narrative) {
    source = LoadKernelSource(settings.source_path, settings.profile, notes);
    predictions = PredictHypothesesFor(profile, source, session ? &*session : nullptr);
  }

  PhaseTimer::Scope analysis_phase(live ? &phases : nullptr, "analysis (diagnose)");
  Diagnosis diagnosis = Diagnose(profile, diagnose_options);
  analysis_phase.Stop();
  diagnosis.notes.insert(diagnosis.notes.end(), notes.begin(), notes.end());
  if (predictions) AddCheckedHypotheses(*predictions, diagnosis);
  if (session) AddNarrative(profile, source, *session, diagnosis);
  if (live) diagnosis.collection_phases = phases.Phases();
  return diagnosis;
}

}  // namespace kopt
