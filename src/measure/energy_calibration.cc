#include "measure/energy_calibration.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "core/file_io.h"
#include "energy_probes_source.h"  // generated: kEnergyProbesSource (measure/energy_probes.cu)
#include "harness/parallel_compiler.h"
#include "measure/candidate_profiler.h"
#include "measure/measure.h"
#include "profile/ncu_collector.h"
#include "profile/ncu_csv.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

// The GPU's name as profiles carry it (and as explain looks tables up).
constexpr std::string_view kDeviceNameMetric = "device__attribute_display_name";

std::string ProbeTaskToml(const EnergyProbe& probe) {
  return fmt::format(
      "# Energy calibration probe \"{0}\" ({1}), written by kopt calibrate --energy.\n"
      "[task]\nname = \"probe_{0}\"\nentry = \"energy_probe\"\n"
      "description = \"energy calibration probe: {1}\"\n\n"
      "[[tensor]]\nname = \"x\"\ndtype = \"f32\"\nshape = [\"n\"]\nrole = \"input\"\n"
      "init = {{ kind = \"uniform\", low = 0.0, high = 1.0 }}\n\n"
      "[[tensor]]\nname = \"y\"\ndtype = \"f32\"\nshape = [\"n\"]\nrole = \"output\"\n\n"
      "[[scalar]]\nname = \"n\"\ntype = \"i32\"\nvalue = {2}\n\n"
      "[[scalar]]\nname = \"iterations\"\ntype = \"i32\"\nvalue = {3}\n",
      probe.name, probe.exercises, probe.n, probe.iterations);
}

// The sample of one measured entry and its profile; nullopt (with a note) when it cannot be one.
std::optional<EnergySample> SampleOf(const std::string& name, const MeasurementEntry& entry,
                                     const Result<Profile>& profile, std::vector<std::string>& notes) {
  if (!entry.ok() || !entry.timing) {
    notes.push_back(
        fmt::format("{}: not sampled: {}", name, entry.message.empty() ? "not measured" : entry.message));
    return std::nullopt;
  }
  if (!entry.energy || !entry.energy->available) {
    notes.push_back(fmt::format("{}: not sampled: energy unavailable: {}", name,
                                entry.energy ? entry.energy->reason : "not measured"));
    return std::nullopt;
  }
  if (!profile.ok()) {
    notes.push_back(fmt::format("{}: not sampled: profiling failed: {}", name, profile.status().message()));
    return std::nullopt;
  }
  if (profile->launches.empty()) {
    notes.push_back(fmt::format("{}: not sampled: the profile holds no kernel launch", name));
    return std::nullopt;
  }
  double dynamic = entry.energy->dynamic_joules_per_launch;
  if (!std::isfinite(dynamic) || dynamic <= 0) {
    notes.push_back(
        fmt::format("{}: not sampled: dynamic energy {:.3g} J per launch is not positive", name, dynamic));
    return std::nullopt;
  }
  EnergySample sample;
  sample.name = name;
  sample.counts = CountEnergyActivity(profile->launches);
  sample.gpu = profile->launches.front().Text(kDeviceNameMetric).value_or("");
  sample.measured_dynamic_joules = dynamic;
  sample.measured_dynamic_joules_stdev = entry.energy->joules_per_launch_stdev;
  sample.seconds_per_launch = entry.timing->median_s;
  return sample;
}

// A profile bundle the profiler wrote earlier for the same source (a resumed
// calibration): its raw page, without running ncu again; nullopt when there is none.
// Same source and same task (its sizes decide the counts): the bundle's request names the task it ran.
std::optional<Profile> EarlierProfile(const fs::path& bundle, const std::string& source,
                                      const TaskSpec& task) {
  auto earlier_source = ReadWholeFile((bundle / "candidate.cu").string());
  if (!earlier_source.ok() || *earlier_source != source) return std::nullopt;
  auto request_text = ReadWholeFile((bundle / "profile_request.json").string());
  if (!request_text.ok()) return std::nullopt;
  nlohmann::json request = nlohmann::json::parse(*request_text, nullptr, false);
  if (request.is_discarded() || !request.contains("task") || request["task"] != task.ToJson())
    return std::nullopt;
  auto raw = ReadWholeFile((bundle / "raw.csv").string());
  if (!raw.ok()) return std::nullopt;
  auto launches = ParseNcuRawCsv(*raw, (bundle / "raw.csv").string());
  if (!launches.ok() || launches->empty()) return std::nullopt;
  Profile profile;
  profile.source = (bundle / "raw.csv").string();
  profile.launches = std::move(*launches);
  return profile;
}

