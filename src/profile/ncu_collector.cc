// Live collection (nvcc → ncu → cuobjdump) and .ncu-rep import, every
// external command through a CommandRunner. See ncu_collector.h.
#include "profile/ncu_collector.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <optional>
#include <regex>
#include <system_error>
#include <tuple>

#include "core/csv_reader.h"
#include "core/file_io.h"
#include "core/text.h"
#include "profile/launch_sampling.h"
#include "profile/launch_trace_collection.h"
#include "profile/ncu_csv.h"
#include "profile/ncu_source_page.h"
#include "profile/program_launcher.h"
#include "profile/ptxas_report.h"
#include "profile/sass.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

constexpr size_t kOutputTailLines = 20;
constexpr double kNvidiaSmiTimeoutSeconds = 60;
constexpr const char* kReportStem = "profile";
constexpr const char* kPermissionHelpUrl = "https://developer.nvidia.com/ERR_NVGPUCTRPERM";

// ---- small text helpers ----------------------------------------------------

std::string CombinedOutput(const CommandResult& result) {
  std::string output = result.stdout_text;
  if (!output.empty() && output.back() != '\n' && !result.stderr_text.empty()) output += '\n';
  return output + result.stderr_text;
}

// The last `count` non-blank lines of `text`, joined with newlines.
std::string LastLines(std::string_view text, size_t count) {
  std::vector<std::string_view> lines;
  for (std::string_view line : SplitLines(text)) {
    if (!TrimWhitespace(line).empty()) lines.push_back(line);
  }
  size_t first = lines.size() > count ? lines.size() - count : 0;
  std::string joined;
  for (size_t index = first; index < lines.size(); ++index) {
    joined += std::string(lines[index]) + "\n";
  }
  return joined;
}

// The lines carrying ncu's `marker` ("==ERROR==", "==WARNING=="), verbatim.
std::vector<std::string> MarkedLines(std::string_view text, std::string_view marker) {
  std::vector<std::string> lines;
  for (std::string_view line : SplitLines(text)) {
    if (Contains(line, marker)) lines.emplace_back(TrimWhitespace(line));
  }
  return lines;
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string joined;
  for (const std::string& line : lines) joined += line + "\n";
  return joined;
}

// "\n<label>:\n<lines>" when there are lines, else "".
std::string Section(std::string_view label, std::string_view lines) {
  if (TrimWhitespace(lines).empty()) return "";
  std::string section = "\n" + std::string(label) + ":\n" + std::string(lines);
  if (section.back() == '\n') section.pop_back();
  return section;
}

// ncu ends a run that profiled nothing with "Available Kernels:" and lines
// "1. scale": the kernels the program launched.
bool IsAvailableKernelsHeader(std::string_view trimmed_line) {
  return trimmed_line == "Available Kernels:";
}

// "3. gemm" → "gemm"; "" for anything else.
std::string AvailableKernelEntry(std::string_view trimmed_line) {
  size_t dot = trimmed_line.find(". ");
  if (dot == 0 || dot == std::string_view::npos) return "";
  bool numbered = std::all_of(trimmed_line.begin(), trimmed_line.begin() + dot, [](char character) {
    return std::isdigit(static_cast<unsigned char>(character));
  });
  return numbered ? std::string(trimmed_line.substr(dot + 2)) : "";
}

std::vector<std::string> AvailableKernels(std::string_view output) {
  std::vector<std::string> kernels;
  bool in_list = false;
  for (std::string_view line : SplitLines(output)) {
    std::string_view trimmed = TrimWhitespace(line);
    if (IsAvailableKernelsHeader(trimmed)) {
      in_list = true;
    } else if (in_list) {
      std::string kernel = AvailableKernelEntry(trimmed);
      in_list = !kernel.empty();
      if (in_list) kernels.push_back(kernel);
    }
  }
  return kernels;
}

// The last lines of the profiled program's own output: ncu's "==PROF==",
// "==WARNING==" and "==ERROR==" lines and its kernel list left out.
std::string ProgramOutputTail(std::string_view output) {
  std::string program_lines;
  bool in_kernel_list = false;
  for (std::string_view line : SplitLines(output)) {
    std::string_view trimmed = TrimWhitespace(line);
    if (IsAvailableKernelsHeader(trimmed)) in_kernel_list = true;
    if (in_kernel_list && (IsAvailableKernelsHeader(trimmed) || !AvailableKernelEntry(trimmed).empty()))
      continue;
    in_kernel_list = false;
    bool ncu_line = StartsWith(trimmed, "==") && trimmed.find("== ") != std::string_view::npos;
    if (!ncu_line) program_lines += std::string(line) + "\n";
  }
  return Section("last lines of the program's output", LastLines(program_lines, kOutputTailLines));
}

std::string ErrorLinesSection(std::string_view output) {
  return Section("ncu reported", JoinLines(MarkedLines(output, "==ERROR==")));
}

std::string Quoted(std::string_view text) {
  return "'" + std::string(text) + "'";
}

std::string FormatSeconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

size_t NonBlankLineCount(std::string_view text) {
  size_t count = 0;
  for (std::string_view line : SplitLines(text)) count += TrimWhitespace(line).empty() ? 0 : 1;
  return count;
}

// ---- files -----------------------------------------------------------------

Status WriteTextFile(const fs::path& path, std::string_view text) {
  std::ofstream stream(path, std::ios::binary | std::ios::trunc);
  stream.write(text.data(), static_cast<std::streamsize>(text.size()));
  stream.close();
  if (!stream)
    return WorkFailed("cannot write " + Quoted(path.string()) + " (is the work directory writable?)");
  return Status::Ok();
}

