// What the live collector's files share (collector_support.h).
#include "profile/collector_support.h"

#include <fstream>
#include <system_error>

#include "core/text.h"

namespace kopt::collector {

namespace fs = std::filesystem;

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

std::string ErrorLinesSection(std::string_view output) {
  return Section("ncu reported", JoinLines(MarkedLines(output, "==ERROR==")));
}

size_t NonBlankLineCount(std::string_view text) {
  size_t count = 0;
  for (std::string_view line : SplitLines(text)) count += TrimWhitespace(line).empty() ? 0 : 1;
  return count;
}

Status WriteTextFile(const fs::path& path, std::string_view text) {
  std::ofstream stream(path, std::ios::binary | std::ios::trunc);
  stream.write(text.data(), static_cast<std::streamsize>(text.size()));
  stream.close();
  if (!stream)
    return WorkFailed("cannot write " + SingleQuoted(path.string()) + " (is the work directory writable?)");
  return Status::Ok();
}

Result<fs::path> PrepareWorkDirectory(const CollectionOptions& options) {
  if (options.work_directory.empty()) {
    return InvalidInput("no work directory given: live collection needs a directory for the profile bundle");
  }
  std::error_code error;
  fs::create_directories(options.work_directory, error);
  if (error || !fs::is_directory(options.work_directory)) {
    return WorkFailed("cannot create the work directory " + SingleQuoted(options.work_directory) + ": " +
                      (error ? error.message() : "a file of that name exists"));
  }
  return fs::path(options.work_directory);
}

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

Status RequireNcu(CommandRunner& runner, const CollectionOptions& options, std::string_view purpose) {
  if (!runner.FindProgram(options.ncu).empty()) return Status::Ok();
  return Unavailable("Nsight Compute's command-line profiler " + SingleQuoted(options.ncu) +
                     " was not found on PATH; " + std::string(purpose) + " needs it. " + NcuInstallAdvice() +
                     ".");
}

}  // namespace kopt::collector
