#include "store/workspace.h"

#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "core/file_io.h"
#include "core/sha256.h"
#include "store/sqlite_support.h"

namespace kopt {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  started TEXT NOT NULL,
  finished TEXT,
  task TEXT NOT NULL,
  gpu TEXT NOT NULL,
  settings TEXT NOT NULL,
  seeds TEXT NOT NULL,
  settings_hash TEXT NOT NULL,
  summary TEXT
);
CREATE TABLE IF NOT EXISTS candidates (
  hash TEXT PRIMARY KEY,
  path TEXT NOT NULL,
  name TEXT NOT NULL,
  first_seen TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS compiles (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  candidate_hash TEXT NOT NULL,
  cache_key TEXT NOT NULL,
  status TEXT NOT NULL,
  seconds REAL NOT NULL,
  time TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS measurements (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  candidate_hash TEXT NOT NULL,
  gpu TEXT NOT NULL,
  settings_hash TEXT NOT NULL,
  role TEXT NOT NULL,
  phase TEXT NOT NULL,
  complete INTEGER NOT NULL DEFAULT 0,
  event TEXT NOT NULL,
  time TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS measurements_by_key
  ON measurements(candidate_hash, gpu, settings_hash, role, phase);
)sql";

}  // namespace

// One prepared statement, reset and rebound on each use.
class Workspace::Statement {
 public:
  Statement(const char* sql, sqlite3_stmt* statement) : sql_(sql), statement_(statement) {}
  ~Statement() { sqlite3_finalize(statement_); }
  const char* sql() const { return sql_; }
  sqlite3_stmt* Reset() {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
    return statement_;
  }

 private:
  const char* sql_;
  sqlite3_stmt* statement_;
};

namespace {

// Binds the key's four text fields to parameters first..first+3.
void BindKey(sqlite3_stmt* statement, int first, const MeasurementKey& key) {
  BindText(statement, first, key.candidate_hash);
  BindText(statement, first + 1, key.gpu);
  BindText(statement, first + 2, key.settings_hash);
  BindText(statement, first + 3, key.role);
}

}  // namespace

Workspace::Workspace(std::string directory, std::string database_path, sqlite3* database)
    : directory_(std::move(directory)), database_path_(std::move(database_path)), database_(database) {}

Workspace::~Workspace() {
  statements_.clear();  // finalize before closing
  sqlite3_close(database_);
}

Result<std::unique_ptr<Workspace>> Workspace::Open(const std::string& directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) {
    return Unavailable("cannot create the workspace directory " + directory + ": " + error.message());
  }
  std::string database_path = (std::filesystem::path(directory) / "kopt.db").string();
  KOPT_ASSIGN_OR_RETURN(sqlite3 * database, OpenSqliteDatabase(database_path, "workspace"));
  std::unique_ptr<Workspace> workspace(new Workspace(directory, database_path, database));
  KOPT_RETURN_IF_ERROR(workspace->Initialize());
  return workspace;
}

Status Workspace::Error(const std::string& doing) const {
  int code = sqlite3_errcode(database_);
  std::string message =
      "workspace database " + database_path_ + ": " + doing + " failed: " + sqlite3_errmsg(database_);
  if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) {
    return InvalidInput(message +
                        " (the file is corrupt or not a kopt workspace database; move it aside or "
                        "choose another --workspace)");
  }
  return Unavailable(message);
}

Status Workspace::Execute(const char* sql) {
  char* error_text = nullptr;
  int code = sqlite3_exec(database_, sql, nullptr, nullptr, &error_text);
  sqlite3_free(error_text);
  if (code != SQLITE_OK) return Error(std::string("executing \"") + std::string(sql).substr(0, 40) + "\"");
  return Status::Ok();
}

