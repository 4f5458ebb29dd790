// A suite run on disk (docs/suite.md): WORKSPACE/suites/NAME/ holds
// - suite.json: the manifest (`kopt.suite` version 1): the problems, the
//   arguments every problem's `kopt optimize` gets, GPUs per problem; written
//   once, atomically, when the suite is created;
// - suite.journal: one JSON line per event (`started`, `ended`), appended
//   and flushed (fsync) as it happens; a torn last line (a kill mid-write) is
//   ignored, any other bad line is InvalidInput naming the file and line;
// - problems/KEY/workspace/: the problem's own kopt workspace (its optimize
//   run state, database and candidates: one writer per database);
// - problems/KEY/optimize.log: the problem's kopt optimize output.
//
// A problem's phase is the journal's last word on it: pending (never
// started, or started and not ended: a driver killed mid-run), or ended with
// the executor's final state. A restarted driver runs exactly the problems
// that are not ended (their optimize runs resume from their own state).
//
// Thread safety: one driver per suite directory; values otherwise.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "suite/executor.h"
#include "suite/suite_plan.h"

namespace kopt::suite {

inline constexpr int kSuiteSchemaVersion = 1;

struct SuiteManifest {
  std::string name;
  std::string created;  // ISO-8601 UTC
  std::vector<SuiteProblem> problems;
  std::vector<std::string> optimize_arguments;  // after TASK (or --resume RUN) and --workspace
  int gpus_per_problem = 1;
  // Same suite: same problems, arguments and GPUs (not name or time).
  bool SameWork(const SuiteManifest& other) const;
};

// The journal's knowledge of one problem.
struct ProblemJournal {
  int attempts = 0;                 // `started` lines
  std::optional<WorkStatus> ended;  // the last `ended` line, when the problem ended
  std::optional<int64_t> run_id;    // the optimize run its last `ended` line named
};

struct SuiteState {
  std::string directory;  // WORKSPACE/suites/NAME
  SuiteManifest manifest;
  std::map<std::string, ProblemJournal> journal;  // by key; problems never started are absent
};

// WORKSPACE/suites/NAME.
std::string SuiteDirectory(const std::string& workspace, const std::string& name);
std::string ProblemWorkspace(const std::string& suite_directory, const std::string& key);
std::string ProblemLogPath(const std::string& suite_directory, const std::string& key);

// Creates the suite (directories and manifest) or, when it exists, checks
// that `manifest` asks the same work (InvalidInput naming what differs, with
// the hint to pick another --name) and reads its state. A manifest with no
// problems means "resume whatever exists": NotFound when nothing does.
Result<SuiteState> OpenSuite(const std::string& suite_directory, const SuiteManifest& manifest);
// Reads an existing suite (`kopt suite status`). NotFound when it does not exist.
Result<SuiteState> ReadSuite(const std::string& suite_directory);

// The parsers of the two files (ReadSuite's parts; fuzz/suite_files_fuzz.cc):
// InvalidInput naming `path` (and the line) for a malformed manifest or line.
Result<SuiteManifest> ParseSuiteManifest(std::string_view text, const std::string& path);
Status ApplySuiteJournal(std::string_view text, const std::string& path, SuiteState& state);

// Appends one event to suite.journal and to `state`.
Status JournalStarted(SuiteState& state, const WorkStatus& status);
Status JournalEnded(SuiteState& state, const WorkStatus& status, std::optional<int64_t> run_id);

}  // namespace kopt::suite
