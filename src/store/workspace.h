// The workspace: where kopt keeps what it measured, so that a later run can
// resume and a report can be rendered again. A directory (default ./.kopt)
// holding
//
//   kopt.db            SQLite database (WAL journal), schema below
//   candidates/<hash>.cu   a copy of every candidate source, by SHA-256
//   runs/<id>/...          per-run artifacts (runner requests, child output)
//
// Tables (schema version kSchemaVersion, kept in table `schema_version`):
//   runs(id, started, finished, task, gpu, settings JSON, seeds JSON,
//        settings_hash, summary JSON)
//   candidates(hash PRIMARY KEY, path, name, first_seen)
//   compiles(id, run_id, candidate_hash, cache_key, status, seconds, time)
//   measurements(id, run_id, candidate_hash, gpu, settings_hash, role, phase,
//                complete, event JSON, time)
//
// A measurement is the events of one child run (role "reference",
// "reference_end" or "candidate"), stored one row per event as each arrives,
// closed by a row of phase "outcome" (the parent's verdict). A measurement is
// complete when its outcome row says so; FindCompleteMeasurement returns the
// newest complete one for (candidate hash, GPU, settings hash, role), which
// is how `kopt bench` skips what it already measured.
//
// Times are ISO-8601 UTC strings ("2026-11-29T11:30:05Z"); seconds are SI
// seconds. Every error names the database path.
//
// Thread safety: all methods may be called from several threads; they
// serialize on an internal mutex (one SQLite connection).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace kopt {

inline constexpr int kWorkspaceSchemaVersion = 1;

struct RunRecord {
  std::string started;  // ISO-8601 UTC
  std::string task;     // task name
  std::string gpu;      // device name, or "" when not known yet
  nlohmann::json settings = nlohmann::json::object();
  std::vector<uint64_t> seeds;
  std::string settings_hash;
};

struct CompileRecord {
  int64_t run_id = 0;
  std::string candidate_hash;
  std::string cache_key;
  std::string status;  // "ok", "compile_error", "missing_entry_point", "cached", ...
  double seconds = 0;  // wall time of the compile (0 for a cache hit)
};

// Which measurement an event belongs to.
struct MeasurementKey {
  std::string candidate_hash;
  std::string gpu;
  std::string settings_hash;
  std::string role;  // "reference", "reference_end", "candidate"
};

struct StoredEvent {
  std::string phase;     // the event's name: "device", "check", ..., "outcome"
  nlohmann::json event;  // the event object as stored
};

// A complete measurement found for resuming.
struct StoredMeasurement {
  int64_t run_id = 0;
  std::vector<StoredEvent> events;  // in arrival order, the outcome last
};

class Workspace {
 public:
  // Opens (creating when absent) the workspace at `directory`: the directory,
  // kopt.db with WAL, the schema. InvalidInput when the database is corrupt,
  // not a SQLite file, or from a newer kopt (message names the path and says
  // what to do); Unavailable when the directory cannot be created or the
  // database cannot be opened.
  static Result<std::unique_ptr<Workspace>> Open(const std::string& directory);

  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  const std::string& directory() const { return directory_; }
  const std::string& database_path() const { return database_path_; }

  // Inserts a run; returns its id.
  Result<int64_t> BeginRun(const RunRecord& run);
  // Sets the run's GPU (known only once the first child reported its device).
  Status SetRunGpu(int64_t run_id, const std::string& gpu);
  // Records the end time and a summary (JSON) of a run.
  Status FinishRun(int64_t run_id, const std::string& finished, const nlohmann::json& summary);

  // Stores a candidate source: row in `candidates` (kept when present) and
  // candidates/<hash>.cu. Returns the hash (SHA-256 of `source`).
  Result<std::string> StoreCandidate(const std::string& source, const std::string& path,
                                     const std::string& name);

  Status RecordCompile(const CompileRecord& compile);

  // Appends one event of a measurement (phase = event name) for `run_id`.
  Status RecordEvent(int64_t run_id, const MeasurementKey& key, const std::string& phase,
                     const nlohmann::json& event);
  // Closes a measurement with the parent's verdict (phase "outcome").
  // `complete`: a later run may reuse it instead of measuring again.
  Status RecordOutcome(int64_t run_id, const MeasurementKey& key, const nlohmann::json& outcome,
                       bool complete);

  // One child's whole record in one transaction: its `events` (in order,
  // each with its phase), then the outcome as RecordOutcome writes it. Either
  // all of it is in the database when this returns Ok or none of it (a crash
  // before the commit leaves no outcome: the measurement is redone, never
  // counted twice). One commit instead of one per event.
  Status RecordMeasurement(int64_t run_id, const MeasurementKey& key, const std::vector<StoredEvent>& events,
                           const nlohmann::json& outcome, bool complete);

  // The newest complete measurement for `key`, or nullopt when there is none.
  Result<std::optional<StoredMeasurement>> FindCompleteMeasurement(const MeasurementKey& key);

  // The events of one measurement of `run_id` (all phases, in order).
  Result<std::vector<StoredEvent>> MeasurementEvents(int64_t run_id, const MeasurementKey& key);

  // Writes `contents` to `relative_path` under the workspace directory
  // (directories created, written atomically); returns the full path.
  Result<std::string> WriteArtifact(const std::string& relative_path, const std::string& contents);

  // Number of runs stored (for tests and `kopt report`).
  Result<int64_t> CountRuns();

 private:
  class Statement;
  Workspace(std::string directory, std::string database_path, sqlite3* database);
  Status Initialize();
  Status Execute(const char* sql);
  Status Error(const std::string& doing) const;  // message from sqlite3_errmsg
  Result<Statement*> Prepare(const char* sql);
  Status InsertEvent(int64_t run_id, const MeasurementKey& key, const std::string& phase,
                     const nlohmann::json& event, bool complete);
  // InsertEvent with mutex_ already held.
  Status InsertEventLocked(int64_t run_id, const MeasurementKey& key, const std::string& phase,
                           const nlohmann::json& event, bool complete);

  std::string directory_;
  std::string database_path_;
  sqlite3* database_ = nullptr;
  std::vector<std::unique_ptr<Statement>> statements_;  // prepared once, reused
  std::mutex mutex_;
};

// The current time as ISO-8601 UTC with seconds ("2026-11-29T11:30:05Z").
std::string CurrentTimeUtc();

}  // namespace kopt