Result<fs::path> PrepareWorkDirectory(const CollectionOptions& options) {
  if (options.work_directory.empty()) {
    return InvalidInput("no work directory given: live collection needs a directory for the profile bundle");
  }
  std::error_code error;
  fs::create_directories(options.work_directory, error);
  if (error || !fs::is_directory(options.work_directory)) {
    return WorkFailed("cannot create the work directory " + Quoted(options.work_directory) + ": " +
                      (error ? error.message() : "a file of that name exists"));
  }
  return fs::path(options.work_directory);
}

// ---- tools -----------------------------------------------------------------

void Progress(const CollectionOptions& options, std::string_view step) {
  if (options.progress) options.progress(step);
}

CommandSpec ToolCommand(std::vector<std::string> argv, const CollectionOptions& options) {
  CommandSpec spec;
  spec.argv = std::move(argv);
  spec.environment = {{"LC_ALL", "C"}};
  spec.timeout_seconds = options.timeout_seconds;
  return spec;
}

std::string NcuInstallAdvice() {
  return "Install Nsight Compute (it ships with the CUDA toolkit; "
         "https://developer.nvidia.com/nsight-compute) "
         "and put its directory on PATH (for example /usr/local/cuda/bin or "
         "/opt/nvidia/nsight-compute/<version>)";
}

std::string NcuMissingMessage(const CollectionOptions& options, std::string_view purpose) {
  return "Nsight Compute's command-line profiler " + Quoted(options.ncu) + " was not found on PATH; " +
         std::string(purpose) + " needs it. " + NcuInstallAdvice() + ".";
}

Status RequireNcu(CommandRunner& runner, const CollectionOptions& options, std::string_view purpose) {
  if (!runner.FindProgram(options.ncu).empty()) return Status::Ok();
  return Unavailable(NcuMissingMessage(options, purpose));
}

Status RequireNvcc(CommandRunner& runner, const CollectionOptions& options) {
  if (!runner.FindProgram(options.nvcc).empty()) return Status::Ok();
  return Unavailable("the CUDA compiler " + Quoted(options.nvcc) +
                     " was not found on PATH; building a .cu file needs it. Install the CUDA toolkit "
                     "(https://developer.nvidia.com/cuda-downloads) and put its bin directory (usually "
                     "/usr/local/cuda/bin) on PATH. Without a GPU machine, "
                     "explain a profile captured elsewhere: kopt explain profile.csv");
}

// `detail` says what was seen; `tool_output` (optional) is nvidia-smi's own words.
std::string NoGpuMessage(std::string_view detail, std::string_view tool_output = "") {
  return "no NVIDIA GPU found: " + std::string(detail) +
         ". Live collection needs a GPU and its driver; on a machine without one, explain a profile "
         "captured elsewhere (kopt explain profile.csv or report.ncu-rep)" +
         Section("nvidia-smi said", tool_output);
}

// ---- ncu report import -----------------------------------------------------

// ncu's own message lines ("==PROF== …", "==WARNING== …") that share stdout
// with the CSV: removed before parsing.
bool IsNcuMessageLine(std::string_view line) {
  static const std::regex pattern("^==[A-Z]+==");
  std::string text(line.substr(0, 16));
  return std::regex_search(text, pattern);
}

std::string StripNcuMessages(std::string_view text) {
  std::string kept;
  kept.reserve(text.size());
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    size_t stop = end == std::string_view::npos ? text.size() : end + 1;
    std::string_view line = text.substr(start, stop - start);
    if (!IsNcuMessageLine(line)) kept.append(line);
    start = stop;
  }
  return kept;
}

Status CheckReportFile(const std::string& report_path) {
  std::error_code error;
  if (!fs::exists(report_path, error)) {
    return NotFound("Nsight Compute report " + Quoted(report_path) + " not found");
  }
  if (!fs::is_regular_file(report_path, error)) {
    return InvalidInput(Quoted(report_path) + " is not a file; expected an Nsight Compute report (.ncu-rep)");
  }
  if (fs::file_size(report_path, error) == 0) {
    return InvalidInput(Quoted(report_path) + " is empty; expected an Nsight Compute report (.ncu-rep)");
  }
  return Status::Ok();
}

Status NoKernelInReport(const std::string& report_path, std::string_view ncu_output) {
  return WorkFailed("the report " + Quoted(report_path) +
                    " contains no kernel: ncu exported no profiled launch from it" +
                    ErrorLinesSection(ncu_output));
}

// Runs `ncu --import … --csv --page raw --print-units base` and returns the CSV text.
Result<std::string> ExportRawPage(const std::string& report_path, const CollectionOptions& options,
                                  CommandRunner& runner) {
  CommandSpec spec = ToolCommand(
      {options.ncu, "--import", report_path, "--csv", "--page", "raw", "--print-units", "base"}, options);
  Progress(options, "exporting the raw page (ncu --import)");
  PhaseTimer::Scope phase(options.phases, "raw page export (ncu --import)");
  KOPT_ASSIGN_OR_RETURN(CommandResult result, runner.Run(spec));
  phase.Stop();
  std::string output = CombinedOutput(result);
  if (result.timed_out) {
    return WorkFailed("ncu timed out after " + FormatSeconds(options.timeout_seconds) + " s reading " +
                      Quoted(report_path));
  }
  if (!result.Succeeded()) {
    std::string detail = MarkedLines(output, "==ERROR==").empty()
                             ? Section("ncu said", LastLines(output, kOutputTailLines))
                             : ErrorLinesSection(output);
    return InvalidInput("ncu could not read the report " + Quoted(report_path) + " (" +
                        DescribeCommandEnd(result, options.timeout_seconds) +
                        "); expected an Nsight Compute report that this ncu version can open" + detail);
  }
  std::string csv = StripNcuMessages(result.stdout_text);
  // A header and a units row with no launch row below them is an empty report too.
  if (NonBlankLineCount(csv) <= 2) return NoKernelInReport(report_path, output);
  return csv;
}

