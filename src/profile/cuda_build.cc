// Building a .cu file, the GPU query and the SASS listing (cuda_build.h).
#include "profile/cuda_build.h"

#include <algorithm>
#include <regex>
#include <system_error>

#include "core/nvcc.h"
#include "core/text.h"
#include "profile/collector_support.h"
#include "profile/ptxas_report.h"
#include "profile/sass.h"

namespace kopt {
namespace collector {

namespace fs = std::filesystem;

namespace {

constexpr double kNvidiaSmiTimeoutSeconds = 60;

}  // namespace

// `detail` says what was seen; `tool_output` (optional) is nvidia-smi's own words.
std::string NoGpuMessage(std::string_view detail, std::string_view tool_output) {
  return "no NVIDIA GPU found: " + std::string(detail) +
         ". Live collection needs a GPU and its driver; on a machine without one, explain a profile "
         "captured elsewhere (kopt explain profile.csv or report.ncu-rep)" +
         Section("nvidia-smi said", tool_output);
}

Status RequireNvcc(CommandRunner& runner, const CollectionOptions& options) {
  if (!runner.FindProgram(options.nvcc).empty()) return Status::Ok();
  return Unavailable("the CUDA compiler " + SingleQuoted(options.nvcc) +
                     " was not found on PATH; building a .cu file needs it. Install the CUDA toolkit "
                     "(https://developer.nvidia.com/cuda-downloads) and put its bin directory (usually "
                     "/usr/local/cuda/bin) on PATH. Without a GPU machine, "
                     "explain a profile captured elsewhere: kopt explain profile.csv");
}

Result<std::string> ChooseArchitecture(const CollectionOptions& options, CommandRunner& runner) {
  if (!options.architecture.empty()) return options.architecture;
  PhaseTimer::Scope phase(options.phases, "GPU query (nvidia-smi)");
  return DetectLocalArchitecture(runner, std::min(options.timeout_seconds, kNvidiaSmiTimeoutSeconds),
                                 options.query_gpus ? options.query_gpus : QueryLiveGpus);
}

// Compiles; returns nvcc's stderr, which holds the ptxas report.
// `output_flags` (SharedObjectFlags() or none) come before the user's extra flags.
Result<std::string> CompileSource(const std::string& source_path, const fs::path& binary_path,
                                  const std::string& architecture, const CollectionOptions& options,
                                  CommandRunner& runner, const std::vector<std::string>& output_flags) {
  KOPT_ASSIGN_OR_RETURN(std::string gencode, GencodeFlagFor(architecture));
  std::vector<std::string> argv = {options.nvcc, "-O3", "-lineinfo", "-Xptxas", "-v", gencode};
  argv.insert(argv.end(), output_flags.begin(), output_flags.end());
  argv.insert(argv.end(), options.extra_nvcc_flags.begin(), options.extra_nvcc_flags.end());
  argv.insert(argv.end(), {"-o", binary_path.string(), source_path});
  Progress(options, "building " + fs::path(source_path).filename().string() + " (nvcc)");
  PhaseTimer::Scope phase(options.phases, "build (nvcc)");
  KOPT_ASSIGN_OR_RETURN(NvccRun run, RunNvcc(runner, ToolCommand(argv, options)));
  phase.Stop();
  KOPT_RETURN_IF_ERROR(CheckNvccBuild(run, source_path, binary_path, options.timeout_seconds));
  return run.result.stderr_text;
}

void AttachPtxasReport(std::string_view ptxas_text, const fs::path& ptxas_path, Profile& profile,
                       std::vector<std::string>& notes) {
  Result<PtxasReport> report = ParsePtxasReport(ptxas_text, ptxas_path.string());
  if (report.ok()) {
    profile.ptxas = std::move(report).value();
    profile.inputs.push_back({ptxas_path.string(), "ptxas report", "collected"});
  } else {
    notes.push_back("no ptxas resource report: " + report.status().message());
  }
}

}  // namespace collector

void AttachSassListing(const std::filesystem::path& binary_path, const std::filesystem::path& work_directory,
                       const CollectionOptions& options, CommandRunner& runner, Profile& profile,
                       std::vector<std::string>& notes) {
  using namespace collector;
  namespace fs = std::filesystem;
  if (runner.FindProgram(options.cuobjdump).empty()) {
    notes.push_back(SingleQuoted(options.cuobjdump) +
                    " (CUDA toolkit) not found on PATH: no SASS instruction mix for this profile");
    return;
  }
  std::vector<std::string> argv = {options.cuobjdump, "-sass", binary_path.string()};
  Progress(options, "disassembling (cuobjdump -sass)");
  PhaseTimer::Scope phase(options.phases, "disassembly (cuobjdump -sass)");
  Result<CommandResult> result = runner.Run(ToolCommand(argv, options));
  if (!result.ok() || !result->Succeeded()) {
    std::string why = result.ok() ? DescribeCommandEnd(*result, options.timeout_seconds) +
                                        Section("output", LastLines(CombinedOutput(*result), 5))
                                  : result.status().message();
    notes.push_back("`" + CommandLineForDisplay(argv) + "` failed (" + why + "): no SASS instruction mix");
    return;
  }
  fs::path sass_path = work_directory / "sass.txt";
  Status written = WriteTextFile(sass_path, result->stdout_text);
  if (!written.ok()) notes.push_back(written.message());
  Result<SassListing> listing = ParseSass(result->stdout_text, sass_path.string());
  if (listing.ok()) {
    profile.sass = std::move(listing).value();
    profile.inputs.push_back({sass_path.string(), "SASS listing", "collected"});
  } else {
    notes.push_back("no SASS instruction mix: " + listing.status().message());
  }
}

Result<std::string> ArchitectureForComputeCapability(std::string_view compute_capability) {
  static const std::regex pattern(R"(([0-9]{1,2})\.([0-9]))");
  std::string text(TrimWhitespace(compute_capability));
  std::smatch match;
  if (!std::regex_match(text, match, pattern)) {
    return InvalidInput("compute capability " + SingleQuoted(text) +
                        " is not of the form MAJOR.MINOR such as 9.0");
  }
  std::string architecture = "sm_" + match[1].str() + match[2].str();
  if (architecture == "sm_90") architecture += "a";
  return architecture;
}

namespace {

// The architecture of the first GPU nvidia-smi lists; Unavailable "no NVIDIA GPU found: …" otherwise.
Result<std::string> NvidiaSmiArchitecture(CommandRunner& runner, double timeout_seconds) {
  using namespace collector;
  if (runner.FindProgram("nvidia-smi").empty()) {
    return Unavailable(NoGpuMessage("nvidia-smi (from the NVIDIA driver) is not on PATH"));
  }
  std::vector<std::string> argv = {"nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"};
  CommandSpec spec{argv, {{"LC_ALL", "C"}}, "", timeout_seconds};
  KOPT_ASSIGN_OR_RETURN(CommandResult result, runner.Run(spec));
  std::string output = CombinedOutput(result);
  if (!result.Succeeded()) {
    return Unavailable(NoGpuMessage(
        "`" + CommandLineForDisplay(argv) + "` failed (" + DescribeCommandEnd(result, timeout_seconds) + ")",
        LastLines(output, 5)));
  }
  std::vector<std::string_view> lines = SplitLines(result.stdout_text);
  auto first = std::find_if(lines.begin(), lines.end(),
                            [](std::string_view line) { return !TrimWhitespace(line).empty(); });
  if (first == lines.end()) return Unavailable(NoGpuMessage("nvidia-smi lists no GPU"));
  Result<std::string> architecture = ArchitectureForComputeCapability(*first);
  if (!architecture.ok()) {
    return Unavailable(NoGpuMessage("nvidia-smi printed " + SingleQuoted(TrimWhitespace(*first)) +
                                    " where a compute capability such as 9.0 was expected"));
  }
  return architecture;
}

// The architecture of the first GPU the driver query returns.
Result<std::string> DriverArchitecture(const std::function<Result<std::vector<GpuSpec>>()>& driver_query) {
  if (!driver_query) return Unavailable("no CUDA driver query");
  KOPT_ASSIGN_OR_RETURN(std::vector<GpuSpec> gpus, driver_query());
  if (gpus.empty()) return Unavailable("the CUDA driver lists no GPU");
  return ArchitectureForComputeCapability(gpus.front().compute_capability);
}

}  // namespace

Result<std::string> DetectLocalArchitecture(
    CommandRunner& runner, double timeout_seconds,
    const std::function<Result<std::vector<GpuSpec>>()>& driver_query) {
  Result<std::string> listed = NvidiaSmiArchitecture(runner, timeout_seconds);
  if (listed.ok()) return listed;
  Result<std::string> driver = DriverArchitecture(driver_query);
  return driver.ok() ? driver : listed;
}

}  // namespace kopt
