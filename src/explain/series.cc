#include "explain/series.h"

#include <fmt/format.h>
#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "analysis/diagnose.h"
#include "analysis/version_comparison.h"
#include "core/csv_reader.h"
#include "core/file_io.h"
#include "core/parallel_chunks.h"
#include "core/text.h"
#include "explain/program_set.h"
#include "profile/profile_loader.h"
#include "report/comparison_renderer.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

bool HasGlob(const std::string& text) {
  return text.find_first_of("*?[") != std::string::npos;
}

// Companion files of a bundle or export that are not profiles.
bool IsCompanion(const fs::path& path) {
  const std::string name = path.filename().string();
  return name == "sweep.csv" || name == "source.csv" || name == "details.csv" || name == "session.csv";
}

// The name a point's parameters are read from: a bundle's directory name, or
// the file's name with its parent directory's.
std::string ParameterSource(const std::string& path) {
  fs::path p(path);
  if (IsProfileBundle(p)) return p.filename().string();
  if (p.filename() == "raw.csv") return p.parent_path().filename().string();
  return (p.parent_path().filename() / p.filename()).string();
}

std::optional<std::map<std::string, double>> SidecarRow(
    const std::map<std::string, std::map<std::string, double>>& sidecar, const std::string& path) {
  fs::path p(path);
  for (const std::string& key : {path, p.filename().string(), p.parent_path().filename().string()}) {
    auto found = sidecar.find(key);
    if (found != sidecar.end()) return found->second;
  }
  return std::nullopt;
}

// The point of `launches` (indices into profile.launches) of one profile.
SweepPointInput PointOf(const std::string& label, const Profile& profile, const Diagnosis& diagnosis,
                        std::map<std::string, double> parameters, const std::string& parameter) {
  SweepPointInput point;
  point.label = label;
  size_t longest = 0;
  for (size_t i = 0; i < diagnosis.kernels.size(); ++i) {
    point.duration_ns += diagnosis.kernels[i].roofline.duration_ns;
    if (diagnosis.kernels[i].roofline.duration_ns > diagnosis.kernels[longest].roofline.duration_ns)
      longest = i;
  }
  if (!diagnosis.kernels.empty()) {
    point.kernel = diagnosis.kernels[longest];
    FillOccupancy(profile.launches[longest], point);
    if (!parameters.count(parameter)) {
      if (auto value = LaunchParameter(profile.launches[longest], parameter)) parameters[parameter] = *value;
    }
  }
  point.parameters = std::move(parameters);
  return point;
}

bool IsLive(const std::string& path) {
  return EndsWith(path, ".cu") || EndsWith(path, ".ncu-rep");
}

// Loads every path as `profile` says; in parallel when none needs a child process.
Result<std::vector<LoadedSweepProfile>> LoadAll(const std::vector<std::string>& paths,
                                                const ProfileRequest& profile, CommandRunner& runner,
                                                std::vector<std::string>& notes) {
  std::vector<std::optional<Profile>> profiles(paths.size());
  std::vector<Status> errors(paths.size(), Status::Ok());
  std::vector<std::vector<std::string>> point_notes(paths.size());
  auto load = [&](size_t i) {
    Result<Profile> loaded = LoadSelectedProfile(RequestForTarget(profile, paths[i]), runner, point_notes[i]);
    if (loaded.ok())
      profiles[i] = std::move(*loaded);
    else
      errors[i] = loaded.status();
  };
  bool live = std::any_of(paths.begin(), paths.end(), IsLive);
  ForEachChunk(paths.size(), load, live ? 1 : 0);
  std::vector<LoadedSweepProfile> loaded;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!errors[i].ok()) return errors[i];
    for (std::string& note : point_notes[i]) notes.push_back(paths[i] + ": " + note);
    loaded.push_back(LoadedSweepProfile{paths[i], std::move(*profiles[i])});
  }
  return loaded;
}

std::string SidecarPath(const std::string& target, const SeriesRequest& series) {
  if (!series.sweep_values_path.empty()) return series.sweep_values_path;
  std::error_code error;
  if (fs::is_directory(target, error) && fs::exists(fs::path(target) / "sweep.csv", error))
    return (fs::path(target) / "sweep.csv").string();
  fs::path beside = fs::path(target).parent_path() / "sweep.csv";
  if (!fs::is_directory(target, error) && fs::exists(beside, error)) return beside.string();
  return "";
}