// A candidate subject's text: given, or read from its file.
Result<std::string> CandidateText(const EnergySubject& subject) {
  if (!subject.source.empty()) return subject.source;
  return ReadWholeFile(subject.candidate_path);
}

// Compiles every subject on all cores into the cache the measurement sessions
// use (<workspace>/compile-cache, the same flags): the sessions run one task at
// a time and would otherwise compile each source only when they reach it.
// Failures are left for the sessions to report.
void CompileAhead(const std::vector<EnergySubject>& subjects, const std::string& architecture,
                  const std::string& workspace, CommandRunner& command_runner) {
  CompilerOptions options;
  options.architecture = architecture;
  options.cache_directory = workspace + "/compile-cache";
  auto compiler = Compiler::Create(command_runner, options);
  if (!compiler.ok()) return;
  ParallelCompiler pool(**compiler);
  std::map<std::string, TaskSpec> tasks;
  for (const EnergySubject& subject : subjects) {
    if (!tasks.contains(subject.task_directory)) {
      auto task = LoadTask(subject.task_directory);
      if (!task.ok()) continue;
      tasks.emplace(subject.task_directory, std::move(*task));
    }
    // The paths the sessions compile from (the wrapper names its source, so the cache key does too):
    // the task's reference.cu, a candidate file in place. A source without a file is compiled from
    // the workspace's copy by its session, in parallel with the task's other candidates.
    const TaskSpec& task = tasks.at(subject.task_directory);
    std::string path = subject.candidate_path;
    if (path.empty() && subject.source.empty()) path = task.reference_path;
    if (path.empty()) continue;
    (void)pool.Submit(task, path);
  }
  pool.WaitAll();
}

}  // namespace

const std::vector<EnergyProbe>& EnergyProbes() {
  // Sizes for about 0.3-2 ms per launch on an H200 (the comments in energy_probes.cu).
  static const std::vector<EnergyProbe> probes = {
      {"idle_spin", 1, 1 << 20, 1000, "resident warps sleeping: the static term"},
      {"short_launch", 1, 1 << 10, 1, "a launch of a few microseconds: the per-launch term"},
      {"fp32_fma", 2, 1 << 20, 4096, "FMA pipe"},
      {"fp64_fma", 3, 1 << 20, 4096, "FP64 pipe"},
      {"int_alu", 4, 1 << 20, 1024, "ALU pipe"},
      {"int_mad", 5, 1 << 20, 2048, "FMA pipe (IMAD)"},
      {"mufu", 6, 1 << 20, 512, "XU pipe"},
      {"dram_copy", 7, 1 << 27, 1, "DRAM read and write"},
      {"dram_read", 8, 1 << 27, 1, "DRAM read"},
      {"l2_read", 9, 1 << 22, 512, "L2 hits"},
      {"l1_read_vec4", 10, 132 * 8 * 4096, 2048, "L1 hits, 16-byte loads"},
      {"l1_read_scalar", 11, 132 * 8 * 4096, 1024, "L1 hits, 4-byte loads (LSU pipe)"},
      {"shared_read", 12, 1 << 20, 2048, "shared memory"},
      {"shared_conflict", 13, 1 << 20, 256, "shared memory, 32-way bank conflicts"},
      {"local_memory", 14, 1 << 20, 20, "local memory"},
      {"tensor_bf16", 15, 1 << 20, 16384, "tensor cores, BF16"},
      {"tensor_tf32", 16, 1 << 20, 8192, "tensor cores, TF32"},
      {"tensor_int8", 17, 1 << 20, 16384, "tensor cores, INT8"},
      {"tensor_fp64", 18, 1 << 20, 16384, "tensor cores, FP64"},
  };
  return probes;
}

std::string EnergyProbeSource(const EnergyProbe& probe) {
  return fmt::format("#define KOPT_ENERGY_PROBE {}\n", probe.number) + std::string(kEnergyProbesSource);
}

Status WriteEnergyProbeTask(const EnergyProbe& probe, const std::string& directory) {
  std::error_code error;
  fs::create_directories(directory, error);
  if (error)
    return Unavailable(fmt::format("{}: cannot create the probe's task: {}", directory, error.message()));
  KOPT_RETURN_IF_ERROR(
      WriteFileAtomically((fs::path(directory) / "task.toml").string(), ProbeTaskToml(probe)));
  return WriteFileAtomically((fs::path(directory) / "reference.cu").string(), EnergyProbeSource(probe));
}

