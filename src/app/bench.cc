#include "app/bench.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>

#include "app/bench_session.h"
#include "app/file_io.h"
#include "core/quantity_format.h"
#include "profile/ncu_collector.h"
#include "report/report_format.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

// The architecture used with --compile-only when no GPU can be asked.
constexpr const char* kDefaultCompileOnlyArchitecture = "sm_90a";

Status ValidateOptions(const BenchOptions& options) {
  if (options.task_directory.empty())
    return InvalidInput("bench needs a TASK_DIR (a directory with task.toml)");
  KOPT_RETURN_IF_ERROR(ParseReportFormat(options.format, kTableFormats).status());
  if (options.seeds < 0) return InvalidInput("--seeds must be at least 1 (0: the task's check_seeds)");
  if (!(options.timeout_seconds > 0)) return InvalidInput("--timeout must be a positive number of seconds");
  if (!(options.max_noise > 0 && options.max_noise < 1)) {
    return InvalidInput("--max-noise must be a fraction between 0 and 1 (0.005 = 0.5 %)");
  }
  if (options.min_samples < 1) return InvalidInput("--min-samples must be at least 1");
  if (options.jobs < 0) return InvalidInput("--jobs must be at least 1 (0: all cores)");
  if (options.device < 0) return InvalidInput("--device must be a CUDA device ordinal (0, 1, ...)");
  return Status::Ok();
}

// Stems made unique in order: "a", "b", "a#2".
void NameCandidates(std::vector<CandidateFile>& candidates) {
  std::map<std::string, int> seen;
  for (CandidateFile& candidate : candidates) {
    std::string stem = fs::path(candidate.path).stem().string();
    int count = ++seen[stem];
    candidate.name = count == 1 ? stem : stem + "#" + std::to_string(count);
  }
}

Result<std::vector<CandidateFile>> LoadCandidates(const BenchOptions& options) {
  std::vector<std::string> paths = options.candidate_paths;
  if (paths.empty()) {
    fs::path directory = fs::path(options.task_directory) / "candidates";
    std::error_code error;
    if (fs::is_directory(directory, error)) {
      for (const auto& item : fs::directory_iterator(directory, error)) {
        if (item.path().extension() == ".cu") paths.push_back(item.path().string());
      }
      std::sort(paths.begin(), paths.end());
    }
  }
  std::vector<CandidateFile> candidates;
  for (const std::string& path : paths) {
    Result<std::string> source = ReadWholeFile(path, size_t{16} << 20);
    if (!source.ok()) return Status(source.status().kind(), "candidate " + source.status().message());
    candidates.push_back({path, "", std::move(source).value()});
  }
  NameCandidates(candidates);
  return candidates;
}

Result<GpuSpec> SelectDevice(const std::vector<GpuSpec>& gpus, int device) {
  for (const GpuSpec& gpu : gpus) {
    if (gpu.device_index == device) return gpu;
  }
  std::string present;
  for (const GpuSpec& gpu : gpus) {
    present += (present.empty() ? "" : ", ") + std::to_string(gpu.device_index) + ": " + gpu.name;
  }
  return InvalidInput(fmt::format("--device {}: no such GPU on this machine (present: {})", device, present));
}

// Shapes that cannot fit: the candidate's and the reference's tensors, at the
// largest size checked, plus the L2 flush buffer.
Status CheckDeviceMemory(const TaskSpec& task, const GpuSpec& gpu) {
  double needed = 2.0 * static_cast<double>(task.PeakTensorBytes()) + gpu.l2_cache_bytes;
  if (gpu.dram_capacity_bytes <= 0 || needed <= gpu.dram_capacity_bytes) return Status::Ok();
  return InvalidInput(fmt::format(
      "task {}: its tensors need about {} of device memory (twice {}: the candidate's and the reference's, "
      "plus the {} L2 flush buffer), but GPU {} ({}) has {}; make the shapes in {}/task.toml smaller",
      task.name, FormatBytes(needed, QuantityStyle::kFixed),
      FormatBytes(static_cast<double>(task.PeakTensorBytes()), QuantityStyle::kFixed),
      FormatBytes(gpu.l2_cache_bytes, QuantityStyle::kFixed), gpu.device_index, gpu.name,
      FormatBytes(gpu.dram_capacity_bytes, QuantityStyle::kFixed), task.directory));
}

// The architecture and the device: --arch, else the GPU's compute capability.
Status ResolveDevice(const BenchOptions& options, const BenchEnvironment& environment, BenchPlan& plan) {
  Result<std::vector<GpuSpec>> gpus =
      environment.query_gpus ? environment.query_gpus() : Unavailable("no GPU query available");
  if (gpus.ok()) {
    KOPT_ASSIGN_OR_RETURN(GpuSpec gpu, SelectDevice(*gpus, options.device));
    KOPT_RETURN_IF_ERROR(CheckDeviceMemory(plan.task, gpu));
    plan.live_gpu = gpu;
  }
  plan.architecture = options.arch;
  if (!plan.architecture.empty()) return Status::Ok();
  if (plan.live_gpu) {
    KOPT_ASSIGN_OR_RETURN(plan.architecture,
                          ArchitectureForComputeCapability(plan.live_gpu->compute_capability));
    return Status::Ok();
  }
  if (options.compile_only) {
    plan.architecture = kDefaultCompileOnlyArchitecture;
    return Status::Ok();
  }
  return Unavailable("no NVIDIA GPU found (" + gpus.status().message() +
                     "). kopt bench runs every candidate on a GPU; to only compile them on this machine, use "
                     "--compile-only (with --arch, default " +
                     kDefaultCompileOnlyArchitecture + ")");
}

}  // namespace

BenchEnvironment DefaultBenchEnvironment(CommandRunner& command_runner, std::ostream& progress) {
  BenchEnvironment environment;
  environment.command_runner = &command_runner;
  environment.query_gpus = [] { return QueryLiveGpus(); };
  environment.progress = &progress;
  return environment;
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

Status RunBench(const BenchOptions& options, const BenchEnvironment& environment, std::ostream& out) {
  KOPT_RETURN_IF_ERROR(ValidateOptions(options));
  BenchPlan plan;
  std::error_code error;
  if (!fs::exists(options.task_directory, error)) {
    return NotFound("task directory " + options.task_directory + " does not exist");
  }
  KOPT_ASSIGN_OR_RETURN(plan.task, LoadTask(options.task_directory));
  KOPT_ASSIGN_OR_RETURN(plan.candidates, LoadCandidates(options));
  KOPT_RETURN_IF_ERROR(ResolveDevice(options, environment, plan));
  if (!options.compile_only) {
    if (!environment.runner_program.empty()) {
      plan.runner_program = environment.runner_program;
    } else {
      KOPT_ASSIGN_OR_RETURN(plan.runner_program, FindRunnerProgram());
    }
  }
  plan.seeds = DrawSeeds(options.seeds > 0 ? options.seeds : plan.task.check_seeds, options.seed);
  KOPT_ASSIGN_OR_RETURN(std::unique_ptr<Workspace> workspace, Workspace::Open(options.workspace));
  return RunBenchSession(options, environment, std::move(plan), *workspace, out);
}

}  // namespace kopt