Status Workspace::Initialize() {
  // The first statement reads the file header: a corrupt file fails here.
  KOPT_RETURN_IF_ERROR(Execute("PRAGMA journal_mode=WAL;"));
  KOPT_RETURN_IF_ERROR(Execute("PRAGMA foreign_keys=ON;"));
  KOPT_RETURN_IF_ERROR(Execute("BEGIN IMMEDIATE;"));
  Status status = [&]() -> Status {
    KOPT_RETURN_IF_ERROR(Execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);"));
    KOPT_ASSIGN_OR_RETURN(Statement * select, Prepare("SELECT MAX(version) FROM schema_version;"));
    sqlite3_stmt* statement = select->Reset();
    if (sqlite3_step(statement) != SQLITE_ROW) return Error("reading the schema version");
    bool empty = sqlite3_column_type(statement, 0) == SQLITE_NULL;
    int version = sqlite3_column_int(statement, 0);
    sqlite3_reset(statement);
    if (empty) {
      // A database that is not kopt's (other tables, no schema version) is not taken over.
      KOPT_ASSIGN_OR_RETURN(Statement * tables,
                            Prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN "
                                    "('schema_version') AND name NOT LIKE 'sqlite_%' LIMIT 1;"));
      sqlite3_stmt* listing = tables->Reset();
      if (sqlite3_step(listing) == SQLITE_ROW) {
        std::string foreign = reinterpret_cast<const char*>(sqlite3_column_text(listing, 0));
        sqlite3_reset(listing);
        return InvalidInput("workspace database " + database_path_ +
                            " is an SQLite database but not a kopt "
                            "workspace (it has a table \"" +
                            foreign +
                            "\" and no kopt schema version); move it aside or choose another --workspace");
      }
      sqlite3_reset(listing);
    }
    if (!empty && version > kWorkspaceSchemaVersion) {
      return InvalidInput("workspace database " + database_path_ + " has schema version " +
                          std::to_string(version) + ", newer than this kopt understands (" +
                          std::to_string(kWorkspaceSchemaVersion) +
                          "); use a newer kopt or another --workspace");
    }
    KOPT_RETURN_IF_ERROR(Execute(kSchema));
    if (empty) {
      KOPT_RETURN_IF_ERROR(Execute("INSERT INTO schema_version(version) VALUES (1);"));
    }
    return Status::Ok();
  }();
  if (!status.ok()) {
    sqlite3_exec(database_, "ROLLBACK;", nullptr, nullptr, nullptr);
    return status;
  }
  return Execute("COMMIT;");
}

Result<Workspace::Statement*> Workspace::Prepare(const char* sql) {
  for (const auto& statement : statements_) {
    if (statement->sql() == sql) return statement.get();
  }
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(database_, sql, -1, &statement, nullptr) != SQLITE_OK) {
    sqlite3_finalize(statement);
    return Error("preparing a statement");
  }
  statements_.push_back(std::make_unique<Statement>(sql, statement));
  return statements_.back().get();
}

Result<int64_t> Workspace::BeginRun(const RunRecord& run) {
  std::lock_guard lock(mutex_);
  static const char* kSql =
      "INSERT INTO runs(started, task, gpu, settings, seeds, settings_hash) VALUES (?,?,?,?,?,?);";
  KOPT_ASSIGN_OR_RETURN(Statement * insert, Prepare(kSql));
  sqlite3_stmt* statement = insert->Reset();
  BindText(statement, 1, run.started);
  BindText(statement, 2, run.task);
  BindText(statement, 3, run.gpu);
  BindText(statement, 4, run.settings.dump());
  BindText(statement, 5, nlohmann::json(run.seeds).dump());
  BindText(statement, 6, run.settings_hash);
  if (sqlite3_step(statement) != SQLITE_DONE) return Error("inserting a run");
  return static_cast<int64_t>(sqlite3_last_insert_rowid(database_));
}

Status Workspace::SetRunGpu(int64_t run_id, const std::string& gpu) {
  std::lock_guard lock(mutex_);
  static const char* kSql = "UPDATE runs SET gpu = ? WHERE id = ?;";
  KOPT_ASSIGN_OR_RETURN(Statement * update, Prepare(kSql));
  sqlite3_stmt* statement = update->Reset();
  BindText(statement, 1, gpu);
  sqlite3_bind_int64(statement, 2, run_id);
  if (sqlite3_step(statement) != SQLITE_DONE) return Error("updating run " + std::to_string(run_id));
  return Status::Ok();
}

Status Workspace::FinishRun(int64_t run_id, const std::string& finished, const nlohmann::json& summary) {
  std::lock_guard lock(mutex_);
  static const char* kSql = "UPDATE runs SET finished = ?, summary = ? WHERE id = ?;";
  KOPT_ASSIGN_OR_RETURN(Statement * update, Prepare(kSql));
  sqlite3_stmt* statement = update->Reset();
  BindText(statement, 1, finished);
  BindText(statement, 2, summary.dump());
  sqlite3_bind_int64(statement, 3, run_id);
  if (sqlite3_step(statement) != SQLITE_DONE) return Error("finishing run " + std::to_string(run_id));
  return Status::Ok();
}

