#include "profile/profile_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <optional>
#include <regex>

#include "core/csv_reader.h"
#include "core/file_io.h"
#include "core/text.h"
#include "profile/launch_trace.h"
#include "profile/ncu_collector.h"
#include "profile/ncu_csv.h"
#include "profile/ncu_details_page.h"
#include "profile/ncu_export.h"
#include "profile/ncu_source_page.h"
#include "profile/ptxas_report.h"
#include "profile/sass.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

enum class TargetKind { kCsv, kBundleDirectory, kNcuReport, kCudaSource, kProgram };

TargetKind KindOf(const ProfileSources& options) {
  if (!options.program_argv.empty()) return TargetKind::kProgram;
  std::string extension = fs::path(options.target).extension().string();
  if (extension == ".cu") return TargetKind::kCudaSource;
  if (extension == ".ncu-rep") return TargetKind::kNcuReport;
  std::error_code error;
  if (fs::is_directory(options.target, error)) return TargetKind::kBundleDirectory;
  return TargetKind::kCsv;
}

// Reads an optional companion file: given explicitly, its errors are errors;
// found beside the profile, its errors become notes.
template <typename Parsed, typename Parser>
Status AttachCompanion(const std::string& explicit_path, const fs::path& sibling, Parser parse,
                       std::optional<Parsed>& slot, const char* role, Profile& profile,
                       std::vector<std::string>& notes) {
  std::string path = explicit_path;
  std::error_code error;
  if (path.empty()) {
    if (sibling.empty() || !fs::is_regular_file(sibling, error)) return Status::Ok();
    path = sibling.string();
  }
  auto text = ReadWholeFile(path);
  Result<Parsed> parsed = text.ok() ? parse(*text, path) : Result<Parsed>(text.status());
  if (parsed.ok()) {
    slot = std::move(parsed).value();
    profile.inputs.push_back({path, role, explicit_path.empty() ? "found beside the profile" : "given"});
    return Status::Ok();
  }
  if (!explicit_path.empty()) return parsed.status();
  notes.push_back(fmt::format("ignored {}: {}", path, parsed.status().message()));
  return Status::Ok();
}

}  // namespace

Status AttachLaunchTrace(const std::string& explicit_path, const std::string& directory, Profile& profile,
                         std::vector<std::string>& notes) {
  std::vector<std::string> paths = explicit_path.empty()
                                       ? FindLaunchTraceFiles(directory.empty() ? "." : directory)
                                       : std::vector<std::string>{explicit_path};
  if (paths.empty()) return Status::Ok();
  Result<LaunchTrace> trace = ReadLaunchTraceFiles(paths);
  if (!trace.ok()) {
    if (!explicit_path.empty()) {
      return InvalidInput(
          fmt::format("--timeline {}: not a launch timeline kopt can read ({}); expected the "
                      "JSON lines libkopt_timeline.so writes (docs/live-collection.md)",
                      explicit_path, trace.status().message()));
    }
    notes.push_back(fmt::format("no launch timeline: {}", trace.status().message()));
    return Status::Ok();
  }
  std::string origin = explicit_path.empty() ? "found beside the profile" : "given";
  for (const std::string& path : paths) profile.inputs.push_back({path, "launch timeline", origin});
  if (!trace->complete)
    notes.push_back(
        "the launch timeline is incomplete (the program ended before libkopt_timeline.so wrote "
        "its last records)");
  if (trace->dropped_records > 0)
    notes.push_back(fmt::format("the launch timeline lost {} record(s): CUPTI's buffers were full",
                                trace->dropped_records));
  profile.trace = std::move(*trace);
  return Status::Ok();
}

