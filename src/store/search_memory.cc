#include "store/search_memory.h"

#include <sqlite3.h>

#include <array>
#include <cctype>
#include <set>
#include <utility>

#include "core/enum_names.h"
#include "store/sqlite_support.h"
#include "store/workspace.h"

namespace kopt {
namespace {

constexpr EnumNameTable<MemoryNoteKind, 6> kKindNames = {{
    {MemoryNoteKind::kCompileErrorFix, "compile_error_fix"},
    {MemoryNoteKind::kRejectedCheat, "rejected_cheat"},
    {MemoryNoteKind::kHelped, "helped"},
    {MemoryNoteKind::kHurt, "hurt"},
    {MemoryNoteKind::kApiPattern, "api_pattern"},
    {MemoryNoteKind::kFailedCheck, "failed_check"},
}};

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS search_memory (
  id INTEGER PRIMARY KEY,
  task TEXT NOT NULL,
  bottleneck_class TEXT NOT NULL,
  kind TEXT NOT NULL,
  normalized_text TEXT NOT NULL,
  text TEXT NOT NULL,
  count INTEGER NOT NULL,
  first_seen TEXT NOT NULL,
  last_seen TEXT NOT NULL,
  UNIQUE(task, kind, normalized_text)
);
CREATE INDEX IF NOT EXISTS search_memory_by_class ON search_memory(bottleneck_class);
)sql";

constexpr const char* kUpsert = R"sql(
INSERT INTO search_memory(task, bottleneck_class, kind, normalized_text, text, count, first_seen, last_seen)
VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)
ON CONFLICT(task, kind, normalized_text) DO UPDATE SET
  count = count + excluded.count,
  last_seen = max(last_seen, excluded.last_seen),
  bottleneck_class = excluded.bottleneck_class,
  text = excluded.text
)sql";

// Tier 0: the task's own; 1: other tasks, same class; 2: other tasks'
// compiler and API knowledge.
constexpr const char* kRelevant = R"sql(
SELECT task, bottleneck_class, kind, text, count, last_seen, normalized_text,
       CASE WHEN task = ?1 THEN 0 WHEN ?2 <> '' AND bottleneck_class = ?2 THEN 1 ELSE 2 END AS tier
FROM search_memory
WHERE task = ?1 OR (?2 <> '' AND bottleneck_class = ?2) OR kind IN ('compile_error_fix', 'api_pattern')
ORDER BY tier, count DESC, last_seen DESC, id
)sql";

constexpr const char* kAll = R"sql(
SELECT task, bottleneck_class, kind, text, count, last_seen, normalized_text FROM search_memory ORDER BY task, id
)sql";

struct StatementDeleter {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using StatementPointer = std::unique_ptr<sqlite3_stmt, StatementDeleter>;

// A note from a row of kRelevant or kAll; its normalized text in `normalized`.
MemoryNote NoteFromRow(sqlite3_stmt* statement, std::string& normalized) {
  MemoryNote note;
  note.task = ColumnText(statement, 0);
  note.bottleneck_class = ColumnText(statement, 1);
  note.kind = ParseMemoryNoteKind(ColumnText(statement, 2)).value_or(MemoryNoteKind::kHelped);
  note.text = ColumnText(statement, 3);
  note.count = sqlite3_column_int64(statement, 4);
  note.last_seen = ColumnText(statement, 5);
  normalized = ColumnText(statement, 6);
  return note;
}

}  // namespace

std::string_view MemoryNoteKindName(MemoryNoteKind kind) {
  return EnumName(kKindNames, kind);
}
std::optional<MemoryNoteKind> ParseMemoryNoteKind(std::string_view name) {
  return EnumFromName(kKindNames, name);
}

std::string NormalizeMemoryText(std::string_view text) {
  std::string normalized;
  bool space = false;
  for (char character : text) {
    unsigned char byte = static_cast<unsigned char>(character);
    if (std::isspace(byte)) {
      space = !normalized.empty();
      continue;
    }
    if (space) normalized += ' ';
    space = false;
    normalized += static_cast<char>(std::tolower(byte));
  }
  while (!normalized.empty() && normalized.back() == '.') normalized.pop_back();
  return normalized;
}