// Exports and parses a report; when `bundle_directory` is set, keeps the CSV there as raw.csv.
Result<Profile> ReadReport(const std::string& report_path, const CollectionOptions& options,
                           CommandRunner& runner, const std::optional<fs::path>& bundle_directory) {
  KOPT_ASSIGN_OR_RETURN(std::string csv, ExportRawPage(report_path, options, runner));
  if (bundle_directory) KOPT_RETURN_IF_ERROR(WriteTextFile(*bundle_directory / "raw.csv", csv));
  KOPT_ASSIGN_OR_RETURN(std::vector<KernelLaunch> launches, ParseNcuRawCsv(csv, report_path));
  if (launches.empty()) return NoKernelInReport(report_path, "");
  Profile profile;
  profile.source = report_path;
  profile.launches = std::move(launches);
  profile.inputs.push_back({report_path, "report", bundle_directory ? "collected" : "given"});
  return profile;
}

// Exports the report's source page (per-SASS-instruction stall samples and
// sectors) to source.csv and attaches it; any failure is a note.
void AttachSourcePage(const std::string& report_path, const fs::path& work_directory,
                      const CollectionOptions& options, CommandRunner& runner, Profile& profile,
                      std::vector<std::string>& notes) {
  std::vector<std::string> argv = {options.ncu, "--import",       report_path, "--csv",         "--page",
                                   "source",    "--print-source", "sass",      "--print-units", "base"};
  Progress(options, "exporting the source page (ncu --import)");
  PhaseTimer::Scope phase(options.phases, "source page export (ncu --import)");
  Result<CommandResult> result = runner.Run(ToolCommand(argv, options));
  if (!result.ok() || !result->Succeeded()) {
    std::string why = result.ok() ? DescribeCommandEnd(*result, options.timeout_seconds) +
                                        Section("output", LastLines(CombinedOutput(*result), 5))
                                  : result.status().message();
    notes.push_back("`" + CommandLineForDisplay(argv) + "` failed (" + why +
                    "): no per-instruction source page");
    return;
  }
  std::string csv = StripNcuMessages(result->stdout_text);
  fs::path source_page_path = work_directory / "source.csv";
  Status written = WriteTextFile(source_page_path, csv);
  if (!written.ok()) notes.push_back(written.message());
  Result<std::vector<SourcePage>> pages = ParseNcuSourcePage(csv, source_page_path.string());
  if (pages.ok()) {
    profile.source_pages = std::move(pages).value();
    profile.inputs.push_back({source_page_path.string(), "source page", "collected"});
  } else {
    notes.push_back("no per-instruction source page: " + pages.status().message());
  }
}

// ---- profiling a program under ncu -----------------------------------------

Status CheckLaunchSelection(const CollectionOptions& options) {
  if (options.launch_skip < 0 || options.launch_count < 0) {
    return InvalidInput("launch skip and count must not be negative (got skip " +
                        std::to_string(options.launch_skip) + ", count " +
                        std::to_string(options.launch_count) + ")");
  }
  return Status::Ok();
}

// Smart case for ncu's -k (which matches exactly): a pattern without upper-case letters, brackets or
// escapes gets each letter as [xX], as SelectLaunches matches exports.
std::string SmartCasePattern(const std::string& pattern) {
  bool plain = std::none_of(pattern.begin(), pattern.end(),
                            [](char c) { return (c >= 'A' && c <= 'Z') || c == '[' || c == '\\'; });
  if (!plain) return pattern;
  std::string either;
  for (char c : pattern) {
    if (c >= 'a' && c <= 'z') {
      either += std::string("[") + c + static_cast<char>(c - 'a' + 'A') + "]";
    } else {
      either += c;
    }
  }
  return either;
}

std::vector<std::string> NcuProfileCommand(const std::vector<std::string>& program_argv,
                                           const CollectionOptions& options, const fs::path& report_base,
                                           const std::vector<std::string>& sampling_arguments) {
  // Without a report, ncu prints the raw page itself (what `--import … --page raw` would export).
  std::vector<std::string> argv = {options.ncu};
  if (options.metrics.empty()) {
    argv.insert(argv.end(), {"--set", options.section_set});
  } else {
    std::string metrics;
    for (const std::string& metric : options.metrics) metrics += (metrics.empty() ? "" : ",") + metric;
    std::vector<std::string> sections = options.sections;
    if (sections.empty()) sections = {"LaunchStats"};
    for (const std::string& section : sections) argv.insert(argv.end(), {"--section", section});
    argv.insert(argv.end(), {"--metrics", metrics});
  }
  argv.insert(argv.end(), {"--clock-control", "none"});
  // ncu's default (all) is left implicit: the command line users know.
  if (options.cache_control != "all") argv.insert(argv.end(), {"--cache-control", options.cache_control});
  if (options.write_report) {
    argv.insert(argv.end(), {"--import-source", "yes"});  // sources go in the report
  } else {
    // ncu's guided-analysis rules (Python, run per profiled launch) only add rule results to a report,
    // which the printed raw page has no place for.
    argv.insert(argv.end(), {"--apply-rules", "no"});
  }
  if (!options.kernel_regex.empty()) {
    bool has_prefix = StartsWith(options.kernel_regex, "regex:");
    std::string pattern = has_prefix ? options.kernel_regex.substr(6) : options.kernel_regex;
    argv.insert(argv.end(), {"-k", "regex:" + SmartCasePattern(pattern)});
  }
  if (options.launch_skip > 0) argv.insert(argv.end(), {"-s", std::to_string(options.launch_skip)});
  if (options.launch_count > 0) argv.insert(argv.end(), {"-c", std::to_string(options.launch_count)});
  argv.insert(argv.end(), sampling_arguments.begin(), sampling_arguments.end());
  argv.insert(argv.end(), {"--target-processes", "all"});
  if (options.write_report) {
    argv.insert(argv.end(), {"-f", "-o", report_base.string()});
  } else {
    argv.insert(argv.end(), {"--csv", "--page", "raw", "--print-units", "base"});
  }
  argv.insert(argv.end(), program_argv.begin(), program_argv.end());
  return argv;
}

