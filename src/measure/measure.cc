#include "measure/measure.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <regex>

namespace kopt {
namespace {

namespace fs = std::filesystem;

}  // namespace

Result<std::optional<CutlassTree>> ResolveIncludeDirectories(MeasureSettings& settings,
                                                             CommandRunner& command_runner) {
  for (std::string& directory : settings.include_directories) {
    std::error_code error;
    if (!fs::is_directory(directory, error)) {
      return InvalidInput(fmt::format("--include-dir {}: not a directory", directory));
    }
    directory = fs::absolute(directory, error).lexically_normal().string();
  }
  if (settings.cutlass.empty()) return std::optional<CutlassTree>();
  KOPT_ASSIGN_OR_RETURN(CutlassTree tree, LocateCutlass(settings.cutlass, command_runner));
  for (const std::string& directory : tree.include_directories) {
    if (std::find(settings.include_directories.begin(), settings.include_directories.end(), directory) ==
        settings.include_directories.end()) {
      settings.include_directories.push_back(directory);
    }
  }
  settings.cutlass.clear();
  return std::optional<CutlassTree>(std::move(tree));
}

Status ValidateMeasureSettings(const MeasureSettings& settings) {
  if (settings.seeds < 0) return InvalidInput("--seeds must be at least 1 (0: the task's check_seeds)");
  if (!(settings.timeout_seconds > 0)) return InvalidInput("--timeout must be a positive number of seconds");
  if (!(settings.max_noise > 0 && settings.max_noise < 1)) {
    return InvalidInput("--max-noise must be a fraction between 0 and 1 (0.005 = 0.5 %)");
  }
  if (settings.min_samples < 1) return InvalidInput("--min-samples must be at least 1");
  if (settings.jobs < 0) return InvalidInput("--jobs must be at least 1 (0: all cores)");
  if (settings.device < 0) return InvalidInput("--device must be a CUDA device ordinal (0, 1, ...)");
  if (!std::isfinite(settings.inputs.scale) || settings.inputs.scale == 0) {
    return InvalidInput("--input-scale must be a finite non-zero factor (3, 0.01, -1 negates)");
  }
  if (!settings.arch.empty() && !std::regex_match(settings.arch, std::regex("sm_[0-9]{2,3}[af]?"))) {
    return InvalidInput("--arch " + settings.arch +
                        ": expected sm_ and the compute capability, e.g. sm_90a or sm_80");
  }
  return Status::Ok();
}

Result<MeasureTask> LoadMeasureTask(const std::string& task_directory) {
  std::error_code error;
  if (!fs::exists(task_directory, error))
    return NotFound("task directory " + task_directory + " does not exist");
  MeasureTask task;
  task.directory = task_directory;
  KOPT_ASSIGN_OR_RETURN(task.spec, LoadTask(task_directory));
  return task;
}

MeasureEnvironment DefaultMeasureEnvironment(CommandRunner& command_runner) {
  MeasureEnvironment environment;
  environment.command_runner = &command_runner;
  environment.query_gpus = [] { return QueryLiveGpus(); };
  return environment;
}

Result<MeasurementReport> Measure(const MeasureSettings& settings, const MeasureEnvironment& environment,
                                  MeasureTask task, const std::vector<CandidateSource>& candidates) {
  KOPT_ASSIGN_OR_RETURN(std::unique_ptr<MeasureSession> session,
                        MeasureSession::Open(settings, environment, std::move(task)));
  KOPT_RETURN_IF_ERROR(session->AddCandidates(candidates));
  KOPT_RETURN_IF_ERROR(session->MeasurePending().status());
  return session->Finish();
}

Status ReferenceVerdict(const MeasurementReport& report) {
  const MeasurementEntry& reference = report.reference;
  if (reference.ok() || (report.compile_only && reference.status == MeasureStatus::kCompiled))
    return Status::Ok();
  // nvcc refuses the architecture itself: a bad option (exit 2), not a failed reference.
  if (reference.failure == FailureKind::kCompileError &&
      reference.detail.find("Unsupported gpu architecture") != std::string::npos) {
    return InvalidInput("--arch " + report.architecture +
                        ": nvcc does not support this architecture (`nvcc --list-gpu-code` lists the ones it "
                        "does, e.g. sm_90a for H100/H200)");
  }
  std::string what = "the reference failed (" + reference.KindName() + "): " + reference.message;
  if (reference.failure == FailureKind::kDeviceUnavailable) return Unavailable(what);
  return WorkFailed(what);
}

Result<std::string> FindRunnerProgram() {
  if (const char* configured = std::getenv("KOPT_RUNNER"); configured && *configured) {
    if (access(configured, X_OK) != 0) {
      return NotFound(std::string("KOPT_RUNNER=") + configured + ": not an executable file");
    }
    return std::string(configured);
  }
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  fs::path beside = self.parent_path() / "kopt-runner";
  if (!error && access(beside.c_str(), X_OK) == 0) return beside.string();
  return NotFound("kopt-runner not found: KOPT_RUNNER is not set and " + beside.string() +
                  " does not exist (it is built with the CUDA toolkit; set KOPT_RUNNER to its path)");
}

std::vector<uint64_t> DrawSeeds(int count, std::optional<uint64_t> seed) {
  std::mt19937_64 generator(seed ? *seed : std::random_device{}() ^ (uint64_t{std::random_device{}()} << 32));
  std::vector<uint64_t> seeds;
  // Seeds stay within 2^53 so that every JSON reader keeps them exact.
  for (int i = 0; i < count; ++i) seeds.push_back(generator() >> 11);
  return seeds;
}

}  // namespace kopt