// Every target's profile, loaded; the notes prefixed with their paths.
// `check_inputs`, when set, sees every file read (the profiles' files, the
// expanded targets and the sweep's sidecar) before any analysis.
Result<std::vector<LoadedSweepProfile>> LoadSeries(const ExplainSettings& settings,
                                                   const SeriesRequest& series, CommandRunner& runner,
                                                   std::vector<std::string>& notes,
                                                   const InputCheck& check_inputs) {
  std::vector<std::string> targets = {settings.profile.target};
  targets.insert(targets.end(), series.more_targets.begin(), series.more_targets.end());
  KOPT_ASSIGN_OR_RETURN(std::vector<std::string> paths, ExpandProfileTargets(targets));
  KOPT_ASSIGN_OR_RETURN(std::vector<LoadedSweepProfile> loaded,
                        LoadAll(paths, settings.profile, runner, notes));
  if (check_inputs) {
    std::vector<const Profile*> read;
    for (const LoadedSweepProfile& profile : loaded) read.push_back(&profile.profile);
    std::vector<std::string> inputs = InputPathsOf(read);
    inputs.insert(inputs.end(), paths.begin(), paths.end());
    inputs.push_back(SidecarPath(settings.profile.target, series));
    KOPT_RETURN_IF_ERROR(check_inputs(inputs));
  }
  return loaded;
}

std::optional<LlmSession> OpenSession(const LlmSettings& settings, llm::LogSink* llm_log) {
  if (!settings.narrative) return std::nullopt;
  return LlmSession::Open(settings, settings.verbose ? llm_log : nullptr);
}

}  // namespace

bool IsSeriesRequest(const ProfileRequest& profile, const SeriesRequest& series) {
  if (!series.sweep.empty() || !series.more_targets.empty()) return true;
  if (profile.target.empty()) return false;
  if (HasGlob(profile.target) && !fs::exists(profile.target)) return true;
  std::error_code error;
  return fs::is_directory(profile.target, error) && !IsProfileBundle(profile.target);
}

Result<std::vector<std::string>> ExpandProfileTargets(const std::vector<std::string>& targets) {
  std::vector<std::string> paths;
  for (const std::string& target : targets) {
    std::vector<std::string> found;
    std::error_code error;
    if (HasGlob(target) && !fs::exists(target, error)) {
      glob_t matches{};
      if (glob(target.c_str(), 0, nullptr, &matches) == 0) {
        for (size_t i = 0; i < matches.gl_pathc; ++i) {
          fs::path path(matches.gl_pathv[i]);
          if (IsProfileBundle(path) || (fs::is_regular_file(path, error) && !IsCompanion(path)))
            found.push_back(path.string());
        }
      }
      globfree(&matches);
    } else if (fs::is_directory(target, error) && !IsProfileBundle(target)) {
      fs::directory_iterator entries(target, error);
      if (error) return InvalidInput(fmt::format("{}: cannot be read: {}", target, error.message()));
      for (const auto& entry : entries) {
        const fs::path& path = entry.path();
        if (IsProfileBundle(path) ||
            (entry.is_regular_file() && path.extension() == ".csv" && !IsCompanion(path)) ||
            (entry.is_regular_file() && path.extension() == ".ncu-rep"))
          found.push_back(path.string());
      }
    } else if (fs::exists(target, error)) {
      found.push_back(target);
    } else {
      return NotFound(fmt::format("{}: no such file or directory", target));
    }
    if (found.empty()) {
      return NotFound(
          fmt::format("{}: names no profile (expected *.csv raw-page exports, bundle directories with "
                      "raw.csv, or .ncu-rep "
                      "reports)",
                      target));
    }
    std::sort(found.begin(), found.end());
    paths.insert(paths.end(), found.begin(), found.end());
  }
  return paths;
}

Result<std::map<std::string, std::map<std::string, double>>> ReadSweepSidecar(const std::string& path) {
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  CsvReader reader(text, path);
  CsvRecord header;
  KOPT_ASSIGN_OR_RETURN(bool has_header, reader.Next(header));
  if (!has_header) return InvalidInput(fmt::format("{}: empty; expected a header with a file column", path));
  int key = -1;
  for (size_t c = 0; c < header.fields.size(); ++c) {
    std::string name(TrimWhitespace(header.fields[c]));
    if (name == "file" || name == "profile" || name == "launch") key = static_cast<int>(c);
  }
  if (key < 0) {
    return InvalidInput(
        fmt::format("{}:1: no key column; expected a header naming \"file\" (or \"profile\", \"launch\") and "
                    "the parameters",
                    path));
  }
  std::map<std::string, std::map<std::string, double>> rows;
  CsvRecord record;
  while (true) {
    KOPT_ASSIGN_OR_RETURN(bool more, reader.Next(record));
    if (!more) break;
    if (record.IsBlank()) continue;
    if (static_cast<int>(record.fields.size()) <= key)
      return InvalidInput(fmt::format("{}:{}: fewer columns than the header", path, record.line));
    std::map<std::string, double> values;
    for (size_t c = 0; c < record.fields.size() && c < header.fields.size(); ++c) {
      if (static_cast<int>(c) == key) continue;
      std::string_view cell = TrimWhitespace(record.fields[c]);
      if (cell.empty()) continue;
      auto number = ParseNumber(cell);
      if (!number) {
        return InvalidInput(fmt::format("{}:{}: column \"{}\": \"{}\" is not a number", path, record.line,
                                        std::string(TrimWhitespace(header.fields[c])), std::string(cell)));
      }
      values[std::string(TrimWhitespace(header.fields[c]))] = *number;
    }
    rows[std::string(TrimWhitespace(record.fields[key]))] = std::move(values);
  }
  return rows;
}