// A program given by bare name is looked up on PATH (ncu wants a path).
Result<std::vector<std::string>> ResolveProgram(const std::vector<std::string>& program_argv,
                                                CommandRunner& runner) {
  if (program_argv.empty() || program_argv[0].empty()) {
    return InvalidInput(
        "no program to profile: give the program and its arguments after --, e.g. -- ./app 1024");
  }
  std::vector<std::string> resolved = program_argv;
  if (resolved[0].find('/') != std::string::npos) return resolved;
  std::string path = runner.FindProgram(resolved[0]);
  if (path.empty()) {
    return NotFound("program " + Quoted(resolved[0]) +
                    " not found on PATH; for a program in this directory write ./" + resolved[0]);
  }
  resolved[0] = path;
  return resolved;
}

std::string KernelFilterDescription(const CollectionOptions& options) {
  std::vector<std::string> parts;
  if (!options.kernel_regex.empty()) parts.push_back("kernel name regex " + Quoted(options.kernel_regex));
  if (options.launch_skip > 0)
    parts.push_back("skipping " + std::to_string(options.launch_skip) + " launches");
  if (options.launch_count > 0) parts.push_back("launch count " + std::to_string(options.launch_count));
  std::string joined;
  for (const std::string& part : parts) joined += (joined.empty() ? "" : ", ") + part;
  return joined;
}

Status PermissionStatus(const std::string& command, std::string_view output) {
  return PermissionDenied(
      "ncu may not read the GPU performance counters (ERR_NVGPUCTRPERM) while profiling `" + command +
      "`. Fix: run as root (e.g. sudo), or let every user profile: put `options nvidia "
      "NVreg_RestrictProfilingToAdminUsers=0` in a file under /etc/modprobe.d/ and reload the nvidia module "
      "or reboot (in a container the host must allow it; start the container with --cap-add=SYS_ADMIN). "
      "See " +
      std::string(kPermissionHelpUrl) + ErrorLinesSection(output));
}

Status NoKernelProfiledStatus(const std::string& command, const CollectionOptions& options,
                              std::string_view output) {
  std::string filter = KernelFilterDescription(options);
  std::vector<std::string> launched = AvailableKernels(output);
  std::string what =
      filter.empty() ? "ncu profiled no kernel of `" + command + "`: the program launched no CUDA kernel"
                     : "no kernel launch matched (" + filter + ") in `" + command +
                           "`; the regex is matched against the function name such as 'saxpy', not the full "
                           "signature";
  std::string kernel_list;
  for (const std::string& kernel : launched) kernel_list += (kernel_list.empty() ? "" : ", ") + kernel;
  if (!kernel_list.empty()) what += ". The program launched: " + kernel_list;
  return WorkFailed(what + ErrorLinesSection(output) + ProgramOutputTail(output));
}

// ncu reports a program ended by a signal as error code = the signal's number
// (seen on the H200: SIGSEGV → 11; killed after a failed launch → 9).
std::string ErrorCodeHint(const std::string& code) {
  static const std::vector<std::pair<std::string, int>> kCrashSignals = {
      {"4", SIGILL}, {"6", SIGABRT}, {"7", SIGBUS}, {"8", SIGFPE}, {"9", SIGKILL}, {"11", SIGSEGV}};
  for (const auto& [text, signal_number] : kCrashSignals) {
    if (code == text)
      return "; ncu reports a program ended by a signal as that signal's number: " +
             DescribeSignal(signal_number);
  }
  return "";
}

// "The application returned an error code (N)" → N.
std::optional<std::string> ApplicationErrorCode(std::string_view output) {
  static const std::regex pattern(R"(The application returned an error code \((-?[0-9]+)\))");
  std::string text(output);
  std::smatch match;
  if (!std::regex_search(text, match, pattern)) return std::nullopt;
  return match[1].str();
}

// Maps a finished ncu run to a Status: OK when it profiled something.
// program_stopped_by_ncu: ncu ended the program itself (--kill yes): its exit status says nothing.
Status InterpretNcuRun(const CommandResult& result, const std::string& command,
                       const CollectionOptions& options, bool program_stopped_by_ncu) {
  std::string output = CombinedOutput(result);
  std::string tail = Section("last lines of output", LastLines(output, kOutputTailLines));
  if (result.timed_out) {
    return WorkFailed(
        "profiling `" + command + "` under ncu timed out after " + FormatSeconds(options.timeout_seconds) +
        " s; ncu replays every profiled launch many times, so select fewer launches (kernel regex, "
        "launch count) or allow more time" +
        tail);
  }
  if (Contains(output, "ERR_NVGPUCTRPERM")) return PermissionStatus(command, output);
  if (Contains(output, "does not exist or is not an executable")) {
    return NotFound("ncu cannot run `" + command + "`: the program does not exist or is not executable" +
                    ErrorLinesSection(output));
  }
  std::optional<std::string> code = ApplicationErrorCode(output);
  if (code && !program_stopped_by_ncu) {
    return WorkFailed("the program `" + command + "` failed under ncu (it returned error code " + *code +
                      ErrorCodeHint(*code) + ")" + ErrorLinesSection(output) + ProgramOutputTail(output));
  }
  if (result.signaled) {
    return WorkFailed("ncu was killed by " + DescribeCommandEnd(result, 0) + " while profiling `" + command +
                      "`" + ErrorLinesSection(output) + tail);
  }
  if (Contains(output, "No kernels were profiled")) return NoKernelProfiledStatus(command, options, output);
  if (result.exit_code != 0 && !program_stopped_by_ncu) {
    return WorkFailed("ncu failed (" + DescribeCommandEnd(result, 0) + ") while profiling `" + command + "`" +
                      ErrorLinesSection(output) + tail);
  }
  return Status::Ok();
}