namespace {

// The subjects grouped by task directory, the tasks in the order they first appear.
std::vector<std::pair<std::string, std::vector<const EnergySubject*>>> SubjectsByTask(
    const std::vector<EnergySubject>& subjects) {
  std::vector<std::pair<std::string, std::vector<const EnergySubject*>>> groups;
  for (const EnergySubject& subject : subjects) {
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&](const auto& entry) { return entry.first == subject.task_directory; });
    if (group == groups.end()) group = groups.insert(groups.end(), {subject.task_directory, {}});
    group->second.push_back(&subject);
  }
  return groups;
}

// The architecture to compile the subjects for ahead: the settings', else that of the GPU
// `settings.device`; "" when neither is known.
std::string AheadArchitecture(const EnergyCalibrationSettings& settings,
                              const EnergyCalibrationEnvironment& environment) {
  if (!settings.architecture.empty() || !environment.query_gpus) return settings.architecture;
  auto gpus = environment.query_gpus();
  if (!gpus.ok() || static_cast<size_t>(settings.device) >= gpus->size()) return "";
  auto derived =
      ArchitectureForComputeCapability((*gpus)[static_cast<size_t>(settings.device)].compute_capability);
  return derived.ok() ? *derived : "";
}

// Measures and profiles the subjects one task at a time (one measurement session per task: its
// reference and its candidates), collecting the samples and the notes on subjects not sampled.
class EnergySampler {
 public:
  EnergySampler(size_t total, const EnergyCalibrationSettings& settings,
                const EnergyCalibrationEnvironment& environment, std::vector<std::string>& notes)
      : total_(total), settings_(settings), environment_(environment), notes_(notes) {
    measure_.workspace = (fs::path(settings.work_directory) / "workspace").string();
    measure_.energy = true;
    measure_.arch = settings.architecture;
    measure_.device = settings.device;
    measure_.timeout_seconds = settings.timeout_seconds;
    measure_environment_.command_runner = environment.command_runner;
    measure_environment_.query_gpus = environment.query_gpus;
    measure_environment_.runner_program = environment.runner_program;
  }

  const std::string& workspace() const { return measure_.workspace; }
  std::vector<EnergySample> TakeSamples() { return std::move(samples_); }

  Status SampleTask(const std::string& task_directory, const std::vector<const EnergySubject*>& subjects) {
    KOPT_ASSIGN_OR_RETURN(MeasureTask task, LoadMeasureTask(task_directory));
    std::vector<CandidateSource> candidates;
    const EnergySubject* reference_subject = nullptr;
    for (const EnergySubject* subject : subjects) {
      if (subject->candidate_path.empty() && subject->source.empty()) {
        reference_subject = subject;
        continue;
      }
      KOPT_ASSIGN_OR_RETURN(std::string source, CandidateText(*subject));
      candidates.push_back(
          {fs::path(subject->name).filename().string() + "_" + std::to_string(candidates.size()),
           subject->candidate_path, source});
    }
    Progress(fmt::format("measuring {} ({}/{})", task_directory, done_ + 1, total_));
    auto report = Measure(measure_, measure_environment_, task, candidates);
    if (!report.ok()) {
      notes_.push_back(fmt::format("{}: not sampled: {}", task_directory, report.status().message()));
      done_ += subjects.size();
      return Status::Ok();
    }
    KOPT_ASSIGN_OR_RETURN(NcuProfilerSettings profiler, ProfilerSettings(task_directory, task, *report));
    KOPT_ASSIGN_OR_RETURN(std::unique_ptr<CandidateProfiler> made,
                          MakeNcuCandidateProfiler(profiler, *environment_.command_runner));
    TaskProfiling profiling{task, fs::path(profiler.work_directory), *made};
    if (reference_subject)
      SampleOne(profiling, *reference_subject, report->reference, "reference", task.spec.reference_source);
    size_t index = 0;
    for (const EnergySubject* subject : subjects) {
      if (subject == reference_subject) continue;
      if (index < report->candidates.size())
        SampleOne(profiling, *subject, report->candidates[index], candidates[index].name,
                  candidates[index].source);
      ++index;
    }
    return Status::Ok();
  }

