#include "app/bench.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/file_io.h"
#include "harness/kernelbench_candidate.h"
#include "profile/ncu_collector.h"
#include "report/bench_renderer.h"
#include "report/report_format.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

Status ValidateOptions(const BenchOptions& options) {
  if (options.task_directory.empty())
    return InvalidInput("bench needs a TASK_DIR (a directory with task.toml)");
  // The named inputs first: overwriting one is the worse mistake than a wrong extension.
  std::vector<std::string> named = {options.task_directory,
                                    (fs::path(options.task_directory) / "task.toml").string(),
                                    (fs::path(options.task_directory) / "reference.cu").string()};
  named.insert(named.end(), options.candidate_paths.begin(), options.candidate_paths.end());
  KOPT_RETURN_IF_ERROR(CheckOutputIsNotAnInput(options.output_path, named));
  KOPT_RETURN_IF_ERROR(ResolveReportFormat(options.format, options.output_path, kTableFormats).status());
  return ValidateMeasureSettings(options.measure);
}

// Stems made unique in order: "a", "b", "a#2"; "reference" is the reference's row ("reference#2").
void NameCandidates(std::vector<CandidateSource>& candidates) {
  std::map<std::string, int> seen = {{"reference", 1}};
  for (CandidateSource& candidate : candidates) {
    std::string stem = fs::path(candidate.path).stem().string();
    int count = ++seen[stem];
    candidate.name = count == 1 ? stem : stem + "#" + std::to_string(count);
  }
}

MeasureEnvironment MeasureEnvironmentFor(const BenchOptions& options, const BenchEnvironment& environment) {
  MeasureEnvironment measure;
  measure.command_runner = environment.command_runner;
  measure.query_gpus = environment.query_gpus;
  measure.runner_program = environment.runner_program;
  if (options.progress && environment.progress != nullptr) {
    std::ostream* stream = environment.progress;
    measure.progress = [stream](const MeasureProgress& progress) {
      *stream << "\r\033[K[" << progress.done << "/" << progress.total << "] " << progress.text << std::flush;
    };
  }
  return measure;
}

}  // namespace

Result<std::vector<CandidateSource>> LoadCandidateFiles(const std::string& task_directory,
                                                        const std::vector<std::string>& given) {
  std::vector<std::string> paths = given;
  if (paths.empty()) {
    fs::path directory = fs::path(task_directory) / "candidates";
    std::error_code error;
    if (fs::is_directory(directory, error)) {
      for (const auto& item : fs::directory_iterator(directory, error)) {
        if (item.path().extension() == ".cu") paths.push_back(item.path().string());
      }
      std::sort(paths.begin(), paths.end());
    }
  }
  std::vector<CandidateSource> candidates;
  std::vector<fs::path> seen;  // the same file given twice is measured once
  for (const std::string& path : paths) {
    std::error_code error;
    fs::path canonical = fs::weakly_canonical(fs::absolute(path, error), error);
    if (std::find(seen.begin(), seen.end(), canonical) != seen.end()) continue;
    seen.push_back(canonical);
    Result<std::string> source = ReadWholeFile(path, size_t{16} << 20);
    if (!source.ok()) return Status(source.status().kind(), "candidate " + source.status().message());
    candidates.push_back({"", path, std::move(source).value()});
  }
  NameCandidates(candidates);
  return candidates;
}

BenchEnvironment DefaultBenchEnvironment(CommandRunner& command_runner, std::ostream& progress) {
  BenchEnvironment environment;
  environment.command_runner = &command_runner;
  environment.query_gpus = [] { return QueryLiveGpus(); };
  environment.progress = &progress;
  return environment;
}

Status RunBench(const BenchOptions& options, const BenchEnvironment& environment, std::ostream& out) {
  KOPT_RETURN_IF_ERROR(ValidateOptions(options));
  KOPT_ASSIGN_OR_RETURN(MeasureTask task, LoadMeasureTask(options.task_directory));
  KOPT_ASSIGN_OR_RETURN(std::vector<CandidateSource> candidates,
                        LoadCandidateFiles(options.task_directory, options.candidate_paths));
  std::vector<std::string> inputs = {options.task_directory, task.spec.reference_path,
                                     (fs::path(options.task_directory) / "task.toml").string()};
  for (const CandidateSource& candidate : candidates) inputs.push_back(candidate.path);
  KOPT_RETURN_IF_ERROR(CheckOutputIsNotAnInput(options.output_path, inputs));
  KOPT_ASSIGN_OR_RETURN(ReportFormat format,
                        ResolveReportFormat(options.format, options.output_path, kTableFormats));
  // KernelBench candidates (ModelNew files) become kopt candidates first
  // (harness/kernelbench_candidate.h); compiled from the workspace's copy.
  for (CandidateSource& candidate : candidates) {
    if (!IsKernelBenchCandidatePath(candidate.path)) continue;
    Result<std::string> converted =
        ConvertKernelBenchCandidate(candidate.path, options.task_directory, *environment.command_runner);
    // A candidate kopt refuses fails alone (compile_error with the cause).
    if (!converted.ok() && converted.status().kind() != ErrorKind::kInvalidInput) return converted.status();
    candidate.source = converted.ok() ? std::move(converted).value()
                                      : RefusedKernelBenchCandidate(converted.status().message());
    candidate.path.clear();
  }
  // Read before measuring: a malformed baselines.json stops the run before any GPU time is spent.
  KOPT_ASSIGN_OR_RETURN(std::optional<TaskBaselines> pytorch_baselines,
                        ReadTaskBaselines(options.task_directory));
  KOPT_ASSIGN_OR_RETURN(
      MeasurementReport report,
      Measure(options.measure, MeasureEnvironmentFor(options, environment), std::move(task), candidates));
  report.pytorch_baselines = std::move(pytorch_baselines);
  if (options.progress && environment.progress) *environment.progress << "\r\033[K" << std::flush;
  std::ostringstream text;
  KOPT_RETURN_IF_ERROR(RenderBenchReport(report, std::string(ReportFormatName(format)), text));
  if (options.output_path.empty()) {
    out << text.str();
  } else {
    KOPT_RETURN_IF_ERROR(WriteFileAtomically(options.output_path, text.str()));
  }
  return ReferenceVerdict(report);
}

}  // namespace kopt