namespace {

Result<Profile> LoadCsvProfile(const std::string& csv_path, const ProfileSources& options,
                               std::vector<std::string>& notes) {
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(csv_path));
  if (std::optional<CompressionFormat> compressed = RecognizeCompression(text)) {
    std::string command(compressed->decompress_command);
    command.replace(command.find("FILE"), 4, csv_path);
    return InvalidInput(
        fmt::format("{}: {}-compressed data; decompress it first ({}) and pass the CSV inside", csv_path,
                    compressed->name, command));
  }
  if (size_t mark = text.size() - StripUtf8ByteOrderMark(text).size(); mark > 0) text.erase(0, mark);
  ExportKind kind = RecognizeExport(text);
  if (std::string why = ExplainUnreadableExport(kind, csv_path); !why.empty()) return InvalidInput(why);
  std::string storage;
  QuotedCsvText quoted = BlankUnquotedLines(text, storage);
  if (quoted.foreign_lines > 0) {
    notes.push_back(
        fmt::format("{}: skipped {} line(s) that are not ncu's (a program's own output, the first "
                    "at line {})",
                    csv_path, quoted.foreign_lines, quoted.first_foreign_line));
  }
  Profile profile;
  profile.source = csv_path;
  if (kind == ExportKind::kDetailsPage) {
    KOPT_ASSIGN_OR_RETURN(profile.launches, ParseNcuDetailsCsv(quoted.text, csv_path));
    notes.push_back(csv_path + ": " + std::string(kDetailsPageLosses));
  } else {
    KOPT_ASSIGN_OR_RETURN(profile.launches, ParseNcuRawCsv(quoted.text, csv_path, &notes));
  }
  std::string().swap(storage);
  std::string().swap(text);
  profile.inputs.push_back(
      {csv_path, kind == ExportKind::kDetailsPage ? "details page" : "raw page", "given"});
  // Standard input ("-") has no directory to find companions in: only the named ones are read.
  bool from_stdin = csv_path == "-";
  fs::path directory = fs::path(csv_path).parent_path();
  auto beside = [&](const char* name) { return from_stdin ? fs::path() : directory / name; };
  KOPT_RETURN_IF_ERROR(AttachCompanion<SassListing>(options.sass_path, beside("sass.txt"), ParseSass,
                                                    profile.sass, "SASS listing", profile, notes));
  KOPT_RETURN_IF_ERROR(AttachCompanion<PtxasReport>(options.ptxas_path, beside("ptxas.txt"), ParsePtxasReport,
                                                    profile.ptxas, "ptxas report", profile, notes));
  std::optional<std::vector<SourcePage>> source_pages;
  KOPT_RETURN_IF_ERROR(AttachCompanion<std::vector<SourcePage>>(options.source_page_path,
                                                                beside("source.csv"), ParseNcuSourcePage,
                                                                source_pages, "source page", profile, notes));
  if (source_pages) profile.source_pages = std::move(*source_pages);
  if (!from_stdin || !options.timeline_path.empty())
    KOPT_RETURN_IF_ERROR(AttachLaunchTrace(options.timeline_path, directory.string(), profile, notes));
  return profile;
}

CollectionOptions CollectionOptionsFor(const ProfileSources& options, const std::string& stem) {
  CollectionOptions collection;
  collection.kernel_regex = options.kernel_regex;
  collection.launch_skip = options.launch_skip;
  collection.launch_count = options.launch_count;
  collection.section_set = options.section_set;
  collection.progress = options.progress;
  collection.phases = options.phases;
  collection.metrics = options.metrics;
  collection.sections = options.sections;
  collection.timeline_library = options.timeline_library;
  collection.launcher = options.launcher;
  collection.launcher_warmup = options.launcher_warmup;
  collection.launches_per_configuration = options.launches_per_configuration;
  collection.write_report = options.write_report;
  collection.parallel_commands = true;  // the system runner is thread-safe
  collection.work_directory =
      options.work_directory.empty() ? "kopt-profile-" + stem : options.work_directory;
  return collection;
}

Status MakeWorkDirectory(const std::string& directory) {
  std::error_code error;
  fs::create_directories(directory, error);
  if (error)
    return InvalidInput(
        fmt::format("{}: cannot create the profile directory: {}", directory, error.message()));
  return Status::Ok();
}

// Runs `collect` into the work directory, made first. A failed collection
// leaves no trace: a directory this call made is removed again while it is
// still empty (a missing ncu or GPU fails before anything is written).
Result<Profile> CollectIntoWorkDirectory(const std::string& directory,
                                         const std::function<Result<Profile>()>& collect) {
  std::error_code error;
  bool existed = fs::exists(directory, error);
  KOPT_RETURN_IF_ERROR(MakeWorkDirectory(directory));
  Result<Profile> collected = collect();
  if (!collected.ok() && !existed && fs::is_empty(directory, error)) fs::remove(directory, error);
  return collected;
}

}  // namespace

