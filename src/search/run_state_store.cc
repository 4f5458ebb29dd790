#include "search/run_state_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <string_view>

#include "core/file_io.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A new journal's id: lines of an earlier journal (left by a crash between a
// compaction's rename and its truncation) carry another and are skipped.
std::string NewJournalId() {
  static std::atomic<uint64_t> counter{0};
  std::random_device device;
  uint64_t bits = (uint64_t{device()} << 32) ^ device() ^
                  static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                  (counter.fetch_add(1) * 0x9e3779b97f4a7c15ULL);
  return fmt::format("{:016x}", bits);
}

// Applies one journal line to the snapshot document; InvalidInput naming
// the problem (the caller adds the file and line).
Status ApplyLine(const json& line, json& document) {
  const json& run = line.at("run");
  if (!run.is_object()) return InvalidInput("\"run\": expected an object");
  for (const auto& [key, value] : run.items()) document[key] = value;
  json& tree = document.at("tree");
  tree["reference_time_s"] = line.at("reference_time_s");
  json& nodes = tree.at("nodes");
  json& records = document.at("records");
  json& owners = tree.at("transposition_key_owners");
  if (!nodes.is_array() || !records.is_array() || !owners.is_object())
    return InvalidInput("the snapshot's tree has no node array");
  for (const json& entry : line.at("nodes")) {
    const int64_t id = entry.at("id").get<int64_t>();
    auto put = [&](json& array, const char* key) -> Status {
      if (!entry.contains(key)) return Status::Ok();
      if (id < 0 || id > static_cast<int64_t>(array.size())) {
        return InvalidInput(fmt::format("node {}: beyond the {} nodes known so far", id, array.size()));
      }
      if (id == static_cast<int64_t>(array.size())) {
        array.push_back(entry.at(key));
      } else {
        array[static_cast<size_t>(id)] = entry.at(key);
      }
      return Status::Ok();
    };
    KOPT_RETURN_IF_ERROR(put(nodes, "tree"));
    KOPT_RETURN_IF_ERROR(put(records, "record"));
    for (const json& key : entry.value("owned_keys", json::array())) owners[key.get<std::string>()] = id;
  }
  return Status::Ok();
}

}  // namespace

std::string RunJournalPath(int64_t run_id) {
  return fmt::format("runs/{}/optimize.journal", run_id);
}

RunStateStore::RunStateStore(std::string workspace_directory, int64_t run_id, RunStateStoreOptions options)
    : directory_((fs::path(workspace_directory) / "runs" / std::to_string(run_id)).string()),
      snapshot_path_((fs::path(workspace_directory) / RunStatePath(run_id)).string()),
      journal_path_((fs::path(workspace_directory) / RunJournalPath(run_id)).string()),
      options_(options) {}

RunStateStore::~RunStateStore() {
  if (journal_fd_ >= 0) ::close(journal_fd_);
}

Status RunStateStore::Save(const RunState& state) {
  if (need_snapshot_ || state.tree.nodes().size() < saved_nodes_.size() ||
      state.records.size() < saved_records_.size() ||
      (journal_bytes_ > options_.compact_after_bytes && journal_bytes_ > snapshot_bytes_)) {
    return WriteSnapshot(state);
  }
  const size_t count = std::max(state.tree.nodes().size(), state.records.size());
  json nodes = json::array();
  std::vector<size_t> changed;
  for (size_t index = 0; index < count; ++index) {
    const bool has_node = index < state.tree.nodes().size();
    const bool has_record = index < state.records.size();
    const bool node_changed =
        has_node && (index >= saved_nodes_.size() || !(state.tree.nodes()[index] == saved_nodes_[index]));
    const bool record_changed =
        has_record && (index >= saved_records_.size() || !(state.records[index] == saved_records_[index]));
    if (!node_changed && !record_changed) continue;
    json entry = {{"id", static_cast<int64_t>(index)}};
    if (has_node) {
      const SearchNode& node = state.tree.nodes()[index];
      entry["tree"] = SearchTree::NodeToJson(node);
      json owned = json::array();
      for (const std::string& key : node.transposition_keys) {
        if (state.tree.FindTransposition(key) == node.id) owned.push_back(key);
      }
      entry["owned_keys"] = std::move(owned);
    }
    if (has_record) entry["record"] = NodeRecordToJson(state.records[index]);
    nodes.push_back(std::move(entry));
    changed.push_back(index);
  }
  json line = {{"journal_id", journal_id_},
               {"seq", seq_ + 1},
               {"run", RunStateHeaderToJson(state)},
               {"reference_time_s", state.tree.reference_time_s()},
               {"nodes", std::move(nodes)}};
  KOPT_RETURN_IF_ERROR(AppendLine(line.dump() + "\n"));
  ++seq_;
  for (size_t index : changed) {
    if (index < state.tree.nodes().size()) {
      if (index >= saved_nodes_.size()) saved_nodes_.resize(index + 1);
      saved_nodes_[index] = state.tree.nodes()[index];
    }
    if (index < state.records.size()) {
      if (index >= saved_records_.size()) saved_records_.resize(index + 1);
      saved_records_[index] = state.records[index];
    }
  }
  return Status::Ok();
}

Status RunStateStore::Compact(const RunState& state) {
  return WriteSnapshot(state);
}

