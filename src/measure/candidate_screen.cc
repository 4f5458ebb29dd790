#include "measure/candidate_screen.h"

#include <fmt/format.h>

#include <filesystem>

#include "core/elf_symbols.h"
#include "core/file_io.h"
#include "core/text.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxSourceBytes = size_t{16} << 20;
constexpr size_t kMaxLibraryBytes = size_t{512} << 20;
constexpr double kDisassemblyTimeoutSeconds = 120;

// The lines of cuobjdump's listing that read a clock: cached beside the compile.
Result<std::string> ClockReadingLines(const CompileResult& compiled, CommandRunner& runner,
                                      const std::string& cuobjdump) {
  const std::string cached = compiled.cache_entry.empty() ? "" : compiled.cache_entry + "/policy_sass.txt";
  if (!cached.empty()) {
    auto text = ReadWholeFile(cached, kMaxSourceBytes);
    if (text.ok()) return *text;
  }
  CommandSpec spec;
  spec.argv = {cuobjdump, "-sass", compiled.library_path};
  spec.timeout_seconds = kDisassemblyTimeoutSeconds;
  KOPT_ASSIGN_OR_RETURN(CommandResult result, runner.Run(spec));
  if (result.timed_out || result.signaled || result.exit_code != 0) {
    return Unavailable(fmt::format("cuobjdump -sass {} failed: {}", compiled.library_path,
                                   std::string(TrimWhitespace(result.stderr_text).substr(0, 200))));
  }
  std::string lines;
  for (const PolicyViolation& violation : ScreenSass(result.stdout_text, compiled.library_path, {})) {
    lines += violation.matched + "\n";
  }
  if (!cached.empty()) (void)WriteFileAtomically(cached, lines);
  return lines;
}

}  // namespace

CandidateScreen ScreenCompiledCandidate(const TaskSpec& task, const std::string& source_path,
                                        const CompileResult& compiled, const PolicyAllowance& allowed,
                                        CommandRunner& runner, const std::string& cuobjdump) {
  CandidateScreen screen;
  const std::string file_name = fs::path(source_path).filename().string();
  auto source = ReadWholeFile(source_path, kMaxSourceBytes);
  if (source.ok()) {
    screen.violations = ScreenSource(*source, file_name, task.entry, allowed);
  } else {
    screen.notes.push_back("policy: source not screened: " + source.status().message());
  }
  const std::string library_name = file_name + " (compiled)";
  auto library = ReadWholeFile(compiled.library_path, kMaxLibraryBytes);
  if (!library.ok()) {
    screen.notes.push_back("policy: imports not screened: " + library.status().message());
  } else if (library->rfind("\x7f"
                            "ELF",
                            0) == 0) {
    auto symbols = UndefinedDynamicSymbols(*library, compiled.library_path);
    if (symbols.ok()) {
      for (PolicyViolation& violation : ScreenImports(*symbols, library_name, allowed)) {
        screen.violations.push_back(std::move(violation));
      }
    } else {
      screen.notes.push_back("policy: imports not screened: " + symbols.status().message());
    }
    if (!cuobjdump.empty() && !allowed.count(PolicyConstruct::kDeviceClock)) {
      auto lines = ClockReadingLines(compiled, runner, cuobjdump);
      if (lines.ok()) {
        for (PolicyViolation& violation : ScreenSass(*lines, library_name, allowed)) {
          screen.violations.push_back(std::move(violation));
        }
      } else {
        screen.notes.push_back("policy: SASS not screened: " + lines.status().message());
      }
    }
  }
  screen.violations = FirstViolationPerConstruct(std::move(screen.violations));
  return screen;
}

std::string PolicyViolationSummary(const std::vector<PolicyViolation>& violations) {
  if (violations.empty()) return "";
  std::string summary = PolicyViolationMessage(violations.front());
  if (violations.size() > 1) {
    std::string others;
    for (size_t index = 1; index < violations.size(); ++index) {
      others += (others.empty() ? "" : ", ") + std::string(PolicyConstructName(violations[index].construct));
    }
    summary += fmt::format(" (also: {})", others);
  }
  return summary;
}

std::string PolicyViolationDetail(const std::vector<PolicyViolation>& violations) {
  std::string detail;
  for (const PolicyViolation& violation : violations) {
    detail += fmt::format("policy_violation [{}]: {}\n", PolicyEvidenceName(violation.evidence),
                          PolicyViolationMessage(violation));
  }
  return detail;
}

}  // namespace kopt
