// Search memory: a persistent record, in the workspace database, of what the
// search tried and what happened (KernelPro's search memory), condensed into
// short notes a generator receives so that it does not repeat a mistake.
//
// Table (created when absent, additive to the workspace schema):
//   search_memory(id INTEGER PRIMARY KEY, task, bottleneck_class, kind,
//                 normalized_text, text, count, first_seen, last_seen,
//                 UNIQUE(task, kind, normalized_text))
// A note is kept per task; Record of a note whose (task, kind, normalized
// text) exists adds its count to the stored one, updates last_seen (the later
// of the two), bottleneck_class and text (the latest wording). Normalized
// text: ASCII lowercase, runs of whitespace collapsed to one space, trimmed,
// trailing '.' dropped (numbers are kept: "unroll 4" and "unroll 8" are
// different notes; write compile-error notes without line numbers).
//
// Notes(task, class, max_bytes): the most relevant first — the task's own
// notes (by count, then last_seen, newest first), then other tasks' notes of
// the same bottleneck class (same order), then other tasks' compile-error
// fixes and API patterns of any class (knowledge of the compiler and the
// libraries, not of the kernel), skipping a text already included;
// their texts add up to at most max_bytes (a note that does not fit is
// skipped, smaller ones after it may still be taken). A second run on the
// same task starts from the first run's notes: they live in the database.
//
// The connection is its own (sqlite3, WAL as the workspace sets it, a busy
// timeout) on Workspace::database_path(); it may coexist with the Workspace
// object. Times are ISO-8601 UTC strings (CurrentTimeUtc in workspace.h).
//
// Thread safety: all methods may be called from several threads (an internal
// mutex serializes them).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

struct sqlite3;

namespace kopt {

enum class MemoryNoteKind {
  kCompileErrorFix,  // a compile error and the fix that followed
  kRejectedCheat,    // a candidate rejected as suspect or cheating, and why
  kHelped,           // a transformation that helped (for this bottleneck class)
  kHurt,             // a transformation that made it slower
  kApiPattern,       // an API pattern (CUTLASS/CuTe, intrinsics) that compiled and verified
  kFailedCheck,      // a change that produced wrong results, and how
};
// "compile_error_fix", "rejected_cheat", "helped", "hurt", "api_pattern", "failed_check".
std::string_view MemoryNoteKindName(MemoryNoteKind kind);
std::optional<MemoryNoteKind> ParseMemoryNoteKind(std::string_view name);

struct MemoryNote {
  std::string task;              // task name
  std::string bottleneck_class;  // stage-1 class as a text key ("memory-bound"), or ""
  MemoryNoteKind kind = MemoryNoteKind::kHelped;
  std::string text;       // one short note, plain text (non-empty)
  int64_t count = 1;      // times seen (>= 1)
  std::string last_seen;  // ISO-8601 UTC; "" in Record means now
};

// The normalization used to deduplicate notes (see the file comment).
std::string NormalizeMemoryText(std::string_view text);

class SearchMemory {
 public:
  // Opens the database at `database_path` (normally Workspace::database_path())
  // and creates the table when absent. Unavailable when it cannot be opened;
  // InvalidInput when it is not a SQLite database (the message names the path).
  static Result<std::unique_ptr<SearchMemory>> Open(const std::string& database_path);

  ~SearchMemory();
  SearchMemory(const SearchMemory&) = delete;
  SearchMemory& operator=(const SearchMemory&) = delete;

  // Adds a note or increments an existing one. InvalidInput for an empty
  // task or text or a count < 1.
  Status Record(const MemoryNote& note);

  // The most relevant notes for a generator working on `task` (rule above).
  Result<std::vector<MemoryNote>> Notes(const std::string& task, const std::string& bottleneck_class,
                                        size_t max_bytes);

  // Every note, for `kopt report` and tests: by task, then id.
  Result<std::vector<MemoryNote>> AllNotes();

 private:
  SearchMemory(std::string database_path, sqlite3* database);
  Status Initialize();
  Status Error(const std::string& doing) const;

  std::string database_path_;
  sqlite3* database_ = nullptr;
  std::mutex mutex_;
};

}  // namespace kopt
