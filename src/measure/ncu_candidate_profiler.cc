// The ncu implementation of CandidateProfiler (candidate_profiler.h).
//
// The runner request checks the candidate against itself (its own library as
// the "reference"), one seed, no size variants, no timing: the candidate is
// called twice and every kernel the child launches is the candidate's, so
// ncu needs no kernel filter; `launch_count` bounds the launches profiled.
#include <fmt/format.h>

#include <filesystem>
#include <mutex>

#include "core/file_io.h"
#include "harness/compiler.h"
#include "measure/candidate_profiler.h"
#include "measure/measure_plan.h"
#include "profile/ncu_collector.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

class NcuCandidateProfiler : public CandidateProfiler {
 public:
  NcuCandidateProfiler(NcuProfilerSettings settings, CommandRunner& runner, TaskSpec task,
                       std::unique_ptr<Compiler> compiler)
      : settings_(std::move(settings)),
        runner_(runner),
        task_(std::move(task)),
        compiler_(std::move(compiler)) {}

  Result<Profile> ProfileCandidate(const CandidateProfileRequest& request,
                                   std::vector<std::string>& notes) override {
    fs::path directory = fs::path(settings_.work_directory) / request.name;
    std::error_code error;
    fs::create_directories(directory, error);
    if (error)
      return Unavailable(
          fmt::format("{}: cannot create the profile directory: {}", directory.string(), error.message()));
    std::string source_path = (directory / "candidate.cu").string();
    KOPT_RETURN_IF_ERROR(WriteFileAtomically(source_path, request.source));
    KOPT_ASSIGN_OR_RETURN(CompileResult compiled, compiler_->Compile(task_, source_path));
    if (!compiled.Ok())
      return WorkFailed(
          fmt::format("{}: does not compile for profiling: {}", request.name, compiled.message));
    KOPT_ASSIGN_OR_RETURN(std::string request_path,
                          WriteRequest(directory, compiled.library_path, request.device));
    CollectionOptions collection;
    ApplyCollectionSettings(settings_.collection, collection);
    collection.cache_control = settings_.cache_control;
    collection.launch_count = settings_.launch_count;
    collection.architecture = settings_.architecture;
    collection.work_directory = directory.string();
    collection.timeout_seconds = settings_.timeout_seconds;
    KOPT_ASSIGN_OR_RETURN(Profile profile, CollectFromProgram({settings_.runner_program, request_path},
                                                              collection, runner_, notes));
    // The SASS tools (FP64, MUFU, integer division, tensor-core use) need the listing.
    AttachSassListing(compiled.library_path, directory, collection, runner_, profile, notes);
    return profile;
  }

 private:
  Result<std::string> WriteRequest(const fs::path& directory, const std::string& library, int device) {
    MeasureSettings measure;
    measure.time = false;
    measure.device = device;
    MeasurePlan plan;
    plan.task = task_;
    plan.architecture = settings_.architecture;
    plan.runner_program = settings_.runner_program;
    plan.seeds = {1};
    RunnerRequestOptions options;
    options.check = true;
    options.check_variants = false;
    KOPT_ASSIGN_OR_RETURN(nlohmann::json request,
                          RunnerRequestWire(BuildRunnerRequest(measure, plan, library, library, options)));
    std::string path = (directory / "profile_request.json").string();
    KOPT_RETURN_IF_ERROR(WriteFileAtomically(path, request.dump(1)));
    return path;
  }

  NcuProfilerSettings settings_;
  CommandRunner& runner_;
  TaskSpec task_;
  std::unique_ptr<Compiler> compiler_;
};

}  // namespace

Result<std::unique_ptr<CandidateProfiler>> MakeNcuCandidateProfiler(const NcuProfilerSettings& settings,
                                                                    CommandRunner& command_runner) {
  KOPT_ASSIGN_OR_RETURN(TaskSpec task, LoadTask(settings.task_directory));
  CompilerOptions compiler;
  compiler.architecture = settings.architecture;
  compiler.cache_directory = settings.cache_directory;
  compiler.extra_flags = settings.extra_flags;
  if (compiler.architecture.empty()) return InvalidInput("profiler: the architecture is not known (--arch)");
  KOPT_ASSIGN_OR_RETURN(std::unique_ptr<Compiler> made, Compiler::Create(command_runner, compiler));
  return std::unique_ptr<CandidateProfiler>(
      std::make_unique<NcuCandidateProfiler>(settings, command_runner, std::move(task), std::move(made)));
}

}  // namespace kopt