Result<std::string> Workspace::StoreCandidate(const std::string& source, const std::string& path,
                                              const std::string& name) {
  std::string hash = Sha256Hex(source);
  std::string relative = "candidates/" + hash + ".cu";
  // Content-addressed: a file that already holds exactly this source (the
  // same candidate stored again, as the loop and its measurement session
  // both do) is kept; anything else there (cut short, edited) is rewritten.
  Result<std::string> stored =
      ReadWholeFile((std::filesystem::path(directory_) / relative).string(), source.size());
  if (!stored.ok() || *stored != source) {
    KOPT_ASSIGN_OR_RETURN(std::string artifact, WriteArtifact(relative, source));
    (void)artifact;
  }
  std::lock_guard lock(mutex_);
  static const char* kSql =
      "INSERT OR IGNORE INTO candidates(hash, path, name, first_seen) VALUES (?,?,?,?);";
  KOPT_ASSIGN_OR_RETURN(Statement * insert, Prepare(kSql));
  sqlite3_stmt* statement = insert->Reset();
  BindText(statement, 1, hash);
  BindText(statement, 2, path);
  BindText(statement, 3, name);
  BindText(statement, 4, CurrentTimeUtc());
  if (sqlite3_step(statement) != SQLITE_DONE) return Error("inserting candidate " + path);
  return hash;
}

Status Workspace::RecordCompile(const CompileRecord& compile) {
  std::lock_guard lock(mutex_);
  static const char* kSql =
      "INSERT INTO compiles(run_id, candidate_hash, cache_key, status, seconds, time) VALUES (?,?,?,?,?,?);";
  KOPT_ASSIGN_OR_RETURN(Statement * insert, Prepare(kSql));
  sqlite3_stmt* statement = insert->Reset();
  sqlite3_bind_int64(statement, 1, compile.run_id);
  BindText(statement, 2, compile.candidate_hash);
  BindText(statement, 3, compile.cache_key);
  BindText(statement, 4, compile.status);
  sqlite3_bind_double(statement, 5, compile.seconds);
  BindText(statement, 6, CurrentTimeUtc());
  if (sqlite3_step(statement) != SQLITE_DONE) return Error("recording a compile");
  return Status::Ok();
}

Status Workspace::InsertEvent(int64_t run_id, const MeasurementKey& key, const std::string& phase,
                              const nlohmann::json& event, bool complete) {
  std::lock_guard lock(mutex_);
  return InsertEventLocked(run_id, key, phase, event, complete);
}

