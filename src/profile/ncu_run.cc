// A program profiled under ncu (ncu_run.h).
#include "profile/ncu_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <future>
#include <map>
#include <optional>
#include <system_error>
#include <tuple>

#include "core/csv_reader.h"
#include "core/text.h"
#include "profile/collector_support.h"
#include "profile/launch_sampling.h"
#include "profile/launch_trace_collection.h"
#include "profile/ncu_csv.h"
#include "profile/ncu_report_import.h"
#include "profile/ncu_run_messages.h"
#include "profile/program_launcher.h"

namespace kopt {
namespace collector {
namespace {

namespace fs = std::filesystem;

constexpr const char* kReportStem = "profile";

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
    return NotFound("program " + SingleQuoted(resolved[0]) +
                    " not found on PATH; for a program in this directory write ./" + resolved[0]);
  }
  resolved[0] = path;
  return resolved;
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
  if (!options.kernel_regex.empty())
    parts.push_back("kernels matching " + SingleQuoted(options.kernel_regex));
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

void AttachLaunchTraceTo(Profile& profile, std::optional<LaunchTrace> trace) {
  if (!trace) return;
  for (const std::string& file : trace->files)
    profile.inputs.push_back({file, "launch timeline", "collected"});
  profile.trace = std::move(trace);
}

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
                      SingleQuoted(report_path) + ErrorLinesSection(output) +
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

}  // namespace

Status CheckLaunchSelection(const CollectionOptions& options) {
  if (options.launch_skip < 0 || options.launch_count < 0) {
    return InvalidInput("launch skip and count must not be negative (got skip " +
                        std::to_string(options.launch_skip) + ", count " +
                        std::to_string(options.launch_count) + ")");
  }
  return Status::Ok();
}

CollectionOptions WithProgressLine(const CollectionOptions& options, CollectionProgressLine& line) {
  CollectionOptions drawn = options;
  if (options.progress) drawn.progress = [&line](std::string_view step) { line.Step(step); };
  return drawn;
}

namespace {

// What one CollectUnderNcu call profiles and where its files go.
struct NcuRunTarget {
  std::vector<std::string> program;  // resolved (ncu wants a path)
  std::string command;               // the user's command line, for messages
  fs::path work_directory;
  fs::path report_base;
  std::string report_path;
  NcuSelection selection;
};

// ncu stops the program after the sample (the sample is its first launches). The profile; or the
// error to report when a second run would only repeat it (a timeout, missing counter permission, a
// missing program); or nullopt, with a note saying why, when the plain run should follow (a program
// that does not survive its end, an ncu that does not support it).
Result<std::optional<Profile>> ProfileStoppingEarly(const NcuRunTarget& target,
                                                    const std::vector<std::string>& early_stop_arguments,
                                                    const CollectionOptions& options, CommandRunner& runner,
                                                    CollectionProgressLine& line,
                                                    std::vector<std::string>& notes) {
  KOPT_ASSIGN_OR_RETURN(CommandResult result, RunNcu(target.program, options, target.report_base,
                                                     early_stop_arguments, target.selection, line, runner,
                                                     "ncu run (stopping the program after the sample)"));
  std::vector<std::string> run_notes;
  Status run = InterpretNcuRun(result, target.command, options, /*program_stopped_by_ncu=*/true);
  if (!run.ok() && (result.timed_out || run.kind() != ErrorKind::kWorkFailed)) return run;
  Result<Profile> profiled = run.ok() ? ReadNcuResults(result, target.command, target.report_path,
                                                       target.work_directory, options, runner, run_notes)
                                      : Result<Profile>(run);
  if (profiled.ok()) {
    notes.insert(notes.end(), run_notes.begin(), run_notes.end());
    return std::optional<Profile>(std::move(profiled).value());
  }
  std::error_code error;
  fs::remove(target.report_path, error);  // the second run's report, or none, must be what is read
  std::string why = profiled.status().message().substr(0, profiled.status().message().find('\n'));
  for (const std::string& error_line : MarkedLines(CombinedOutput(result), "==ERROR==")) {
    if (why.find(error_line) == std::string::npos) why += " " + error_line;
  }
  notes.push_back(
      fmt::format("ncu could not stop the program after the sampled launches ({}); profiled the sample "
                  "again with the program running to its end",
                  why));
  return std::optional<Profile>();
}

// The launch timeline taken after ncu (TimelineOrder::kAfterNcu), unless ncu profiled every launch
// of few; with `samples`, the note on what the sample left out. `unplanned_note`: the note when the
// timeline cannot count the launches.
std::optional<LaunchTrace> TimelineAfterNcu(const NcuRunTarget& target, const Profile& profile,
                                            const CollectionOptions& options, bool samples,
                                            const std::string& unplanned_note, CommandRunner& runner,
                                            std::vector<std::string>& notes) {
  if (ProfiledEveryLaunchOfFew(profile, options)) {
    notes.push_back(fmt::format(
        "no launch timeline: ncu profiled every launch {}({}), too few for the timeline to change the "
        "diagnosis, so the program did not run again under libkopt_timeline.so",
        options.kernel_regex.empty() ? "of the program " : "that the kernel filter matched ",
        profile.launches.size()));
    return std::nullopt;
  }
  Progress(options, "running " + ProgramName(target.program) + " once for the launch timeline");
  std::optional<LaunchTrace> trace =
      CollectLaunchTrace(target.program, options.timeline_library, target.work_directory.string(),
                         options.timeout_seconds, runner, notes, options.phases);
  if (samples) {
    SamplingPlan plan =
        trace ? PlanLaunchSampling(*trace, options.launches_per_configuration) : SamplingPlan{};
    notes.push_back(plan.total_launches > 0 ? plan.Describe() : unplanned_note);
  }
  return trace;
}

}  // namespace

Result<Profile> CollectUnderNcu(const std::vector<std::string>& program_argv,
                                const CollectionOptions& options, CommandRunner& runner,
                                std::vector<std::string>& notes, TimelineOrder order,
                                CollectionProgressLine& line) {
  KOPT_RETURN_IF_ERROR(CheckLaunchSelection(options));
  NcuRunTarget target;
  KOPT_ASSIGN_OR_RETURN(target.work_directory, PrepareWorkDirectory(options));
  KOPT_RETURN_IF_ERROR(RequireNcu(runner, options, "profiling a program"));
  KOPT_ASSIGN_OR_RETURN(target.program, ResolveProgram(program_argv, runner));
  target.report_base = target.work_directory / kReportStem;
  target.report_path = target.report_base.string() + ".ncu-rep";
  std::error_code error;
  fs::remove(target.report_path, error);  // a stale report must not pass for this run's
  target.command = CommandLineForDisplay(program_argv);

  bool timeline = !options.timeline_library.empty();
  bool user_selects = options.launch_skip > 0 || options.launch_count > 0;
  bool samples = !user_selects && options.launches_per_configuration > 0;
  std::optional<LaunchTrace> trace;
  if (timeline && order == TimelineOrder::kBeforeNcu) {
    Progress(options, "running " + ProgramName(target.program) + " once for the launch timeline");
    trace = CollectLaunchTrace(target.program, options.timeline_library, target.work_directory.string(),
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
  target.selection = DescribeNcuSelection(options, plan ? &*plan : nullptr, !sampling_arguments.empty());

  std::optional<Profile> profiled;
  if (!early_stop_arguments.empty()) {
    KOPT_ASSIGN_OR_RETURN(profiled,
                          ProfileStoppingEarly(target, early_stop_arguments, options, runner, line, notes));
  }
  if (!profiled) {
    KOPT_ASSIGN_OR_RETURN(CommandResult result,
                          RunNcu(target.program, options, target.report_base, sampling_arguments,
                                 target.selection, line, runner, "ncu run"));
    KOPT_RETURN_IF_ERROR(InterpretNcuRun(result, target.command, options, /*program_stopped_by_ncu=*/false));
    KOPT_ASSIGN_OR_RETURN(profiled, ReadNcuResults(result, target.command, target.report_path,
                                                   target.work_directory, options, runner, notes));
  }
  Profile profile = std::move(*profiled);
  if (RunsLauncher(target.program) && DropLauncherWarmup(profile) > 0 && profile.launches.empty())
    return NoKernelProfiledStatus(target.command, options, "");
  if (timeline && order == TimelineOrder::kAfterNcu)
    trace = TimelineAfterNcu(target, profile, options, samples, unplanned_note, runner, notes);
  AttachLaunchTraceTo(profile, std::move(trace));
  return profile;
}

}  // namespace collector

Result<Profile> CollectFromProgram(const std::vector<std::string>& program_argv,
                                   const CollectionOptions& options, CommandRunner& runner,
                                   std::vector<std::string>& notes) {
  // Every path out of a collection, errors included, destroys its CollectionProgressLine: the ticker
  // thread has ended before the collection returns.
  CollectionProgressLine line(options.progress, options.progress_refresh_seconds, options.progress_clock);
  return collector::CollectUnderNcu(program_argv, collector::WithProgressLine(options, line), runner, notes,
                                    collector::TimelineOrder::kBeforeNcu, line);
}

Result<Profile> CollectFromProgram(const std::vector<std::string>& program_argv,
                                   const CollectionOptions& options, CommandRunner& runner) {
  std::vector<std::string> notes;
  return CollectFromProgram(program_argv, options, runner, notes);
}

}  // namespace kopt