std::vector<SweepPointInput> SweepPointsOf(
    const std::vector<LoadedSweepProfile>& profiles,
    const std::map<std::string, std::map<std::string, double>>& sidecar, const std::string& parameter,
    const DiagnoseOptions& diagnose) {
  std::vector<SweepPointInput> points;
  if (profiles.size() == 1 && profiles.front().profile.launches.size() > 1) {
    // A multi-kernel export: one point per launch, each diagnosed alone (the
    // other points' launches are no timeline of this one).
    const Profile& profile = profiles.front().profile;
    points.resize(profile.launches.size());
    ForEachChunk(profile.launches.size(), [&](size_t i) {
      const KernelLaunch& launch = profile.launches[i];
      Profile one;
      one.source = profile.source;
      one.launches = {launch};
      std::map<std::string, double> parameters;
      auto row = sidecar.find(std::to_string(launch.launch_id));
      if (row != sidecar.end()) parameters = row->second;
      points[i] = PointOf(fmt::format("launch {}", launch.launch_id), one, Diagnose(one, diagnose),
                          parameters, parameter);
    });
    return points;
  }
  points.resize(profiles.size());
  ForEachChunk(profiles.size(), [&](size_t i) {
    const LoadedSweepProfile& loaded = profiles[i];
    std::map<std::string, double> parameters = ParseParameterTokens(ParameterSource(loaded.path));
    if (auto row = SidecarRow(sidecar, loaded.path)) {
      for (const auto& [name, value] : *row) parameters[name] = value;
    }
    Diagnosis diagnosis = Diagnose(loaded.profile, diagnose);
    points[i] =
        PointOf(ParameterSource(loaded.path), loaded.profile, diagnosis, std::move(parameters), parameter);
  });
  return points;
}

Result<SweepAnalysis> ExplainSweep(const ExplainSettings& settings, const SeriesRequest& series,
                                   CommandRunner& runner, llm::LogSink* llm_log,
                                   const InputCheck& check_inputs) {
  KOPT_ASSIGN_OR_RETURN(DiagnoseOptions diagnose, ResolveDiagnoseOptions(settings.gpu, settings.config_path));
  std::vector<std::string> notes;
  KOPT_ASSIGN_OR_RETURN(std::vector<LoadedSweepProfile> loaded,
                        LoadSeries(settings, series, runner, notes, check_inputs));
  std::optional<LlmSession> session = OpenSession(settings.llm, llm_log);
  std::map<std::string, std::map<std::string, double>> sidecar;
  if (std::string path = SidecarPath(settings.profile.target, series); !path.empty()) {
    KOPT_ASSIGN_OR_RETURN(sidecar, ReadSweepSidecar(path));
  }
  KOPT_ASSIGN_OR_RETURN(SweepAnalysis sweep,
                        AnalyzeSweep(SweepPointsOf(loaded, sidecar, series.sweep, diagnose), series.sweep));
  sweep.notes.insert(sweep.notes.end(), notes.begin(), notes.end());
  if (session)
    sweep.narrative = NarrateDigest(*session, "sweep", RenderSweep(sweep, ReportFormat::kMarkdown));
  return sweep;
}

Result<VersionSeries> ExplainVersions(const ExplainSettings& settings, const SeriesRequest& series,
                                      CommandRunner& runner, llm::LogSink* llm_log,
                                      const InputCheck& check_inputs) {
  KOPT_ASSIGN_OR_RETURN(DiagnoseOptions diagnose, ResolveDiagnoseOptions(settings.gpu, settings.config_path));
  std::vector<std::string> notes;
  KOPT_ASSIGN_OR_RETURN(std::vector<LoadedSweepProfile> loaded,
                        LoadSeries(settings, series, runner, notes, check_inputs));
  std::optional<LlmSession> session = OpenSession(settings.llm, llm_log);
  if (loaded.size() < 2) {
    return InvalidInput(
        fmt::format("{}: one profile; give two or more versions (kopt explain v1.csv v2.csv …) or name the "
                    "swept parameter "
                    "with --sweep NAME",
                    settings.profile.target));
  }
  std::vector<VersionInput> versions;
  for (LoadedSweepProfile& profile : loaded)
    versions.push_back(VersionInput{profile.path, std::move(profile.profile)});
  ComparisonOptions comparison_options;
  comparison_options.diagnose = diagnose;
  KOPT_ASSIGN_OR_RETURN(VersionSeries versions_compared, CompareVersions(versions, comparison_options));
  if (!notes.empty() && !versions_compared.steps.empty())
    versions_compared.steps.front().notes.insert(versions_compared.steps.front().notes.end(), notes.begin(),
                                                 notes.end());
  if (session)
    versions_compared.narrative =
        NarrateDigest(*session, "diff", RenderVersions(versions_compared, ReportFormat::kMarkdown));
  return versions_compared;
}

}  // namespace kopt