Status Workspace::InsertEventLocked(int64_t run_id, const MeasurementKey& key, const std::string& phase,
                                    const nlohmann::json& event, bool complete) {
  static const char* kSql =
      "INSERT INTO measurements(run_id, candidate_hash, gpu, settings_hash, role, phase, complete, event, "
      "time) VALUES (?,?,?,?,?,?,?,?,?);";
  KOPT_ASSIGN_OR_RETURN(Statement * insert, Prepare(kSql));
  sqlite3_stmt* statement = insert->Reset();
  sqlite3_bind_int64(statement, 1, run_id);
  BindKey(statement, 2, key);
  BindText(statement, 6, phase);
  sqlite3_bind_int(statement, 7, complete ? 1 : 0);
  // Invalid UTF-8 from an untrusted child is replaced rather than throwing.
  BindText(statement, 8, event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  BindText(statement, 9, CurrentTimeUtc());
  if (sqlite3_step(statement) != SQLITE_DONE) return Error("recording a " + phase + " event");
  return Status::Ok();
}

Status Workspace::RecordEvent(int64_t run_id, const MeasurementKey& key, const std::string& phase,
                              const nlohmann::json& event) {
  return InsertEvent(run_id, key, phase, event, false);
}

Status Workspace::RecordOutcome(int64_t run_id, const MeasurementKey& key, const nlohmann::json& outcome,
                                bool complete) {
  return InsertEvent(run_id, key, "outcome", outcome, complete);
}

Status Workspace::RecordMeasurement(int64_t run_id, const MeasurementKey& key,
                                    const std::vector<StoredEvent>& events, const nlohmann::json& outcome,
                                    bool complete) {
  std::lock_guard lock(mutex_);
  KOPT_RETURN_IF_ERROR(Execute("BEGIN IMMEDIATE;"));
  Status inserted = Status::Ok();
  for (const StoredEvent& event : events) {
    inserted = InsertEventLocked(run_id, key, event.phase, event.event, false);
    if (!inserted.ok()) break;
  }
  if (inserted.ok()) inserted = InsertEventLocked(run_id, key, "outcome", outcome, complete);
  if (inserted.ok()) inserted = Execute("COMMIT;");
  if (!inserted.ok()) (void)Execute("ROLLBACK;");
  return inserted;
}

Result<std::vector<StoredEvent>> Workspace::MeasurementEvents(int64_t run_id, const MeasurementKey& key) {
  std::lock_guard lock(mutex_);
  static const char* kSql =
      "SELECT phase, event FROM measurements WHERE run_id = ? AND candidate_hash = ? AND gpu = ? AND "
      "settings_hash = ? AND role = ? ORDER BY id;";
  KOPT_ASSIGN_OR_RETURN(Statement * select, Prepare(kSql));
  sqlite3_stmt* statement = select->Reset();
  sqlite3_bind_int64(statement, 1, run_id);
  BindKey(statement, 2, key);
  std::vector<StoredEvent> events;
  int code;
  while ((code = sqlite3_step(statement)) == SQLITE_ROW) {
    StoredEvent stored{ColumnText(statement, 0), nlohmann::json()};
    stored.event = nlohmann::json::parse(ColumnText(statement, 1), nullptr, /*allow_exceptions=*/false);
    if (stored.event.is_discarded()) {
      sqlite3_reset(statement);
      return InvalidInput("workspace database " + database_path_ + ": a stored " + stored.phase +
                          " event of run " + std::to_string(run_id) + " is not valid JSON");
    }
    events.push_back(std::move(stored));
  }
  if (code != SQLITE_DONE) return Error("reading measurements");
  sqlite3_reset(statement);
  return events;
}

Result<std::optional<StoredMeasurement>> Workspace::FindCompleteMeasurement(const MeasurementKey& key) {
  int64_t run_id = 0;
  {
    std::lock_guard lock(mutex_);
    static const char* kSql =
        "SELECT run_id FROM measurements WHERE candidate_hash = ? AND gpu = ? AND settings_hash = ? AND "
        "role = ? AND phase = 'outcome' AND complete = 1 ORDER BY id DESC LIMIT 1;";
    KOPT_ASSIGN_OR_RETURN(Statement * select, Prepare(kSql));
    sqlite3_stmt* statement = select->Reset();
    BindText(statement, 1, key.candidate_hash);
    BindText(statement, 2, key.gpu);
    BindText(statement, 3, key.settings_hash);
    BindText(statement, 4, key.role);
    int code = sqlite3_step(statement);
    if (code == SQLITE_DONE) return std::optional<StoredMeasurement>();
    if (code != SQLITE_ROW) return Error("looking up a stored measurement");
    run_id = sqlite3_column_int64(statement, 0);
    sqlite3_reset(statement);
  }
  KOPT_ASSIGN_OR_RETURN(std::vector<StoredEvent> events, MeasurementEvents(run_id, key));
  return std::optional<StoredMeasurement>(StoredMeasurement{run_id, std::move(events)});
}

Result<int64_t> Workspace::CountRuns() {
  std::lock_guard lock(mutex_);
  KOPT_ASSIGN_OR_RETURN(Statement * select, Prepare("SELECT COUNT(*) FROM runs;"));
  sqlite3_stmt* statement = select->Reset();
  if (sqlite3_step(statement) != SQLITE_ROW) return Error("counting runs");
  int64_t count = sqlite3_column_int64(statement, 0);
  sqlite3_reset(statement);
  return count;
}

Result<std::string> Workspace::WriteArtifact(const std::string& relative_path, const std::string& contents) {
  std::filesystem::path path = std::filesystem::path(directory_) / relative_path;
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  if (error) {
    return Unavailable("cannot create the workspace directory " + path.parent_path().string() + ": " +
                       error.message());
  }
  // Written beside, then renamed: a reader never sees half a file.
  static std::atomic<unsigned> counter{0};
  std::string temporary =
      path.string() + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter.fetch_add(1));
  {
    std::ofstream stream(temporary, std::ios::binary | std::ios::trunc);
    stream.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    if (!stream.flush()) return Unavailable("cannot write the workspace file " + temporary);
  }
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::remove(temporary.c_str());
    return Unavailable("cannot rename " + temporary + " to " + path.string() + ": " + error.message());
  }
  return path.string();
}

std::string CurrentTimeUtc() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace kopt
