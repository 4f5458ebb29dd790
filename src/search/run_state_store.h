// A `kopt optimize` run's state on disk (search/run_state.h): a snapshot,
// runs/<run>/optimize.json, and a journal beside it, runs/<run>/
// optimize.journal, so that recording a step costs what the step changed,
// not the whole tree (docs/optimize.md "Run state on disk").
//
// The snapshot is RunStateToJson plus "journal_id", a random id new with
// each snapshot. The journal is JSON Lines, one line per Save after the
// snapshot, numbered from 1:
//   {"journal_id": <the snapshot's>, "seq": N, "run": <RunStateHeaderToJson>, "reference_time_s": <tree's>,
//    "nodes": [{"id", "tree": <SearchTree::NodeToJson>, "record":
//               <NodeRecordToJson>, "owned_keys": [transposition keys the
//               node owns]}, ...]}
// with only the nodes that are new or differ from what the store last wrote
// (a node's statistics change when a descendant is recorded, so a step
// writes the new node and its ancestors). Line N+1 follows line N; lines
// with another journal_id precede the snapshot and are already in it.
//
// Writing. The first Save of a store writes the snapshot (atomically: a new
// file renamed over the old) and empties the journal; later Saves append one
// line with a single write(2) to a file opened O_APPEND. When the journal
// has grown past the snapshot's size (at least kCompactAfterBytes) a Save
// writes a new snapshot instead and empties the journal (compaction:
// the cost of a step stays proportional to what it changed, amortized).
// Compact() does so at once (the end of a run: a finished run is one file).
//
// Crash safety (kill -9 at any instant; the OS keeps what was written, as
// for the rename-based file this replaces, not a power loss): a line is
// either complete, ending in '\n', or the torn tail of the write in flight,
// which Load ignores (the state before that step, as when a rename had not
// happened). A crash between a compaction's rename and its truncation
// leaves lines already in the new snapshot: Load skips them by id. A store
// opened on a resumed run writes a snapshot first, so a torn tail is never
// followed by a new line.
//
// Reading (LoadRunStateFiles): the snapshot, then each complete journal line
// applied in order to its JSON (a node replaced or appended, key owners
// added, the header replaced), then RunStateFromJson validates the result.
// Errors name the file: NotFound when the run has no snapshot;
// InvalidInput for a snapshot that is not valid JSON or not a run state,
// and for a journal line that is complete but not valid JSON, out of order
// (a gap or a repeat in seq, another journal's line after this one's), or
// that names a node out of range; and for a snapshot and journal that do
// not make a valid run state together.
//
// Thread safety: one thread per store (the loop's mutex); Load is a function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "search/run_state.h"

namespace kopt {

// runs/<id>/optimize.journal, relative to the workspace directory.
std::string RunJournalPath(int64_t run_id);

struct RunStateStoreOptions {
  // A Save compacts when the journal is larger than this and than the last
  // snapshot (bytes).
  size_t compact_after_bytes = size_t{64} << 10;
};

class RunStateStore {
 public:
  // For run `run_id` of the workspace at `workspace_directory` (its runs/<id>/
  // is created by the first Save). Nothing is read or written here.
  RunStateStore(std::string workspace_directory, int64_t run_id, RunStateStoreOptions options = {});
  ~RunStateStore();
  RunStateStore(const RunStateStore&) = delete;
  RunStateStore& operator=(const RunStateStore&) = delete;

  // Records `state` (whose run_id is this store's): a snapshot on the first
  // call and when the journal is due for compaction, else one journal line
  // with what changed since the last Save. Unavailable (naming the file) when
  // a file cannot be written; the next Save then writes a snapshot.
  Status Save(const RunState& state);
  // Writes the snapshot of `state` now and empties the journal.
  Status Compact(const RunState& state);

  // For tests and the benchmark: bytes in the journal, snapshots written.
  size_t journal_bytes() const { return journal_bytes_; }
  int64_t snapshots_written() const { return snapshots_written_; }

 private:
  Status WriteSnapshot(const RunState& state);
  Status AppendLine(const std::string& line);
  void Remember(const RunState& state);

  std::string directory_;      // <workspace>/runs/<id>
  std::string snapshot_path_;  // <workspace>/runs/<id>/optimize.json
  std::string journal_path_;   // <workspace>/runs/<id>/optimize.journal
  RunStateStoreOptions options_;
  int journal_fd_ = -1;
  bool need_snapshot_ = true;  // first Save, or after a failed write
  std::string journal_id_;     // the id of the last snapshot and of the lines after it
  int64_t seq_ = 0;            // the last line written after that snapshot (0: none)
  size_t journal_bytes_ = 0;
  size_t snapshot_bytes_ = 0;
  int64_t snapshots_written_ = 0;
  // What the files hold now, to find what a Save must add.
  std::vector<SearchNode> saved_nodes_;
  std::vector<NodeRecord> saved_records_;
};

// The state of run `run_id` from its snapshot and journal (see the file
// comment). `lines_applied`, when given, receives the number of journal
// lines applied (0: the snapshot alone).
Result<RunState> LoadRunStateFiles(const std::string& workspace_directory, int64_t run_id,
                                   int64_t* lines_applied = nullptr);

}  // namespace kopt