Status RunStateStore::WriteSnapshot(const RunState& state) {
  need_snapshot_ = true;  // until the snapshot is in place and the journal empty
  std::error_code error;
  fs::create_directories(directory_, error);
  if (error) return Unavailable(fmt::format("cannot create {}: {}", directory_, error.message()));
  std::string id = NewJournalId();
  json document = RunStateToJson(state);
  document["journal_id"] = id;
  std::string text = document.dump(1);
  Status written = WriteFileAtomically(snapshot_path_, text);
  if (!written.ok()) return Unavailable(written.message());
  // The journal emptied only now: its lines (another id) are skipped until then.
  if (journal_fd_ >= 0) {
    if (::ftruncate(journal_fd_, 0) != 0) {
      return Unavailable(fmt::format("{}: cannot be emptied: {}", journal_path_, std::strerror(errno)));
    }
  } else {
    journal_fd_ = ::open(journal_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_TRUNC | O_CLOEXEC, 0644);
    if (journal_fd_ < 0) {
      return Unavailable(fmt::format("{}: cannot be written: {}", journal_path_, std::strerror(errno)));
    }
  }
  journal_id_ = std::move(id);
  seq_ = 0;
  journal_bytes_ = 0;
  snapshot_bytes_ = text.size();
  ++snapshots_written_;
  saved_nodes_ = state.tree.nodes();
  saved_records_ = state.records;
  need_snapshot_ = false;
  return Status::Ok();
}

Status RunStateStore::AppendLine(const std::string& line) {
  // One write(2) of the whole line with O_APPEND; a short write (a full
  // disk) is continued, and a failure leaves a torn tail that the next
  // Save's snapshot removes.
  size_t done = 0;
  while (done < line.size()) {
    ssize_t wrote = ::write(journal_fd_, line.data() + done, line.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      need_snapshot_ = true;
      return Unavailable(fmt::format("{}: cannot be appended to: {}", journal_path_,
                                     wrote < 0 ? std::strerror(errno) : "nothing written"));
    }
    done += static_cast<size_t>(wrote);
  }
  journal_bytes_ += line.size();
  return Status::Ok();
}

Result<RunState> LoadRunStateFiles(const std::string& workspace_directory, int64_t run_id,
                                   int64_t* lines_applied) {
  const std::string snapshot_path = (fs::path(workspace_directory) / RunStatePath(run_id)).string();
  const std::string journal_path = (fs::path(workspace_directory) / RunJournalPath(run_id)).string();
  std::error_code error;
  if (!fs::exists(snapshot_path, error)) {
    return NotFound(
        fmt::format("{}: run {} has no optimize state (is it a kopt bench run, or another "
                    "workspace? see --workspace)",
                    snapshot_path, run_id));
  }
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(snapshot_path));
  json document = json::parse(text, nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    return InvalidInput(snapshot_path + ": not valid JSON (the file is corrupted)");
  }
  const std::string journal_id = document.contains("journal_id") && document["journal_id"].is_string()
                                     ? document["journal_id"].get<std::string>()
                                     : "";
  document.erase("journal_id");
  int64_t seq = 0;
  bool journal_applied = false;
  if (!journal_id.empty() && fs::exists(journal_path, error)) {
    KOPT_ASSIGN_OR_RETURN(std::string journal, ReadWholeFile(journal_path));
    size_t line_number = 0;
    bool in_journal = false;  // past the lines of an earlier journal
    for (size_t start = 0; start < journal.size();) {
      const size_t end = journal.find('\n', start);
      if (end == std::string::npos) break;  // the torn tail of a write cut by a crash: not applied
      ++line_number;
      std::string_view text_line(journal.data() + start, end - start);
      start = end + 1;
      auto bad = [&](const std::string& why) {
        return InvalidInput(
            fmt::format("{} line {}: {} (the file is corrupted)", journal_path, line_number, why));
      };
      json line = json::parse(text_line, nullptr, false);
      if (line.is_discarded() || !line.is_object()) return bad("not valid JSON");
      if (!line.contains("journal_id") || !line["journal_id"].is_string() || !line.contains("seq") ||
          !line["seq"].is_number_integer()) {
        return bad("no journal_id or seq");
      }
      if (line["journal_id"].get<std::string>() != journal_id) {
        if (in_journal) return bad("a line of another journal after this snapshot's lines");
        continue;  // a line already in the snapshot (written before the compaction)
      }
      in_journal = true;
      const int64_t line_seq = line["seq"].get<int64_t>();
      if (line_seq != seq + 1) return bad(fmt::format("seq {} where {} was expected", line_seq, seq + 1));
      try {
        Status applied = ApplyLine(line, document);
        if (!applied.ok()) return bad(applied.message());
      } catch (const json::exception& exception) {
        return bad(exception.what());
      }
      seq = line_seq;
      journal_applied = true;
    }
  }
  if (lines_applied != nullptr) *lines_applied = seq;
  Result<RunState> state = RunStateFromJson(document);
  if (!state.ok()) {
    return InvalidInput(
        fmt::format("{}{}: {}", snapshot_path,
                    journal_applied ? fmt::format(" with {} lines of {}", seq, journal_path) : "",
                    state.status().message()));
  }
  return state;
}

}  // namespace kopt