Result<Profile> LoadProfile(const ProfileSources& options, CommandRunner& runner,
                            std::vector<std::string>& notes) {
  switch (KindOf(options)) {
    case TargetKind::kCsv: return LoadCsvProfile(options.target, options, notes);
    case TargetKind::kBundleDirectory: {
      fs::path csv = fs::path(options.target) / "raw.csv";
      std::error_code error;
      if (!fs::is_regular_file(csv, error)) {
        return NotFound(
            fmt::format("{}: a directory without raw.csv; expected a profile bundle (raw.csv, and "
                        "optionally sass.txt and ptxas.txt) or a file",
                        options.target));
      }
      return LoadCsvProfile(csv.string(), options, notes);
    }
    case TargetKind::kNcuReport: {
      std::error_code error;
      if (!fs::exists(options.target, error))
        return NotFound(fmt::format("{}: no such file", options.target));
      CollectionOptions collection = CollectionOptionsFor(options, fs::path(options.target).stem().string());
      return ImportNcuReport(options.target, collection, runner);
    }
    case TargetKind::kCudaSource: {
      std::error_code error;
      if (!fs::is_regular_file(options.target, error))
        return NotFound(fmt::format("{}: no such file", options.target));
      CollectionOptions collection = CollectionOptionsFor(options, fs::path(options.target).stem().string());
      return CollectIntoWorkDirectory(collection.work_directory, [&] {
        return CollectFromCudaSource(options.target, collection, runner, notes);
      });
    }
    case TargetKind::kProgram: {
      CollectionOptions collection =
          CollectionOptionsFor(options, fs::path(options.program_argv[0]).filename().string());
      return CollectIntoWorkDirectory(collection.work_directory, [&] {
        return CollectFromProgram(options.program_argv, collection, runner, notes);
      });
    }
  }
  return Internal("unhandled target kind");
}

namespace {

std::string ListKernels(const Profile& profile) {
  std::vector<std::string> names;
  for (const KernelLaunch& launch : profile.launches) {
    std::string name = launch.FunctionName();
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  std::string list;
  for (size_t i = 0; i < names.size() && i < 20; ++i) list += (i ? ", " : "") + names[i];
  if (names.size() > 20) list += fmt::format(", … ({} in all)", names.size());
  return list;
}

}  // namespace

Status SelectLaunches(const ProfileSources& options, Profile& profile) {
  bool selects =
      !options.kernel_regex.empty() || options.launch_skip > 0 ||
      (options.launch_count > 0 && options.launch_count < static_cast<long long>(profile.launches.size()));
  if (!selects) return Status::Ok();  // every launch kept: all_launches stays empty (= launches), no copy
  if (profile.all_launches.empty()) profile.all_launches = profile.launches;
  std::vector<KernelLaunch> selected;
  if (!options.kernel_regex.empty()) {
    // Smart case: a pattern without upper-case letters matches either case ("softmax" finds
    // cunn_SoftMaxForward); one with an upper-case letter matches exactly.
    bool has_upper = std::any_of(options.kernel_regex.begin(), options.kernel_regex.end(),
                                 [](char c) { return c >= 'A' && c <= 'Z'; });
    std::regex pattern;
    try {
      pattern = std::regex(options.kernel_regex,
                           has_upper ? std::regex::ECMAScript : std::regex::ECMAScript | std::regex::icase);
    } catch (const std::regex_error& error) {
      return InvalidInput(fmt::format("--kernel \"{}\": not a valid regular expression ({})",
                                      options.kernel_regex, error.what()));
    }
    for (KernelLaunch& launch : profile.launches) {
      if (std::regex_search(launch.kernel_name, pattern)) selected.push_back(std::move(launch));
    }
    if (selected.empty()) {
      std::string hint;
      if (has_upper) {
        std::regex either_case(options.kernel_regex, std::regex::ECMAScript | std::regex::icase);
        for (const KernelLaunch& launch : profile.launches) {
          if (std::regex_search(launch.kernel_name, either_case)) {
            hint = fmt::format(
                " (it would match {} ignoring case: the pattern has upper-case letters, so case "
                "counts; write it in lower case to match either)",
                launch.FunctionName());
            break;
          }
        }
      }
      return NotFound(fmt::format("--kernel \"{}\" matches no kernel in {}{}; its kernels are: {}",
                                  options.kernel_regex, profile.source, hint, ListKernels(profile)));
    }
  } else {
    selected = std::move(profile.launches);
  }
  long long skip = std::min<long long>(options.launch_skip, selected.size());
  if (options.launch_skip > 0 && skip == static_cast<long long>(selected.size())) {
    return NotFound(fmt::format("--launch-skip {} skips all {} in {}", options.launch_skip,
                                CountText(selected.size(), "matching launch", "matching launches"),
                                profile.source));
  }
  selected.erase(selected.begin(), selected.begin() + skip);
  if (options.launch_count > 0 && static_cast<long long>(selected.size()) > options.launch_count) {
    selected.resize(options.launch_count);
  }
  profile.launches = std::move(selected);
  return Status::Ok();
}

bool IsLiveCollection(const ProfileSources& sources) {
  TargetKind kind = KindOf(sources);
  return kind == TargetKind::kCudaSource || kind == TargetKind::kProgram;
}

std::vector<std::string> InputPathsOf(const std::vector<const Profile*>& profiles) {
  std::vector<std::string> paths;
  for (const Profile* profile : profiles) {
    for (const ProfileInput& input : profile->inputs) paths.push_back(input.path);
  }
  return paths;
}

}  // namespace kopt
