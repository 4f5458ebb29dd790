#include "suite/suite_state.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "core/text.h"
#include "store/workspace.h"

namespace kopt::suite {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kManifestSchema = "kopt.suite";
constexpr const char* kJournalSchema = "kopt.suite.journal";

std::string ManifestPath(const std::string& directory) {
  return (fs::path(directory) / "suite.json").string();
}
std::string JournalPath(const std::string& directory) {
  return (fs::path(directory) / "suite.journal").string();
}

json ManifestToJson(const SuiteManifest& manifest) {
  json problems = json::array();
  for (const SuiteProblem& problem : manifest.problems) {
    problems.push_back(
        {{"key", problem.key}, {"task_directory", problem.task_directory}, {"level", problem.level}});
  }
  return {{"schema", kManifestSchema},
          {"schema_version", kSuiteSchemaVersion},
          {"name", manifest.name},
          {"created", manifest.created},
          {"gpus_per_problem", manifest.gpus_per_problem},
          {"optimize_arguments", manifest.optimize_arguments},
          {"problems", problems}};
}

Result<SuiteManifest> ManifestFromJson(const json& document, const std::string& path) {
  auto bad = [&](const std::string& what) { return InvalidInput(fmt::format("{}: {}", path, what)); };
  if (!document.is_object() || !document.contains("schema") || document["schema"] != kManifestSchema)
    return bad(fmt::format("not a {} manifest", kManifestSchema));
  if (!document.contains("schema_version") || document["schema_version"] != kSuiteSchemaVersion)
    return bad(fmt::format("this kopt reads schema_version {}", kSuiteSchemaVersion));
  SuiteManifest manifest;
  try {
    manifest.name = document.at("name").get<std::string>();
    manifest.created = document.value("created", "");
    manifest.gpus_per_problem = document.at("gpus_per_problem").get<int>();
    manifest.optimize_arguments = document.at("optimize_arguments").get<std::vector<std::string>>();
    for (const json& problem : document.at("problems")) {
      manifest.problems.push_back(SuiteProblem{problem.at("key").get<std::string>(),
                                               problem.at("task_directory").get<std::string>(),
                                               problem.value("level", "-")});
    }
  } catch (const json::exception& error) {
    return bad(std::string("malformed: ") + error.what());
  }
  return manifest;
}

json WorkStatusToJson(const WorkStatus& status) {
  json line = {{"key", status.key},
               {"state", WorkStateName(status.state)},
               {"detail", status.detail},
               {"placement", status.placement}};
  if (status.exit_code) line["exit_code"] = *status.exit_code;
  return line;
}

Result<WorkState> ParseWorkState(std::string_view name) {
  for (WorkState state : {WorkState::kQueued, WorkState::kRunning, WorkState::kSucceeded, WorkState::kFailed,
                          WorkState::kCancelled}) {
    if (WorkStateName(state) == name) return state;
  }
  return InvalidInput(fmt::format("unknown work state \"{}\"", name));
}

Status ApplyJournalLine(SuiteState& state, const json& line) {
  std::string event = line.at("event").get<std::string>();
  std::string key = line.at("key").get<std::string>();
  ProblemJournal& problem = state.journal[key];
  if (event == "started") {
    ++problem.attempts;
    problem.ended.reset();
    return Status::Ok();
  }
  if (event != "ended") return InvalidInput(fmt::format("unknown event \"{}\"", event));
  if (problem.attempts == 0) return InvalidInput(fmt::format("problem {} ended before it started", key));
  WorkStatus status;
  status.key = key;
  KOPT_ASSIGN_OR_RETURN(status.state, ParseWorkState(line.at("state").get<std::string>()));
  status.detail = line.value("detail", "");
  status.placement = line.value("placement", "");
  if (line.contains("exit_code")) status.exit_code = line["exit_code"].get<int>();
  problem.ended = status;
  if (line.contains("run")) problem.run_id = line["run"].get<int64_t>();
  return Status::Ok();
}

Status ReadJournal(SuiteState& state) {
  std::string path = JournalPath(state.directory);
  std::error_code error;
  if (!fs::exists(path, error)) return Status::Ok();
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  return ApplySuiteJournal(text, path, state);
}

Status CutTornTail(int fd, const std::string& path) {
  off_t size = ::lseek(fd, 0, SEEK_END);
  off_t end = size;
  char last = '\n';
  while (end > 0 && ::pread(fd, &last, 1, end - 1) == 1 && last != '\n') --end;
  if (end == size) return Status::Ok();
  if (::ftruncate(fd, end) != 0)
    return Unavailable(fmt::format("{}: its torn last line cannot be cut: {}", path, std::strerror(errno)));
  return Status::Ok();
}

Status AppendJournal(const SuiteState& state, json line) {
  line["schema"] = kJournalSchema;
  line["time"] = CurrentTimeUtc();
  std::string text = line.dump() + "\n";
  std::string path = JournalPath(state.directory);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Unavailable(fmt::format("{}: cannot be written: {}", path, std::strerror(errno)));
  // The torn tail of an earlier kill (a line without its '\n') is cut off
  // first: the event it began did not happen, and a line after it would make
  // it a malformed line in the middle.
  KOPT_RETURN_IF_ERROR(CutTornTail(fd, path));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t wrote = ::write(fd, text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      ::close(fd);
      return Unavailable(fmt::format("{}: cannot be appended to: {}", path, std::strerror(errno)));
    }
    done += static_cast<size_t>(wrote);
  }
  ::fsync(fd);
  ::close(fd);
  return Status::Ok();
}