 private:
  struct TaskProfiling {
    const MeasureTask& task;
    fs::path work_directory;
    CandidateProfiler& profiler;
  };

  void Progress(const std::string& text) const {
    if (environment_.progress) environment_.progress(text);
  }

  // The profiler of one task's subjects: the energy model's metrics over 16 launches.
  Result<NcuProfilerSettings> ProfilerSettings(const std::string& task_directory, const MeasureTask& task,
                                               const MeasurementReport& report) const {
    NcuProfilerSettings profiler;
    profiler.task_directory = task_directory;
    profiler.work_directory = (fs::path(settings_.work_directory) / "profiles" / task.spec.name).string();
    profiler.cache_directory = (fs::path(measure_.workspace) / "compile-cache").string();
    profiler.architecture = report.architecture;
    profiler.runner_program = environment_.runner_program;
    if (profiler.runner_program.empty()) {
      KOPT_ASSIGN_OR_RETURN(profiler.runner_program, FindRunnerProgram());
    }
    profiler.collection.metrics = EnergyModelMetrics();
    profiler.collection.metrics.emplace_back(kDeviceNameMetric);
    // Caches flushed before each pass (ncu's default): the energy windows rotate input sets as timing
    // does, so no input is in L2 when a launch starts (a 12 MB saxpy reads DRAM in every window).
    profiler.cache_control = "all";
    profiler.launch_count = 16;
    profiler.timeout_seconds = settings_.timeout_seconds;
    return profiler;
  }

  // One measured subject profiled (or its earlier profile reused) and sampled. `source`: the text the
  // session measured (the reference's, or the candidate's as read).
  void SampleOne(const TaskProfiling& profiling, const EnergySubject& subject, const MeasurementEntry& entry,
                 const std::string& file_name, const std::string& source) {
    ++done_;
    Progress(fmt::format("profiling {} ({}/{})", subject.name, done_, total_));
    std::vector<std::string> profile_notes;
    Result<Profile> profile = Unavailable("not profiled");
    if (auto earlier = EarlierProfile(profiling.work_directory / file_name, source, profiling.task.spec))
      profile = std::move(*earlier);
    else
      profile = profiling.profiler.ProfileCandidate({file_name, source, settings_.device}, profile_notes);
    if (auto sample = SampleOf(subject.name, entry, profile, notes_)) samples_.push_back(std::move(*sample));
  }

  size_t total_;
  const EnergyCalibrationSettings& settings_;
  const EnergyCalibrationEnvironment& environment_;
  std::vector<std::string>& notes_;
  MeasureSettings measure_;
  MeasureEnvironment measure_environment_;
  std::vector<EnergySample> samples_;
  size_t done_ = 0;
};

}  // namespace

Result<std::vector<EnergySample>> MeasureEnergySamples(const std::vector<EnergySubject>& subjects,
                                                       const EnergyCalibrationSettings& settings,
                                                       const EnergyCalibrationEnvironment& environment,
                                                       std::vector<std::string>& notes) {
  if (!environment.command_runner) return Internal("kopt bug: energy calibration without a command runner");
  EnergySampler sampler(subjects.size(), settings, environment, notes);
  std::string architecture = AheadArchitecture(settings, environment);
  if (!architecture.empty()) {
    if (environment.progress) environment.progress(fmt::format("compiling {} kernels", subjects.size()));
    CompileAhead(subjects, architecture, sampler.workspace(), *environment.command_runner);
  }
  for (const auto& [task_directory, task_subjects] : SubjectsByTask(subjects))
    KOPT_RETURN_IF_ERROR(sampler.SampleTask(task_directory, task_subjects));
  return sampler.TakeSamples();
}

