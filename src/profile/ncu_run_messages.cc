// What a finished ncu run's output says (ncu_run_messages.h).
#include "profile/ncu_run_messages.h"

#include <algorithm>
#include <cctype>
#include <csignal>
#include <optional>
#include <regex>

#include "core/text.h"
#include "profile/collector_support.h"

namespace kopt::collector {
namespace {

constexpr const char* kPermissionHelpUrl = "https://developer.nvidia.com/ERR_NVGPUCTRPERM";

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

std::string KernelFilterDescription(const CollectionOptions& options) {
  std::vector<std::string> parts;
  if (!options.kernel_regex.empty())
    parts.push_back("kernel name regex " + SingleQuoted(options.kernel_regex));
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

}  // namespace

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

// Maps a finished ncu run to a Status: OK when it profiled something.
// program_stopped_by_ncu: ncu ended the program itself (--kill yes): its exit status says nothing.
Status InterpretNcuRun(const CommandResult& result, const std::string& command,
                       const CollectionOptions& options, bool program_stopped_by_ncu) {
  std::string output = CombinedOutput(result);
  std::string tail = Section("last lines of output", LastLines(output, kOutputTailLines));
  if (result.timed_out) {
    return WorkFailed(
        "profiling `" + command + "` under ncu timed out after " + SecondsText(options.timeout_seconds) +
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

}  // namespace kopt::collector