SearchMemory::SearchMemory(std::string database_path, sqlite3* database)
    : database_path_(std::move(database_path)), database_(database) {}

SearchMemory::~SearchMemory() {
  sqlite3_close(database_);
}

Result<std::unique_ptr<SearchMemory>> SearchMemory::Open(const std::string& database_path) {
  KOPT_ASSIGN_OR_RETURN(sqlite3 * database, OpenSqliteDatabase(database_path, "search memory"));
  std::unique_ptr<SearchMemory> memory(new SearchMemory(database_path, database));
  KOPT_RETURN_IF_ERROR(memory->Initialize());
  return memory;
}

Status SearchMemory::Error(const std::string& doing) const {
  int code = sqlite3_errcode(database_);
  std::string message =
      "search memory in " + database_path_ + ": " + doing + " failed: " + sqlite3_errmsg(database_);
  if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) {
    return InvalidInput(message + " (the file is corrupt or not a kopt workspace database)");
  }
  return Unavailable(message);
}

Status SearchMemory::Initialize() {
  if (sqlite3_exec(database_, "PRAGMA journal_mode=WAL;", nullptr, nullptr, nullptr) != SQLITE_OK) {
    return Error("setting WAL mode");
  }
  if (sqlite3_exec(database_, kSchema, nullptr, nullptr, nullptr) != SQLITE_OK)
    return Error("creating the table");
  return Status::Ok();
}

Status SearchMemory::Record(const MemoryNote& note) {
  std::string normalized = NormalizeMemoryText(note.text);
  if (note.task.empty() || normalized.empty() || note.count < 1) {
    return InvalidInput("search memory: a note needs a task, a text and a count >= 1");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(database_, kUpsert, -1, &raw, nullptr) != SQLITE_OK)
    return Error("preparing a note");
  StatementPointer statement(raw);
  BindText(raw, 1, note.task);
  BindText(raw, 2, note.bottleneck_class);
  BindText(raw, 3, MemoryNoteKindName(note.kind));
  BindText(raw, 4, normalized);
  BindText(raw, 5, note.text);
  sqlite3_bind_int64(raw, 6, note.count);
  BindText(raw, 7, note.last_seen.empty() ? CurrentTimeUtc() : note.last_seen);
  if (sqlite3_step(raw) != SQLITE_DONE) return Error("recording a note");
  return Status::Ok();
}

Result<std::vector<MemoryNote>> SearchMemory::Notes(const std::string& task,
                                                    const std::string& bottleneck_class, size_t max_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(database_, kRelevant, -1, &raw, nullptr) != SQLITE_OK)
    return Error("preparing a query");
  StatementPointer statement(raw);
  BindText(raw, 1, task);
  BindText(raw, 2, bottleneck_class);
  std::vector<MemoryNote> notes;
  std::set<std::string> included;
  size_t used_bytes = 0;
  int code = SQLITE_ROW;
  while ((code = sqlite3_step(raw)) == SQLITE_ROW) {
    std::string normalized;
    MemoryNote note = NoteFromRow(raw, normalized);
    if (used_bytes + note.text.size() > max_bytes || !included.insert(normalized).second) continue;
    used_bytes += note.text.size();
    notes.push_back(std::move(note));
  }
  if (code != SQLITE_DONE) return Error("reading notes");
  return notes;
}

Result<std::vector<MemoryNote>> SearchMemory::AllNotes() {
  std::lock_guard<std::mutex> lock(mutex_);
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(database_, kAll, -1, &raw, nullptr) != SQLITE_OK) return Error("preparing a query");
  StatementPointer statement(raw);
  std::vector<MemoryNote> notes;
  int code = SQLITE_ROW;
  while ((code = sqlite3_step(raw)) == SQLITE_ROW) {
    std::string normalized;
    notes.push_back(NoteFromRow(raw, normalized));
  }
  if (code != SQLITE_DONE) return Error("reading notes");
  return notes;
}

}  // namespace kopt