Result<EnergyCalibrationResult> RunEnergyCalibration(const EnergyCalibrationSettings& settings,
                                                     const EnergyCalibrationEnvironment& environment) {
  if (!environment.query_gpus) return Internal("kopt bug: energy calibration without a GPU query");
  auto queried = environment.query_gpus();
  if (!queried.ok())
    return Unavailable("energy calibration needs a GPU: it measures kernels on it with NVML and ncu (" +
                       queried.status().message() + ")");
  const std::vector<GpuSpec>& gpus = *queried;
  if (gpus.empty() || settings.device < 0 || static_cast<size_t>(settings.device) >= gpus.size())
    return Unavailable("energy calibration needs a GPU: it measures kernels on it with NVML and ncu");
  EnergyCalibrationResult result;
  result.gpu_name = gpus[static_cast<size_t>(settings.device)].name;
  std::vector<EnergySubject> subjects;
  if (settings.probes) {
    for (const EnergyProbe& probe : EnergyProbes()) {
      std::string directory = (fs::path(settings.work_directory) / "probes" / probe.name).string();
      KOPT_RETURN_IF_ERROR(WriteEnergyProbeTask(probe, directory));
      subjects.push_back({"probe/" + probe.name, directory, "", ""});
    }
  }
  for (const std::string& task : settings.task_directories) {
    subjects.push_back({fs::path(task).filename().string() + "/reference", task, "", ""});
  }
  KOPT_ASSIGN_OR_RETURN(result.samples, MeasureEnergySamples(subjects, settings, environment, result.notes));
  for (const EnergySample& sample : result.samples) {
    if (!sample.gpu.empty()) {
      result.gpu_name = sample.gpu;  // the name profiles of this GPU carry
      break;
    }
  }
  EnergyFitSettings fit;
  fit.gpu_name = result.gpu_name;
  fit.measured_at = environment.now_utc ? environment.now_utc() : "";
  KOPT_ASSIGN_OR_RETURN(result.coefficients, FitEnergyCoefficients(result.samples, fit));
  return result;
}

nlohmann::json EnergySamplesToJson(const std::vector<EnergySample>& samples, std::string_view gpu_name) {
  nlohmann::json list = nlohmann::json::array();
  for (const EnergySample& sample : samples) {
    nlohmann::json counts = nlohmann::json::object();
    for (EnergyTerm term : AllEnergyTerms()) counts[std::string(EnergyTermName(term))] = sample.counts[term];
    list.push_back({{"name", sample.name},
                    {"measured_dynamic_joules", sample.measured_dynamic_joules},
                    {"measured_dynamic_joules_stdev", sample.measured_dynamic_joules_stdev},
                    {"seconds_per_launch", sample.seconds_per_launch},
                    {"counts", counts},
                    {"missing_metrics", sample.counts.missing_metrics}});
  }
  return {{"schema", "kopt.energy_samples/1"}, {"gpu", gpu_name}, {"samples", list}};
}

Result<std::vector<EnergySample>> EnergySamplesFromJson(const nlohmann::json& json, std::string_view source) {
  auto error = [&](const std::string& field, std::string_view expected) {
    return InvalidInput(fmt::format("{}: field \"{}\" must be {}", source, field, expected));
  };
  if (!json.is_object() || json.value("schema", "") != "kopt.energy_samples/1")
    return error("schema", "\"kopt.energy_samples/1\"");
  if (!json.contains("samples") || !json["samples"].is_array()) return error("samples", "a list");
  std::vector<EnergySample> samples;
  for (size_t i = 0; i < json["samples"].size(); ++i) {
    const nlohmann::json& row = json["samples"][i];
    std::string at = fmt::format("samples[{}]", i);
    if (!row.is_object() || !row.contains("name") || !row["name"].is_string())
      return error(at + ".name", "a string");
    EnergySample sample;
    sample.name = row["name"];
    for (const char* field : {"measured_dynamic_joules", "seconds_per_launch"}) {
      if (!row.contains(field) || !row[field].is_number()) return error(at + "." + field, "a number");
    }
    sample.measured_dynamic_joules = row["measured_dynamic_joules"];
    sample.seconds_per_launch = row["seconds_per_launch"];
    if (row.contains("measured_dynamic_joules_stdev")) {
      const nlohmann::json& stdev = row["measured_dynamic_joules_stdev"];
      if (!stdev.is_number() || stdev.get<double>() < 0)
        return error(at + ".measured_dynamic_joules_stdev", "a number >= 0 (J per launch)");
      sample.measured_dynamic_joules_stdev = stdev;
    }
    if (!row.contains("counts") || !row["counts"].is_object()) return error(at + ".counts", "an object");
    for (const auto& [name, value] : row["counts"].items()) {
      auto term = ParseEnergyTerm(name);
      if (!term) return error(at + ".counts." + name, "a term of docs/energy.md");
      if (!value.is_number()) return error(at + ".counts." + name, "a number");
      sample.counts[*term] = value.get<double>();
    }
    samples.push_back(std::move(sample));
  }
  return samples;
}

}  // namespace kopt