// ncu's ==WARNING== lines worth showing (the unmodified-clocks note is expected: we ask for it).
void AddWarningNotes(std::string_view output, std::vector<std::string>& notes) {
  for (const std::string& line : MarkedLines(output, "==WARNING==")) {
    if (Contains(line, "unmodified GPU clocks")) continue;
    notes.push_back("ncu: " + line);
  }
}

// ---- building a .cu file ---------------------------------------------------

Result<std::string> ChooseArchitecture(const CollectionOptions& options, CommandRunner& runner) {
  if (!options.architecture.empty()) return options.architecture;
  PhaseTimer::Scope phase(options.phases, "GPU query (nvidia-smi)");
  return DetectLocalArchitecture(runner, std::min(options.timeout_seconds, kNvidiaSmiTimeoutSeconds));
}

// Compiles; returns nvcc's stderr, which holds the ptxas report.
// `output_flags` (SharedObjectFlags() or none) come before the user's extra flags.
Result<std::string> CompileSource(const std::string& source_path, const fs::path& binary_path,
                                  const std::string& architecture, const CollectionOptions& options,
                                  CommandRunner& runner, const std::vector<std::string>& output_flags = {}) {
  KOPT_ASSIGN_OR_RETURN(std::string gencode, GencodeFlagFor(architecture));
  std::vector<std::string> argv = {options.nvcc, "-O3", "-lineinfo", "-Xptxas", "-v", gencode};
  argv.insert(argv.end(), output_flags.begin(), output_flags.end());
  argv.insert(argv.end(), options.extra_nvcc_flags.begin(), options.extra_nvcc_flags.end());
  argv.insert(argv.end(), {"-o", binary_path.string(), source_path});
  Progress(options, "building " + fs::path(source_path).filename().string() + " (nvcc)");
  PhaseTimer::Scope phase(options.phases, "build (nvcc)");
  KOPT_ASSIGN_OR_RETURN(CommandResult result, runner.Run(ToolCommand(argv, options)));
  phase.Stop();
  std::string command = CommandLineForDisplay(argv);
  if (result.timed_out) {
    return WorkFailed("nvcc timed out after " + FormatSeconds(options.timeout_seconds) + " s compiling " +
                      Quoted(source_path) + "\n$ " + command);
  }
  if (!result.Succeeded()) {
    return WorkFailed(Quoted(source_path) + " does not compile (nvcc " + DescribeCommandEnd(result, 0) +
                      ")\n$ " + command + "\n" + std::string(TrimWhitespace(CombinedOutput(result))));
  }
  std::error_code error;
  if (!fs::exists(binary_path, error)) {
    return WorkFailed("nvcc reported success but wrote no program at " + Quoted(binary_path.string()) +
                      "\n$ " + command);
  }
  return result.stderr_text;
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

// The raw page ncu printed while profiling (write_report false): its own message lines and the
// program's output removed, kept as raw.csv, parsed.
Result<Profile> ReadPrintedRawPage(const std::string& printed, const std::string& command,
                                   const fs::path& work_directory) {
  std::string storage;
  QuotedCsvText quoted = BlankUnquotedLines(printed, storage);
  std::string csv;
  for (std::string_view line : SplitLines(quoted.text)) {
    if (!TrimWhitespace(line).empty()) csv += std::string(line) + "\n";
  }
  fs::path raw_path = work_directory / "raw.csv";
  KOPT_RETURN_IF_ERROR(WriteTextFile(raw_path, csv));
  if (NonBlankLineCount(csv) <= 2)
    return WorkFailed("ncu profiled `" + command + "` but printed no raw-page row for any launch");
  KOPT_ASSIGN_OR_RETURN(std::vector<KernelLaunch> launches, ParseNcuRawCsv(csv, raw_path.string()));
  if (launches.empty()) return WorkFailed("ncu profiled `" + command + "` but printed no launch");
  Profile profile;
  profile.source = "ncu " + command;
  profile.launches = std::move(launches);
  profile.inputs.push_back({raw_path.string(), "raw page", "collected"});
  return profile;
}

// What ncu will profile, for the progress line: "31 launches sampled of 20002"; and how many launches
// that is (0: not known), for the watcher's "i of n". The plan counts every kernel: with a kernel regex
// its counts are not ncu's, so they are not shown.
struct NcuSelection {
  std::string text;
  long long launches = 0;
};

NcuSelection DescribeNcuSelection(const CollectionOptions& options, const SamplingPlan* plan, bool sampling) {
  NcuSelection selection;
  std::vector<std::string> parts;
  if (!options.kernel_regex.empty()) parts.push_back("kernels matching " + Quoted(options.kernel_regex));
  if (options.launch_count > 0) {
    parts.push_back(fmt::format("at most {} launches", options.launch_count));
    selection.launches = options.launch_count;
  } else if (options.launch_skip > 0) {
    parts.push_back(fmt::format("the launches after the first {}", options.launch_skip));
  } else if (plan && plan->total_launches > 0 && options.kernel_regex.empty()) {
    parts.push_back(plan->Samples()
                        ? fmt::format("{} launches sampled of {}", plan->total_profiled, plan->total_launches)
                        : fmt::format("all {} launches", plan->total_launches));
    selection.launches = plan->total_profiled;
  } else if (sampling) {
    parts.push_back(fmt::format("first {} launches per configuration", options.launches_per_configuration));
  }
  for (const std::string& part : parts) selection.text += (selection.text.empty() ? "" : ", ") + part;
  return selection;
}

// `options` with its progress steps drawn on `line` (none when it has no progress callback).
CollectionOptions WithProgressLine(const CollectionOptions& options, CollectionProgressLine& line) {
  CollectionOptions drawn = options;
  if (options.progress) drawn.progress = [&line](std::string_view step) { line.Step(step); };
  return drawn;
}

void AttachLaunchTraceTo(Profile& profile, std::optional<LaunchTrace> trace) {
  if (!trace) return;
  for (const std::string& file : trace->files)
    profile.inputs.push_back({file, "launch timeline", "collected"});
  profile.trace = std::move(trace);
}

// When the launch timeline is taken (see CollectUnderNcu).
enum class TimelineOrder {
  // First, so that ncu profiles the planned sample, stopping the program after it when the sample
  // is the program's first launches (programs: applications launch many kernels).
  kBeforeNcu,
  // After ncu, and only when ncu may not have profiled every launch (.cu files: test programs that
  // launch each kernel a few times; their timeline cannot change the diagnosis).
  kAfterNcu,
};

// Below the launch-overhead tool's default min_launches (10): with fewer launches of every kernel,
// all of them profiled, the timeline's measured gaps and counts cannot change the diagnosis.
constexpr size_t kLaunchesNotWorthATimeline = 8;

// True when ncu profiled every launch of the program (none of its launch configurations reached the
// per-configuration limit, and no launch selection of the user's) and each kernel function has fewer
// than kLaunchesNotWorthATimeline launches.
bool ProfiledEveryLaunchOfFew(const Profile& profile, const CollectionOptions& options) {
  if (options.launch_skip > 0 || options.launch_count > 0) return false;
  // Dynamic shared memory is not told apart: configurations that differ only in it count together,
  // which can only make this answer "no" more often.
  using Configuration =
      std::tuple<std::string, long long, long long, long long, long long, long long, long long>;
  std::map<Configuration, long long> per_configuration;
  std::map<std::string, size_t> per_function;
  for (const KernelLaunch& launch : profile.launches) {
    ++per_configuration[{launch.kernel_name, launch.grid.x, launch.grid.y, launch.grid.z, launch.block.x,
                         launch.block.y, launch.block.z}];
    if (++per_function[launch.FunctionName()] >= kLaunchesNotWorthATimeline) return false;
  }
  if (options.launches_per_configuration == 0) return true;
  return std::all_of(per_configuration.begin(), per_configuration.end(),
                     [&](const auto& entry) { return entry.second < options.launches_per_configuration; });
}

// The name of the program for the progress lines: the shared object's when kopt-launcher runs one.
std::string ProgramName(const std::vector<std::string>& program) {
  fs::path first(program.front());
  if (first.filename() == "kopt-launcher" && program.size() >= 3) return fs::path(program[2]).stem().string();
  return first.filename().string();
}

// One ncu run of `program` with `sampling_arguments`; its output goes to ncu.log.
Result<CommandResult> RunNcu(const std::vector<std::string>& program, const CollectionOptions& options,
                             const fs::path& report_base, const std::vector<std::string>& sampling_arguments,
                             const NcuSelection& selection, CollectionProgressLine& line,
                             CommandRunner& runner, const std::string& phase_name) {
  std::vector<std::string> argv = NcuProfileCommand(program, options, report_base, sampling_arguments);
  CommandSpec profile_spec = ToolCommand(argv, options);
  profile_spec.environment.insert(profile_spec.environment.end(), options.ncu_environment.begin(),
                                  options.ncu_environment.end());
  NcuProgressWatcher watcher([&line](std::string_view text) { line.Update(text); }, selection.launches);
  if (options.progress) {
    Progress(options, "profiling " + ProgramName(program) + " under ncu" +
                          (selection.text.empty() ? "" : ": " + selection.text));
    profile_spec.on_stdout = [&watcher](std::string_view piece) { watcher.Feed(piece); };
  }
  PhaseTimer::Scope ncu_phase(options.phases, phase_name);
  KOPT_ASSIGN_OR_RETURN(CommandResult result, runner.Run(profile_spec));
  ncu_phase.Stop();
  KOPT_RETURN_IF_ERROR(WriteTextFile(report_base.parent_path() / "ncu.log",
                                     "$ " + CommandLineForDisplay(argv) + "\n" + CombinedOutput(result)));
  return result;
}

// The profile of a finished ncu run: the printed raw page, or the report's raw and source pages.
Result<Profile> ReadNcuResults(const CommandResult& result, const std::string& command,
                               const std::string& report_path, const fs::path& work_directory,
                               const CollectionOptions& options, CommandRunner& runner,
                               std::vector<std::string>& notes) {
  std::string output = CombinedOutput(result);
  if (!options.write_report) {
    AddWarningNotes(output, notes);
    Progress(options, "reading the raw page ncu printed");
    PhaseTimer::Scope phase(options.phases, "reading the raw page");
    return ReadPrintedRawPage(result.stdout_text, command, work_directory);
  }
  std::error_code error;
  if (!fs::exists(report_path, error)) {
    return WorkFailed("ncu finished profiling `" + command + "` but wrote no report at " +
                      Quoted(report_path) + ErrorLinesSection(output) +
                      Section("last lines of output", LastLines(output, kOutputTailLines)));
  }
  AddWarningNotes(output, notes);
  Profile profile;
  if (options.parallel_commands) {
    // The two exports read the report independently (CPU only): together they take the longer one's time.
    Profile source_pages;
    std::vector<std::string> source_page_notes;
    CollectionOptions quiet_options = options;  // the progress line stays on the raw page's export
    quiet_options.progress = nullptr;
    std::future<void> source_export = std::async(std::launch::async, [&] {
      AttachSourcePage(report_path, work_directory, quiet_options, runner, source_pages, source_page_notes);
    });
    Result<Profile> read = ReadReport(report_path, options, runner, work_directory);
    source_export.wait();
    if (!read.ok()) return read.status();
    profile = std::move(read).value();
    profile.source_pages = std::move(source_pages.source_pages);
    profile.inputs.insert(profile.inputs.end(), source_pages.inputs.begin(), source_pages.inputs.end());
    notes.insert(notes.end(), source_page_notes.begin(), source_page_notes.end());
  } else {
    KOPT_ASSIGN_OR_RETURN(profile, ReadReport(report_path, options, runner, work_directory));
    AttachSourcePage(report_path, work_directory, options, runner, profile, notes);
  }
  profile.source = "ncu " + command;
  return profile;
}

// The program profiled under ncu, with the launch timeline when there is a library for it (taken
// before or after ncu: `order`), a sample of the launches (launches_per_configuration) unless the
// user selected launches.
Result<Profile> CollectUnderNcu(const std::vector<std::string>& program_argv,
                                const CollectionOptions& options, CommandRunner& runner,
                                std::vector<std::string>& notes, TimelineOrder order,
                                CollectionProgressLine& line) {
  KOPT_RETURN_IF_ERROR(CheckLaunchSelection(options));
  KOPT_ASSIGN_OR_RETURN(fs::path work_directory, PrepareWorkDirectory(options));
  KOPT_RETURN_IF_ERROR(RequireNcu(runner, options, "profiling a program"));
  KOPT_ASSIGN_OR_RETURN(std::vector<std::string> program, ResolveProgram(program_argv, runner));
  fs::path report_base = work_directory / kReportStem;
  std::string report_path = report_base.string() + ".ncu-rep";
  std::error_code error;
  fs::remove(report_path, error);  // a stale report must not pass for this run's
  std::string command = CommandLineForDisplay(program_argv);

  bool timeline = !options.timeline_library.empty();
  bool user_selects = options.launch_skip > 0 || options.launch_count > 0;
  bool samples = !user_selects && options.launches_per_configuration > 0;
  std::optional<LaunchTrace> trace;
  if (timeline && order == TimelineOrder::kBeforeNcu) {
    Progress(options, "running " + ProgramName(program) + " once for the launch timeline");
    trace = CollectLaunchTrace(program, options.timeline_library, work_directory.string(),
                               options.timeout_seconds, runner, notes, options.phases);
  }
  std::vector<std::string> sampling_arguments, early_stop_arguments;
  std::optional<SamplingPlan> plan;
  // Without a timeline to count the launches ncu samples all the same, with the filter the plan gives
  // whenever it leaves launches out; the note cannot say how many it left out.
  std::string unplanned_note = fmt::format(
      "profiled at most the first {} launches of each launch configuration (no launch timeline to count "
      "them); --launches-per-kernel 0 profiles every launch",
      options.launches_per_configuration);
  if (samples) {
    if (trace) {
      plan = PlanLaunchSampling(*trace, options.launches_per_configuration);
      sampling_arguments = plan->ncu_arguments;
      if (options.kernel_regex.empty()) early_stop_arguments = plan->early_stop_arguments;
      if (plan->total_launches > 0) notes.push_back(plan->Describe());
    } else {
      sampling_arguments = UnplannedSamplingArguments(options.launches_per_configuration);
      if (order == TimelineOrder::kBeforeNcu || !timeline) notes.push_back(unplanned_note);
    }
  }

  // ncu stops the program after the sample when the sample is its first launches; should that run
  // fail (a program that does not survive its end, an ncu that does not support it), the plain sample.
  NcuSelection selection =
      DescribeNcuSelection(options, plan ? &*plan : nullptr, !sampling_arguments.empty());
  Result<Profile> profiled = InvalidInput("not profiled");
  if (!early_stop_arguments.empty()) {
    KOPT_ASSIGN_OR_RETURN(CommandResult result,
                          RunNcu(program, options, report_base, early_stop_arguments, selection, line, runner,
                                 "ncu run (stopping the program after the sample)"));
    std::vector<std::string> run_notes;
    Status run = InterpretNcuRun(result, command, options, /*program_stopped_by_ncu=*/true);
    // A timeout, missing counter permission or a missing program would only repeat: no second run.
    if (!run.ok() && (result.timed_out || run.kind() != ErrorKind::kWorkFailed)) return run;
    profiled = run.ok()
                   ? ReadNcuResults(result, command, report_path, work_directory, options, runner, run_notes)
                   : Result<Profile>(run);
    if (profiled.ok()) {
      notes.insert(notes.end(), run_notes.begin(), run_notes.end());
    } else {
      fs::remove(report_path, error);  // the second run's report, or none, must be what is read
      std::string why = profiled.status().message().substr(0, profiled.status().message().find('\n'));
      for (const std::string& error_line : MarkedLines(CombinedOutput(result), "==ERROR==")) {
        if (why.find(error_line) == std::string::npos) why += " " + error_line;
      }
      notes.push_back(
          fmt::format("ncu could not stop the program after the sampled launches ({}); profiled the sample "
                      "again with the "
                      "program running to its end",
                      why));
    }
  }
  if (!profiled.ok()) {
    KOPT_ASSIGN_OR_RETURN(CommandResult result, RunNcu(program, options, report_base, sampling_arguments,
                                                       selection, line, runner, "ncu run"));
    KOPT_RETURN_IF_ERROR(InterpretNcuRun(result, command, options, /*program_stopped_by_ncu=*/false));
    profiled = ReadNcuResults(result, command, report_path, work_directory, options, runner, notes);
  }
  KOPT_ASSIGN_OR_RETURN(Profile profile, std::move(profiled));
  if (RunsLauncher(program) && DropLauncherWarmup(profile) > 0 && profile.launches.empty())
    return NoKernelProfiledStatus(command, options, "");

  if (timeline && order == TimelineOrder::kAfterNcu) {
    if (ProfiledEveryLaunchOfFew(profile, options)) {
      notes.push_back(fmt::format(
          "no launch timeline: ncu profiled every launch {}({}), too few for the timeline to change the "
          "diagnosis, so the program did not run again under libkopt_timeline.so",
          options.kernel_regex.empty() ? "of the program " : "that the kernel filter matched ",
          profile.launches.size()));
    } else {
      Progress(options, "running " + ProgramName(program) + " once for the launch timeline");
      trace = CollectLaunchTrace(program, options.timeline_library, work_directory.string(),
                                 options.timeout_seconds, runner, notes, options.phases);
      if (samples) {
        SamplingPlan plan =
            trace ? PlanLaunchSampling(*trace, options.launches_per_configuration) : SamplingPlan{};
        notes.push_back(plan.total_launches > 0 ? plan.Describe() : unplanned_note);
      }
    }
  }
  AttachLaunchTraceTo(profile, std::move(trace));
  return profile;
}

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

// ---- public entry points ---------------------------------------------------

void AttachSassListing(const fs::path& binary_path, const fs::path& work_directory,
                       const CollectionOptions& options, CommandRunner& runner, Profile& profile,
                       std::vector<std::string>& notes) {
  if (runner.FindProgram(options.cuobjdump).empty()) {
    notes.push_back(Quoted(options.cuobjdump) +
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
    return InvalidInput("compute capability " + Quoted(text) + " is not of the form MAJOR.MINOR such as 9.0");
  }
  std::string architecture = "sm_" + match[1].str() + match[2].str();
  if (architecture == "sm_90") architecture += "a";
  return architecture;
}

Result<std::string> GencodeFlagFor(std::string_view architecture) {
  static const std::regex pattern(R"(sm_([0-9]{2,3}[a-z]?))");
  std::string text(architecture);
  std::smatch match;
  if (!std::regex_match(text, match, pattern)) {
    return InvalidInput("architecture " + Quoted(text) +
                        " is not of the form sm_<digits>[suffix] such as sm_90a");
  }
  return "-gencode=arch=compute_" + match[1].str() + ",code=sm_" + match[1].str();
}

Result<std::string> DetectLocalArchitecture(CommandRunner& runner, double timeout_seconds) {
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
    return Unavailable(NoGpuMessage("nvidia-smi printed " + Quoted(TrimWhitespace(*first)) +
                                    " where a compute capability such as 9.0 was expected"));
  }
  return architecture;
}

Result<Profile> ImportNcuReport(const std::string& report_path, const CollectionOptions& options,
                                CommandRunner& runner) {
  KOPT_RETURN_IF_ERROR(CheckReportFile(report_path));
  if (runner.FindProgram(options.ncu).empty()) {
    return Unavailable("reading " + Quoted(report_path) + " needs Nsight Compute's ncu on PATH (" +
                       Quoted(options.ncu) +
                       " was not found); or export on the machine that has it: ncu --import " + report_path +
                       " --csv --page raw --print-units base > r.csv and run kopt explain r.csv. " +
                       NcuInstallAdvice() + ".");
  }
  return ReadReport(report_path, options, runner, std::nullopt);
}

Result<Profile> CollectFromProgram(const std::vector<std::string>& program_argv,
                                   const CollectionOptions& options, CommandRunner& runner,
                                   std::vector<std::string>& notes) {
  // Every path out of a collection, errors included, destroys its CollectionProgressLine: the ticker
  // thread has ended before the collection returns.
  CollectionProgressLine line(options.progress, options.progress_refresh_seconds, options.progress_clock);
  return CollectUnderNcu(program_argv, WithProgressLine(options, line), runner, notes,
                         TimelineOrder::kBeforeNcu, line);
}

Result<Profile> CollectFromProgram(const std::vector<std::string>& program_argv,
                                   const CollectionOptions& options, CommandRunner& runner) {
  std::vector<std::string> notes;
  return CollectFromProgram(program_argv, options, runner, notes);
}

Result<Profile> CollectFromCudaSource(const std::string& cuda_source_path,
                                      const CollectionOptions& given_options, CommandRunner& runner,
                                      std::vector<std::string>& notes) {
  CollectionProgressLine line(given_options.progress, given_options.progress_refresh_seconds,
                              given_options.progress_clock);
  const CollectionOptions options = WithProgressLine(given_options, line);
  std::error_code error;
  if (!fs::is_regular_file(cuda_source_path, error)) {
    return NotFound("CUDA source " + Quoted(cuda_source_path) + " not found (expected a .cu file)");
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