std::string DescribeDifference(const SuiteManifest& existing, const SuiteManifest& asked) {
  if (existing.problems != asked.problems) return "other problems";
  if (existing.optimize_arguments != asked.optimize_arguments) return "other optimize arguments";
  return "another number of GPUs per problem";
}

}  // namespace

Status ApplySuiteJournal(std::string_view text, const std::string& path, SuiteState& state) {
  std::vector<std::string_view> lines = SplitLines(text);
  const bool torn_tail = !text.empty() && text.back() != '\n';
  for (size_t index = 0; index < lines.size(); ++index) {
    if (TrimWhitespace(lines[index]).empty()) continue;
    json line = json::parse(lines[index], nullptr, false);
    Status applied = line.is_object() && line.contains("schema") && line["schema"] == kJournalSchema
                         ? Status::Ok()
                         : InvalidInput("not a " + std::string(kJournalSchema) + " line");
    if (applied.ok()) {
      try {
        applied = ApplyJournalLine(state, line);
      } catch (const json::exception& exception) {
        applied = InvalidInput(std::string("malformed: ") + exception.what());
      }
    }
    if (applied.ok()) continue;
    if (torn_tail && index + 1 == lines.size()) break;  // a kill mid-write: the event did not happen
    return applied.WithContext(fmt::format("{}:{}", path, index + 1));
  }
  return Status::Ok();
}

Result<SuiteManifest> ParseSuiteManifest(std::string_view text, const std::string& path) {
  json document = json::parse(text, nullptr, false);
  if (document.is_discarded()) return InvalidInput(path + ": not JSON");
  return ManifestFromJson(document, path);
}

bool SuiteManifest::SameWork(const SuiteManifest& other) const {
  return problems == other.problems && optimize_arguments == other.optimize_arguments &&
         gpus_per_problem == other.gpus_per_problem;
}

std::string SuiteDirectory(const std::string& workspace, const std::string& name) {
  return (fs::path(workspace) / "suites" / name).string();
}

std::string ProblemWorkspace(const std::string& suite_directory, const std::string& key) {
  return (fs::path(suite_directory) / "problems" / key / "workspace").string();
}

std::string ProblemLogPath(const std::string& suite_directory, const std::string& key) {
  return (fs::path(suite_directory) / "problems" / key / "optimize.log").string();
}

Result<SuiteState> ReadSuite(const std::string& suite_directory) {
  std::string path = ManifestPath(suite_directory);
  std::error_code error;
  if (!fs::exists(path, error))
    return NotFound(fmt::format("{}: no suite here (start one with kopt suite TASKS...)", suite_directory));
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  SuiteState state;
  state.directory = suite_directory;
  KOPT_ASSIGN_OR_RETURN(state.manifest, ParseSuiteManifest(text, path));
  KOPT_RETURN_IF_ERROR(ReadJournal(state));
  return state;
}

Result<SuiteState> OpenSuite(const std::string& suite_directory, const SuiteManifest& manifest) {
  std::error_code error;
  if (fs::exists(ManifestPath(suite_directory), error)) {
    KOPT_ASSIGN_OR_RETURN(SuiteState state, ReadSuite(suite_directory));
    if (!manifest.problems.empty() && !state.manifest.SameWork(manifest)) {
      return InvalidInput(fmt::format(
          "{}: suite \"{}\" exists and asked {}; resume it with the same tasks and options (or none), or "
          "start another with --name",
          suite_directory, state.manifest.name, DescribeDifference(state.manifest, manifest)));
    }
    return state;
  }
  if (manifest.problems.empty())
    return NotFound(fmt::format("{}: no suite to resume (give TASKS to start one)", suite_directory));
  for (const SuiteProblem& problem : manifest.problems) {
    fs::create_directories(ProblemWorkspace(suite_directory, problem.key), error);
    if (error)
      return Unavailable(fmt::format("{}: cannot be created: {}",
                                     ProblemWorkspace(suite_directory, problem.key), error.message()));
  }
  SuiteState state;
  state.directory = suite_directory;
  state.manifest = manifest;
  if (state.manifest.created.empty()) state.manifest.created = CurrentTimeUtc();
  KOPT_RETURN_IF_ERROR(
      WriteFileAtomically(ManifestPath(suite_directory), ManifestToJson(state.manifest).dump(2)));
  return state;
}

Status JournalStarted(SuiteState& state, const WorkStatus& status) {
  json line = WorkStatusToJson(status);
  line["event"] = "started";
  KOPT_RETURN_IF_ERROR(AppendJournal(state, line));
  KOPT_RETURN_IF_ERROR(ApplyJournalLine(state, line));
  return Status::Ok();
}

Status JournalEnded(SuiteState& state, const WorkStatus& status, std::optional<int64_t> run_id) {
  json line = WorkStatusToJson(status);
  line["event"] = "ended";
  if (run_id) line["run"] = *run_id;
  KOPT_RETURN_IF_ERROR(AppendJournal(state, line));
  KOPT_RETURN_IF_ERROR(ApplyJournalLine(state, line));
  return Status::Ok();
}

}  // namespace kopt::suite
