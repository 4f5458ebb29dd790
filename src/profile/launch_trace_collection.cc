// The timeline run of live collection. See launch_trace_collection.h.
#include "profile/launch_trace_collection.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "core/companion_file.h"
#include "core/text.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLibraryName = "libkopt_timeline.so";
constexpr size_t kOutputTailBytes = 2000;

std::string Tail(const std::string& text) {
  return text.size() <= kOutputTailBytes ? text : "…" + text.substr(text.size() - kOutputTailBytes);
}

}  // namespace

std::string FindTimelineLibrary() {
  return FindCompanionFile("KOPT_TIMELINE_LIBRARY", {kLibraryName, fs::path("..") / "lib" / kLibraryName});
}

std::optional<LaunchTrace> CollectLaunchTrace(const std::vector<std::string>& program_argv,
                                              const std::string& library, const std::string& work_directory,
                                              double timeout_seconds, CommandRunner& runner,
                                              std::vector<std::string>& notes, PhaseTimer* phases) {
  for (const std::string& stale : FindLaunchTraceFiles(work_directory)) {
    std::error_code error;
    fs::remove(stale, error);  // an earlier run's timeline must not pass for this one's
  }
  CommandSpec spec;
  spec.argv = program_argv;
  spec.environment = {{"CUDA_INJECTION64_PATH", library},
                      {"KOPT_TIMELINE_OUT", (fs::path(work_directory) / "timeline.%p.jsonl").string()}};
  spec.timeout_seconds = timeout_seconds;
  PhaseTimer::Scope run_phase(phases, "timeline run (libkopt_timeline.so)");
  Result<CommandResult> result = runner.Run(spec);
  run_phase.Stop();
  std::string command = CommandLineForDisplay(program_argv);
  if (!result.ok()) {
    notes.push_back(
        fmt::format("no launch timeline: `{}` did not start ({})", command, result.status().message()));
    return std::nullopt;
  }
  std::vector<std::string> files = FindLaunchTraceFiles(work_directory);
  if (!result->Succeeded()) {
    notes.push_back(
        fmt::format("the timeline run of `{}` under {} {}{}", command, library,
                    DescribeCommandEnd(*result, timeout_seconds),
                    files.empty() ? ": no launch timeline" : "; its timeline is read as far as it got"));
  }
  if (files.empty()) {
    if (result->Succeeded()) {
      std::string said = Tail(result->stderr_text);
      notes.push_back(
          fmt::format("no launch timeline: `{}` ran under {} but no timeline file appeared (the program made "
                      "no CUDA call, or "
                      "CUDA did not load the library){}",
                      command, library,
                      TrimWhitespace(said).empty() ? "" : "; it said: " + std::string(TrimWhitespace(said))));
    }
    return std::nullopt;
  }
  PhaseTimer::Scope read_phase(phases, "reading the timeline");
  Result<LaunchTrace> trace = ReadLaunchTraceFiles(files);
  read_phase.Stop();
  if (!trace.ok()) {
    notes.push_back("no launch timeline: " + trace.status().message());
    return std::nullopt;
  }
  if (trace->dropped_records > 0)
    notes.push_back(fmt::format("the launch timeline lost {} record(s): CUPTI's buffers were full",
                                trace->dropped_records));
  return std::move(trace).value();
}

}  // namespace kopt
