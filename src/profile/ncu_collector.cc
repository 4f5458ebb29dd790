// The entry point that builds a .cu file and profiles it (see
// ncu_collector.h); the collector's other parts: cuda_build.cc (nvcc, the
// GPU query, the SASS listing), ncu_run.cc (a program under ncu),
// ncu_run_messages.cc (what ncu's output says), ncu_report_import.cc
// (.ncu-rep import), collector_support.cc (what they share).
#include "profile/ncu_collector.h"

#include <fmt/format.h>

#include <filesystem>
#include <future>
#include <system_error>

#include "core/file_io.h"
#include "core/text.h"
#include "profile/collector_support.h"
#include "profile/cuda_build.h"
#include "profile/ncu_run.h"
#include "profile/program_launcher.h"

namespace kopt {
namespace collector {
namespace {

namespace fs = std::filesystem;

// A .cu built as a shared object while ncu already runs kopt-launcher on it (program_launcher.h):
// ncu's start and the CUDA context creation overlap nvcc. nvcc runs on this thread, ncu (and the
// timeline run after it, when one is taken) on a second one, which alone draws the progress line; the
// disassembly follows the build on this thread while ncu profiles. A build failure is reported as
// without the overlap (the launcher exits without running anything); a shared object the launcher
// cannot load is built again as an executable and profiled the plain way (`fallback`).
Result<Profile> CollectOverlappingTheBuild(const std::string& cuda_source_path,
                                           const std::string& architecture, const fs::path& work_directory,
                                           const CollectionOptions& options, CommandRunner& runner,
                                           std::vector<std::string>& notes, CollectionProgressLine& line,
                                           bool& fallback) {
  fallback = false;
  std::string stem = fs::path(cuda_source_path).stem().string();
  fs::path library_path = work_directory / (stem + ".so");
  fs::path ready_path = work_directory / (stem + ".ready");
  std::error_code error;
  fs::remove(library_path, error);  // a stale build must not run before this one is done
  fs::remove(ready_path, error);
  CollectionOptions quiet_options = options;
  quiet_options.progress = nullptr;
  Progress(options,
           "building " + fs::path(cuda_source_path).filename().string() + " (nvcc) while ncu starts");
  std::vector<std::string> ncu_notes;
  CollectionOptions ncu_options = options;
  // The warm-up with a whole section set (--set full) is profiled longer than the build hides: on the
  // H200 11.3 s against 10.8 s without the overlap (tests/gpu/results_h200/issue18_round5/).
  if (options.launcher_warmup && !options.metrics.empty() && options.launch_skip == 0 &&
      options.launch_count == 0)
    ncu_options.ncu_environment.push_back(LauncherWarmupEnvironment());
  std::future<Result<Profile>> collected = std::async(std::launch::async, [&] {
    return CollectUnderNcu(LauncherArgv(options.launcher, ready_path.string(), library_path.string()),
                           ncu_options, runner, ncu_notes, TimelineOrder::kAfterNcu, line);
  });
  Result<std::string> ptxas_text =
      CompileSource(cuda_source_path, library_path, architecture, quiet_options, runner, SharedObjectFlags());
  Status told = WriteReadyFile(ready_path.string(), ptxas_text.ok());
  Profile listing;
  std::vector<std::string> listing_notes;
  if (ptxas_text.ok() && told.ok())
    AttachSassListing(library_path, work_directory, quiet_options, runner, listing, listing_notes);
  Result<Profile> profiled = collected.get();  // the launcher exits at once when the build failed
  if (!ptxas_text.ok()) return ptxas_text.status();
  if (!told.ok()) return told;
  if (!profiled.ok()) {
    Result<std::string> log = ReadWholeFile((work_directory / "ncu.log").string());
    std::string output = log.ok() ? log.value() : "";
    if (!LauncherCouldNotLoad(profiled.status().message() + "\n" + output)) return profiled.status();
    fallback = true;
    notes.push_back(fmt::format(
        "kopt-launcher could not run the program built as a shared object ({}); built it again as an "
        "executable and profiled that",
        profiled.status().message().substr(0, profiled.status().message().find('\n'))));
    return profiled.status();
  }
  Profile profile = std::move(profiled).value();
  notes.insert(notes.end(), ncu_notes.begin(), ncu_notes.end());
  profile.source = cuda_source_path;
  fs::path ptxas_path = work_directory / "ptxas.txt";
  KOPT_RETURN_IF_ERROR(WriteTextFile(ptxas_path, *ptxas_text));
  AttachPtxasReport(*ptxas_text, ptxas_path, profile, notes);
  profile.sass = std::move(listing.sass);
  profile.inputs.insert(profile.inputs.end(), listing.inputs.begin(), listing.inputs.end());
  notes.insert(notes.end(), listing_notes.begin(), listing_notes.end());
  return profile;
}

}  // namespace
}  // namespace collector

Result<Profile> CollectFromCudaSource(const std::string& cuda_source_path,
                                      const CollectionOptions& given_options, CommandRunner& runner,
                                      std::vector<std::string>& notes) {
  using namespace collector;
  namespace fs = std::filesystem;
  CollectionProgressLine line(given_options.progress, given_options.progress_refresh_seconds,
                              given_options.progress_clock);
  const CollectionOptions options = WithProgressLine(given_options, line);
  std::error_code error;
  if (!fs::is_regular_file(cuda_source_path, error)) {
    return NotFound("CUDA source " + SingleQuoted(cuda_source_path) + " not found (expected a .cu file)");
  }
  KOPT_RETURN_IF_ERROR(CheckLaunchSelection(options));
  KOPT_ASSIGN_OR_RETURN(fs::path work_directory, PrepareWorkDirectory(options));
  KOPT_RETURN_IF_ERROR(RequireNvcc(runner, options));
  KOPT_RETURN_IF_ERROR(RequireNcu(runner, options, "profiling a .cu file"));
  KOPT_ASSIGN_OR_RETURN(std::string architecture, ChooseArchitecture(options, runner));

  if (!options.launcher.empty() && options.parallel_commands) {
    bool fallback = false;
    Result<Profile> overlapped = CollectOverlappingTheBuild(cuda_source_path, architecture, work_directory,
                                                            options, runner, notes, line, fallback);
    if (!fallback) return overlapped;
  }
  fs::path binary_path = work_directory / fs::path(cuda_source_path).stem();
  KOPT_ASSIGN_OR_RETURN(std::string ptxas_text,
                        CompileSource(cuda_source_path, binary_path, architecture, options, runner));
  fs::path ptxas_path = work_directory / "ptxas.txt";
  KOPT_RETURN_IF_ERROR(WriteTextFile(ptxas_path, ptxas_text));

  if (!options.parallel_commands) {
    KOPT_ASSIGN_OR_RETURN(Profile profile, CollectUnderNcu({binary_path.string()}, options, runner, notes,
                                                           TimelineOrder::kAfterNcu, line));
    profile.source = cuda_source_path;
    AttachPtxasReport(ptxas_text, ptxas_path, profile, notes);
    AttachSassListing(binary_path, work_directory, options, runner, profile, notes);
    return profile;
  }
  // cuobjdump (CPU only, about 1 s for a small program on the H200 machine) runs while ncu profiles; the
  // progress line stays on ncu's step.
  Profile listing;
  std::vector<std::string> listing_notes;
  CollectionOptions quiet_options = options;
  quiet_options.progress = nullptr;
  std::future<void> disassembly = std::async(std::launch::async, [&] {
    AttachSassListing(binary_path, work_directory, quiet_options, runner, listing, listing_notes);
  });
  Result<Profile> collected =
      CollectUnderNcu({binary_path.string()}, options, runner, notes, TimelineOrder::kAfterNcu, line);
  disassembly.wait();
  if (!collected.ok()) return collected.status();
  Profile profile = std::move(collected).value();
  profile.source = cuda_source_path;
  AttachPtxasReport(ptxas_text, ptxas_path, profile, notes);
  profile.sass = std::move(listing.sass);
  profile.inputs.insert(profile.inputs.end(), listing.inputs.begin(), listing.inputs.end());
  notes.insert(notes.end(), listing_notes.begin(), listing_notes.end());
  return profile;
}

Result<Profile> CollectFromCudaSource(const std::string& cuda_source_path, const CollectionOptions& options,
                                      CommandRunner& runner) {
  std::vector<std::string> notes;
  return CollectFromCudaSource(cuda_source_path, options, runner, notes);
}

}  // namespace kopt
