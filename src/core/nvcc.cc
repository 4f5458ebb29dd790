// The one nvcc driver (nvcc.h).
#include "core/nvcc.h"

#include <fmt/format.h>

#include <chrono>
#include <regex>
#include <system_error>

#include "core/text.h"

namespace kopt {
namespace {

// stdout, a line break when it lacks one and stderr follows, then stderr.
std::string StdoutThenStderr(const CommandResult& result) {
  std::string output = result.stdout_text;
  if (!output.empty() && output.back() != '\n' && !result.stderr_text.empty()) output += '\n';
  return output + result.stderr_text;
}

}  // namespace

Result<std::string> FindNvcc(CommandRunner& runner, const char* environment_value) {
  if (environment_value && *environment_value) {
    std::string found = runner.FindProgram(environment_value);
    if (found.empty()) {
      return NotFound(fmt::format("KOPT_NVCC={}: not an executable program; expected the path of nvcc",
                                  environment_value));
    }
    return found;
  }
  std::string found = runner.FindProgram("nvcc");
  if (found.empty()) found = runner.FindProgram(std::string(kDefaultNvccPath));
  if (found.empty()) {
    return NotFound(
        fmt::format("nvcc not found (searched KOPT_NVCC, PATH, {}); install the CUDA toolkit or set "
                    "KOPT_NVCC to nvcc's path",
                    kDefaultNvccPath));
  }
  return found;
}

std::string NvccArchitectureFlag(std::string_view architecture) {
  bool specific = architecture.size() > 3 && architecture.starts_with("sm_") &&
                  (architecture.back() == 'a' || architecture.back() == 'f');
  if (!specific) return "-arch=" + std::string(architecture);
  std::string compute = "compute_" + std::string(architecture.substr(3));
  return "-gencode=arch=" + compute + ",code=[" + std::string(architecture) + "," + compute + "]";
}

Result<std::string> GencodeFlagFor(std::string_view architecture) {
  static const std::regex pattern(R"(sm_([0-9]{2,3}[a-z]?))");
  std::string text(architecture);
  std::smatch match;
  if (!std::regex_match(text, match, pattern)) {
    return InvalidInput("architecture " + SingleQuoted(text) +
                        " is not of the form sm_<digits>[suffix] such as sm_90a");
  }
  return "-gencode=arch=compute_" + match[1].str() + ",code=sm_" + match[1].str();
}

Result<std::string> QueryNvccVersion(CommandRunner& runner, const std::string& nvcc, double timeout_seconds) {
  CommandSpec spec;
  spec.argv = {nvcc, "--version"};
  spec.timeout_seconds = timeout_seconds;
  KOPT_ASSIGN_OR_RETURN(CommandResult version, runner.Run(spec));
  if (!version.Succeeded()) {
    return Unavailable(fmt::format("{} --version failed ({}): {}", nvcc,
                                   DescribeCommandEnd(version, timeout_seconds), version.stderr_text));
  }
  return version.stdout_text;
}

Result<NvccRun> RunNvcc(CommandRunner& runner, const CommandSpec& spec) {
  NvccRun run;
  run.command_line = CommandLineForDisplay(spec.argv);
  auto start = std::chrono::steady_clock::now();
  KOPT_ASSIGN_OR_RETURN(run.result, runner.Run(spec));
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

Status CheckNvccBuild(const NvccRun& run, std::string_view source_path,
                      const std::filesystem::path& output_path, double timeout_seconds) {
  if (run.result.timed_out) {
    return WorkFailed("nvcc timed out after " + SecondsText(timeout_seconds) + " s compiling " +
                      SingleQuoted(source_path) + "\n$ " + run.command_line);
  }
  if (!run.result.Succeeded()) {
    return WorkFailed(SingleQuoted(source_path) + " does not compile (nvcc " +
                      DescribeCommandEnd(run.result, 0) + ")\n$ " + run.command_line + "\n" +
                      std::string(TrimWhitespace(StdoutThenStderr(run.result))));
  }
  std::error_code error;
  if (!std::filesystem::exists(output_path, error)) {
    return WorkFailed("nvcc reported success but wrote no program at " + SingleQuoted(output_path.string()) +
                      "\n$ " + run.command_line);
  }
  return Status::Ok();
}

}  // namespace kopt
