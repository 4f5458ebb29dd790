#include "app/explain.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <optional>
#include <regex>

#include "analysis/diagnose.h"
#include "app/explain_llm.h"
#include "app/file_io.h"
#include "app/tool_config.h"
#include "core/text.h"
#include "profile/ncu_collector.h"
#include "profile/ncu_csv.h"
#include "report/renderer.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

enum class TargetKind { kCsv, kBundleDirectory, kNcuReport, kCudaSource, kProgram };

TargetKind KindOf(const ExplainOptions& options) {
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
                       std::optional<Parsed>& slot, std::vector<std::string>& notes) {
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
    return Status::Ok();
  }
  if (!explicit_path.empty()) return parsed.status();
  notes.push_back(fmt::format("ignored {}: {}", path, parsed.status().message()));
  return Status::Ok();
}

Result<Profile> LoadCsvProfile(const std::string& csv_path, const ExplainOptions& options,
                               std::vector<std::string>& notes) {
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(csv_path));
  KOPT_ASSIGN_OR_RETURN(std::vector<KernelLaunch> launches, ParseNcuRawCsv(text, csv_path));
  Profile profile;
  profile.source = csv_path;
  profile.launches = std::move(launches);
  fs::path directory = fs::path(csv_path).parent_path();
  KOPT_RETURN_IF_ERROR(AttachCompanion<SassListing>(options.sass_path, directory / "sass.txt", ParseSass,
                                                    profile.sass, notes));
  KOPT_RETURN_IF_ERROR(AttachCompanion<PtxasReport>(options.ptxas_path, directory / "ptxas.txt",
                                                    ParsePtxasReport, profile.ptxas, notes));
  std::optional<std::vector<SourcePage>> source_pages;
  KOPT_RETURN_IF_ERROR(AttachCompanion<std::vector<SourcePage>>(
      options.source_page_path, directory / "source.csv", ParseNcuSourcePage, source_pages, notes));
  if (source_pages) profile.source_pages = std::move(*source_pages);
  return profile;
}

CollectionOptions CollectionOptionsFor(const ExplainOptions& options, const std::string& stem) {
  CollectionOptions collection;
  collection.kernel_regex = options.kernel_regex;
  collection.launch_skip = options.launch_skip;
  collection.launch_count = options.launch_count;
  collection.section_set = options.section_set;
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

}  // namespace

Result<Profile> LoadProfile(const ExplainOptions& options, CommandRunner& runner,
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
      KOPT_RETURN_IF_ERROR(MakeWorkDirectory(collection.work_directory));
      return CollectFromCudaSource(options.target, collection, runner, notes);
    }
    case TargetKind::kProgram: {
      CollectionOptions collection =
          CollectionOptionsFor(options, fs::path(options.program_argv[0]).filename().string());
      KOPT_RETURN_IF_ERROR(MakeWorkDirectory(collection.work_directory));
      return CollectFromProgram(options.program_argv, collection, runner, notes);
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

Status SelectLaunches(const ExplainOptions& options, Profile& profile) {
  if (profile.all_launches.empty()) profile.all_launches = profile.launches;
  std::vector<KernelLaunch> selected;
  if (!options.kernel_regex.empty()) {
    std::regex pattern;
    try {
      pattern = std::regex(options.kernel_regex, std::regex::ECMAScript);
    } catch (const std::regex_error& error) {
      return InvalidInput(fmt::format("--kernel \"{}\": not a valid regular expression ({})",
                                      options.kernel_regex, error.what()));
    }
    for (KernelLaunch& launch : profile.launches) {
      if (std::regex_search(launch.kernel_name, pattern)) selected.push_back(std::move(launch));
    }
    if (selected.empty()) {
      return NotFound(fmt::format("--kernel \"{}\" matches no kernel in {}; its kernels are: {}",
                                  options.kernel_regex, profile.source, ListKernels(profile)));
    }
  } else {
    selected = std::move(profile.launches);
  }
  long long skip = std::min<long long>(options.launch_skip, selected.size());
  if (options.launch_skip > 0 && skip == static_cast<long long>(selected.size())) {
    return NotFound(fmt::format("--launch-skip {} skips all {} matching launch(es) in {}",
                                options.launch_skip, selected.size(), profile.source));
  }
  selected.erase(selected.begin(), selected.begin() + skip);
  if (options.launch_count > 0 && static_cast<long long>(selected.size()) > options.launch_count) {
    selected.resize(options.launch_count);
  }
  profile.launches = std::move(selected);
  return Status::Ok();
}

Status RunExplain(const ExplainOptions& options, CommandRunner& runner, std::ostream& out) {
  return RunExplain(options, runner, out, std::cerr);
}

Status RunExplain(const ExplainOptions& options, CommandRunner& runner, std::ostream& out,
                  std::ostream& log) {
  KOPT_ASSIGN_OR_RETURN(ReportFormat format, ParseReportFormat(options.format, kExplainFormats));
  const GpuSpec* gpu = nullptr;
  if (!options.gpu.empty()) {
    gpu = FindGpu(options.gpu);
    if (!gpu)
      return InvalidInput(
          fmt::format("--gpu \"{}\": not in the GPU table (kopt gpus lists it)", options.gpu));
  }
  DiagnoseOptions diagnose_options;  // the config is read first: a bad one fails before a long collection
  diagnose_options.gpu = gpu;
  if (!options.config_path.empty()) {
    KOPT_ASSIGN_OR_RETURN(diagnose_options.tools, LoadToolConfig(options.config_path));
  }
  std::vector<std::string> notes;
  KOPT_ASSIGN_OR_RETURN(Profile profile, LoadProfile(options, runner, notes));
  bool live = KindOf(options) == TargetKind::kCudaSource || KindOf(options) == TargetKind::kProgram;
  ExplainOptions selection = options;
  if (live) selection.launch_skip = selection.launch_count = 0;  // ncu applied them already
  KOPT_RETURN_IF_ERROR(SelectLaunches(selection, profile));

  // The LLM side (--llm, --hypotheses) never fails the command.
  StreamLogSink log_sink(log);
  std::optional<LlmSession> session;
  if (options.llm) session = LlmSession::Open(options, options.verbose ? &log_sink : nullptr);
  KernelSource source;
  std::optional<agents::HypothesisSet> predictions;  // made before the diagnosis: they see no metrics
  if (options.hypotheses || options.llm) {
    source = LoadKernelSource(options, notes);
    predictions = PredictHypothesesFor(profile, source, session ? &*session : nullptr);
  }

  Diagnosis diagnosis = Diagnose(profile, diagnose_options);
  diagnosis.notes.insert(diagnosis.notes.end(), notes.begin(), notes.end());
  if (predictions) AddCheckedHypotheses(*predictions, diagnosis);
  if (session) AddNarrative(profile, source, *session, diagnosis);

  RenderOptions render_options;
  render_options.color = options.color && options.output_path.empty();
  render_options.verbose = options.verbose;
  std::string rendered = MakeRenderer(format, render_options)->Render(diagnosis);
  if (options.output_path.empty()) {
    out << rendered;
    return Status::Ok();
  }
  return WriteFileAtomically(options.output_path, rendered);
}

}  // namespace kopt
