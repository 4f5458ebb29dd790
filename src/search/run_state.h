// The persisted state of one `kopt optimize` run: the search tree plus what
// the tree does not hold about each node (its source, how it was generated,
// how its measurement ended, the feedback its children were shown), the
// budget spent, and the benchmarking agent's findings about the task.
//
// Stored as runs/<run>/optimize.json (a snapshot) plus runs/<run>/
// optimize.journal (what changed since, one line per recorded step) in the
// workspace: search/run_state_store.h writes and reads them. Each node's
// source is in candidates/<hash>.cu and its exchange (prompt, answer,
// compiler text, feedback) under runs/<run>/nodes/.
// JSON: {"schema": "kopt.optimize.run", "schema_version": 2, ...}; every
// number's unit is in its key. Version 2 (the journal beside it) reads
// version 1 files too (a snapshot with no journal).
//
// Thread safety: values; the loop guards its state with a mutex.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "search/search_tree.h"

namespace kopt {

// What the run knows about one node beyond the tree.
struct NodeRecord {
  NodeId id = 0;
  std::string name;          // "reference", "seed:<file stem>", "n7"
  std::string source_hash;   // SHA-256 of its source ("" when generation produced none)
  std::string generator;     // "reference", "seed", "scripted", "llm", "builtin"
  std::string reason;        // what the generator says motivated it
  std::string answer_id;     // the generator's own id of the answer (scripted: its file), for resume
  std::string failure_kind;  // protocol name of the measurement failure ("compile_error", ...), "" when none
  std::string message;       // one line: the verdict's message
  std::string repair_text;   // what a repair child is told (compiler output / failure), bounded
  std::optional<double> speedup;  // over the reference (ratio)
  // Energy per launch (docs/energy.md "Energy in optimize"): measured by
  // NVML when the run asked for energy (J; watts for powers), predicted by
  // the proxy model once the node was profiled and the GPU has coefficients.
  std::optional<double> energy_j;           // measured dynamic (idle subtracted)
  std::optional<double> energy_total_j;     // measured total (the counter's joules / launches)
  std::optional<double> energy_stdev_j;     // spread of the total over the windows
  std::optional<double> energy_mean_watts;  // average power over the windows
  std::optional<double> energy_idle_watts;  // idle power measured before them
  std::string energy_note;  // why there is no measured energy although the run asked ("" otherwise)
  std::optional<double> predicted_energy_j;  // the proxy model's dynamic energy
  std::string energy_model;  // the coefficients' source ("built-in: NVIDIA H200 ...") of the prediction
  bool suspect = false;      // flagged below the roofline floor (then rejected)
  int device = -1;           // CUDA ordinal it was measured on (-1: not measured)
  double generation_seconds = 0;
  double compile_seconds = 0;
  double measure_seconds = 0;  // kopt-runner child wall time (s)
  double profile_seconds = 0;
  int64_t llm_input_tokens = 0;
  int64_t llm_output_tokens = 0;
  double llm_cost_usd = 0;
  std::vector<std::string> prompt_ids;  // "programmer/optimize_user v1 <sha256>"
  // What an LLM answer said it changed (its first sentence before the code; "" when none).
  std::string stated_change;
  // The source-search lookups (CUTLASS/CuTe tree) that led to the answer.
  std::vector<std::string> source_lookups;
  // Profiling (lazily, before the node's first optimize child).
  bool profiled = false;
  std::string bottleneck_class;  // stage-1 class of its profile ("memory-bound", ...), "" when unknown
  std::string top_finding;       // id of the top finding ("" when none)
  std::vector<std::string> finding_ids;  // every finding's id, ranked (the builtin generator's moves)
  std::string feedback_text;             // what its optimize children are shown (FeedbackMode)
  std::string profile_note;              // why there is no profile, when there is none
  // What this node's change did: the profile diff against its parent's
  // profile (report/comparison_renderer.h ComparisonDigest), when both were
  // profiled; its optimize children are shown it.
  std::string change_text;

  bool operator==(const NodeRecord&) const = default;
};

// Resources a run has used (resumed runs continue the counts).
struct RunUsage {
  int64_t evaluations = 0;  // nodes evaluated (the reference not counted)
  double wall_seconds = 0;
  double gpu_seconds = 0;
  int64_t llm_input_tokens = 0;
  int64_t llm_output_tokens = 0;
  double llm_cost_usd = 0;
  bool llm_cost_known = true;  // false when some call's model was not priced
};

enum class RunStatus { kRunning, kFinished, kPaused, kFailed };
std::string_view RunStatusName(RunStatus status);  // "running", "finished", "paused", "failed"

struct RunState {
  int64_t run_id = 0;
  std::string task;
  std::string task_directory;
  std::string started;                                 // ISO-8601 UTC
  uint64_t seed = 0;                                   // the run's seed (given or drawn)
  nlohmann::json settings = nlohmann::json::object();  // what the run was asked (no secrets)
  SearchTree tree;
  std::vector<NodeRecord> records;  // index = node id
  RunUsage usage;
  RunStatus status = RunStatus::kRunning;
  std::string stop_reason;  // "max_evaluations", "search exhausted", "paused: ...", ...
  // The benchmarking agent (once per task).
  double reference_time_s = 0;
  double floor_s = 0;  // roofline floor of the task on the GPU (s; 0: unknown)
  double task_flops = 0;
  double task_min_bytes = 0;
  std::string gpu;
  std::string reference_class;  // stage-1 class of the reference's profile ("" when not profiled)
  std::vector<std::string> notes;

  NodeRecord& record(NodeId id) { return records.at(static_cast<size_t>(id)); }
  const NodeRecord& record(NodeId id) const { return records.at(static_cast<size_t>(id)); }
};

nlohmann::json RunStateToJson(const RunState& state);
// The parts of RunStateToJson: every top-level field but "tree" and
// "records" (schema, settings, status, usage, notes, ...), and one element
// of "records". RunStateToJson = the header + "tree" + "records".
nlohmann::json RunStateHeaderToJson(const RunState& state);
nlohmann::json NodeRecordToJson(const NodeRecord& record);
// InvalidInput naming the field for a malformed document (a corrupted or
// hand-edited file), or a schema other than kopt.optimize.run version 1 or 2.
Result<RunState> RunStateFromJson(const nlohmann::json& json);

// runs/<id>/optimize.json, relative to the workspace directory.
std::string RunStatePath(int64_t run_id);

}  // namespace kopt
