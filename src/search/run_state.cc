#include "search/run_state.h"

#include <fmt/format.h>

namespace kopt {
namespace {

using nlohmann::json;

constexpr const char* kSchema = "kopt.optimize.run";
constexpr int kSchemaVersion = 2;  // 2: the journal beside the snapshot (run_state_store.h)
constexpr int kOldestReadableVersion = 1;

json OptionalNumber(const std::optional<double>& value) {
  return value ? json(*value) : json(nullptr);
}

}  // namespace

json NodeRecordToJson(const NodeRecord& record) {
  return json{{"id", record.id},
              {"name", record.name},
              {"source_hash", record.source_hash},
              {"generator", record.generator},
              {"reason", record.reason},
              {"answer_id", record.answer_id},
              {"failure_kind", record.failure_kind},
              {"message", record.message},
              {"repair_text", record.repair_text},
              {"speedup", OptionalNumber(record.speedup)},
              {"energy_j", OptionalNumber(record.energy_j)},
              {"energy_total_j", OptionalNumber(record.energy_total_j)},
              {"energy_stdev_j", OptionalNumber(record.energy_stdev_j)},
              {"energy_mean_w", OptionalNumber(record.energy_mean_watts)},
              {"energy_idle_w", OptionalNumber(record.energy_idle_watts)},
              {"energy_note", record.energy_note},
              {"predicted_energy_j", OptionalNumber(record.predicted_energy_j)},
              {"energy_model", record.energy_model},
              {"suspect", record.suspect},
              {"device", record.device},
              {"generation_s", record.generation_seconds},
              {"compile_s", record.compile_seconds},
              {"measure_s", record.measure_seconds},
              {"profile_s", record.profile_seconds},
              {"llm_input_tokens", record.llm_input_tokens},
              {"llm_output_tokens", record.llm_output_tokens},
              {"llm_cost_usd", record.llm_cost_usd},
              {"prompt_ids", record.prompt_ids},
              {"stated_change", record.stated_change},
              {"source_lookups", record.source_lookups},
              {"profiled", record.profiled},
              {"bottleneck_class", record.bottleneck_class},
              {"top_finding", record.top_finding},
              {"finding_ids", record.finding_ids},
              {"feedback_text", record.feedback_text},
              {"profile_note", record.profile_note},
              {"change_text", record.change_text}};
}

namespace {

// Reads `key` of `object` into `out` when present; InvalidInput naming the
// field when it has the wrong type.
template <typename T>
Status Read(const json& object, const char* key, T& out, const std::string& where) {
  auto found = object.find(key);
  if (found == object.end() || found->is_null()) return Status::Ok();
  try {
    out = found->get<T>();
  } catch (const json::exception&) {
    return InvalidInput(fmt::format("{}.{}: unexpected type {}", where, key, found->type_name()));
  }
  return Status::Ok();
}

Status ReadOptional(const json& object, const char* key, std::optional<double>& out,
                    const std::string& where) {
  auto found = object.find(key);
  if (found == object.end() || found->is_null()) return Status::Ok();
  if (!found->is_number()) return InvalidInput(fmt::format("{}.{}: expected a number", where, key));
  out = found->get<double>();
  return Status::Ok();
}

Result<NodeRecord> RecordFromJson(const json& object, const std::string& where) {
  if (!object.is_object()) return InvalidInput(where + ": expected an object");
  NodeRecord record;
  KOPT_RETURN_IF_ERROR(Read(object, "id", record.id, where));
  KOPT_RETURN_IF_ERROR(Read(object, "name", record.name, where));
  KOPT_RETURN_IF_ERROR(Read(object, "source_hash", record.source_hash, where));
  KOPT_RETURN_IF_ERROR(Read(object, "generator", record.generator, where));
  KOPT_RETURN_IF_ERROR(Read(object, "reason", record.reason, where));
  KOPT_RETURN_IF_ERROR(Read(object, "answer_id", record.answer_id, where));
  KOPT_RETURN_IF_ERROR(Read(object, "failure_kind", record.failure_kind, where));
  KOPT_RETURN_IF_ERROR(Read(object, "message", record.message, where));
  KOPT_RETURN_IF_ERROR(Read(object, "repair_text", record.repair_text, where));
  KOPT_RETURN_IF_ERROR(ReadOptional(object, "speedup", record.speedup, where));
  KOPT_RETURN_IF_ERROR(ReadOptional(object, "energy_j", record.energy_j, where));
  KOPT_RETURN_IF_ERROR(ReadOptional(object, "energy_total_j", record.energy_total_j, where));
  KOPT_RETURN_IF_ERROR(ReadOptional(object, "energy_stdev_j", record.energy_stdev_j, where));
  KOPT_RETURN_IF_ERROR(ReadOptional(object, "energy_mean_w", record.energy_mean_watts, where));
  KOPT_RETURN_IF_ERROR(ReadOptional(object, "energy_idle_w", record.energy_idle_watts, where));
  KOPT_RETURN_IF_ERROR(Read(object, "energy_note", record.energy_note, where));
  KOPT_RETURN_IF_ERROR(ReadOptional(object, "predicted_energy_j", record.predicted_energy_j, where));
  KOPT_RETURN_IF_ERROR(Read(object, "energy_model", record.energy_model, where));
  KOPT_RETURN_IF_ERROR(Read(object, "suspect", record.suspect, where));
  KOPT_RETURN_IF_ERROR(Read(object, "device", record.device, where));
  KOPT_RETURN_IF_ERROR(Read(object, "generation_s", record.generation_seconds, where));
  KOPT_RETURN_IF_ERROR(Read(object, "compile_s", record.compile_seconds, where));
  KOPT_RETURN_IF_ERROR(Read(object, "measure_s", record.measure_seconds, where));
  KOPT_RETURN_IF_ERROR(Read(object, "profile_s", record.profile_seconds, where));
  KOPT_RETURN_IF_ERROR(Read(object, "llm_input_tokens", record.llm_input_tokens, where));
  KOPT_RETURN_IF_ERROR(Read(object, "llm_output_tokens", record.llm_output_tokens, where));
  KOPT_RETURN_IF_ERROR(Read(object, "llm_cost_usd", record.llm_cost_usd, where));
  KOPT_RETURN_IF_ERROR(Read(object, "prompt_ids", record.prompt_ids, where));
  KOPT_RETURN_IF_ERROR(Read(object, "stated_change", record.stated_change, where));
  KOPT_RETURN_IF_ERROR(Read(object, "source_lookups", record.source_lookups, where));
  KOPT_RETURN_IF_ERROR(Read(object, "profiled", record.profiled, where));
  KOPT_RETURN_IF_ERROR(Read(object, "bottleneck_class", record.bottleneck_class, where));
  KOPT_RETURN_IF_ERROR(Read(object, "top_finding", record.top_finding, where));
  KOPT_RETURN_IF_ERROR(Read(object, "finding_ids", record.finding_ids, where));
  KOPT_RETURN_IF_ERROR(Read(object, "feedback_text", record.feedback_text, where));
  KOPT_RETURN_IF_ERROR(Read(object, "profile_note", record.profile_note, where));
  KOPT_RETURN_IF_ERROR(Read(object, "change_text", record.change_text, where));
  return record;
}

json UsageToJson(const RunUsage& usage) {
  return json{{"evaluations", usage.evaluations},
              {"wall_s", usage.wall_seconds},
              {"gpu_s", usage.gpu_seconds},
              {"llm_input_tokens", usage.llm_input_tokens},
              {"llm_output_tokens", usage.llm_output_tokens},
              {"llm_cost_usd", usage.llm_cost_usd},
              {"llm_cost_known", usage.llm_cost_known}};
}

Status UsageFromJson(const json& object, RunUsage& usage) {
  const std::string where = "usage";
  if (!object.is_object()) return InvalidInput("usage: expected an object");
  KOPT_RETURN_IF_ERROR(Read(object, "evaluations", usage.evaluations, where));
  KOPT_RETURN_IF_ERROR(Read(object, "wall_s", usage.wall_seconds, where));
  KOPT_RETURN_IF_ERROR(Read(object, "gpu_s", usage.gpu_seconds, where));
  KOPT_RETURN_IF_ERROR(Read(object, "llm_input_tokens", usage.llm_input_tokens, where));
  KOPT_RETURN_IF_ERROR(Read(object, "llm_output_tokens", usage.llm_output_tokens, where));
  KOPT_RETURN_IF_ERROR(Read(object, "llm_cost_usd", usage.llm_cost_usd, where));
  KOPT_RETURN_IF_ERROR(Read(object, "llm_cost_known", usage.llm_cost_known, where));
  return Status::Ok();
}

Result<RunStatus> ParseRunStatus(std::string_view text) {
  for (RunStatus status :
       {RunStatus::kRunning, RunStatus::kFinished, RunStatus::kPaused, RunStatus::kFailed}) {
    if (text == RunStatusName(status)) return status;
  }
  return InvalidInput(
      fmt::format("status: \"{}\" is not a run status; expected running, finished, paused or "
                  "failed",
                  text));
}

}  // namespace

std::string_view RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kRunning: return "running";
    case RunStatus::kFinished: return "finished";
    case RunStatus::kPaused: return "paused";
    case RunStatus::kFailed: return "failed";
  }
  return "unknown";
}

std::string RunStatePath(int64_t run_id) {
  return fmt::format("runs/{}/optimize.json", run_id);
}

json RunStateToJson(const RunState& state) {
  json document = RunStateHeaderToJson(state);
  json records = json::array();
  for (const NodeRecord& record : state.records) records.push_back(NodeRecordToJson(record));
  document["tree"] = state.tree.ToJson();
  document["records"] = std::move(records);
  return document;
}

json RunStateHeaderToJson(const RunState& state) {
  return json{{"schema", kSchema},
              {"schema_version", kSchemaVersion},
              {"run_id", state.run_id},
              {"task", state.task},
              {"task_directory", state.task_directory},
              {"started", state.started},
              {"seed", state.seed},
              {"settings", state.settings},
              {"status", RunStatusName(state.status)},
              {"stop_reason", state.stop_reason},
              {"reference_time_s", state.reference_time_s},
              {"floor_s", state.floor_s},
              {"task_flops", state.task_flops},
              {"task_min_bytes", state.task_min_bytes},
              {"gpu", state.gpu},
              {"reference_class", state.reference_class},
              {"notes", state.notes},
              {"usage", UsageToJson(state.usage)}};
}

Result<RunState> RunStateFromJson(const json& json_state) {
  if (!json_state.is_object()) return InvalidInput("expected a JSON object");
  if (json_state.value("schema", "") != kSchema) {
    return InvalidInput(fmt::format("schema: expected \"{}\"", kSchema));
  }
  const json& version = json_state.value("schema_version", json(0));
  if (!version.is_number_integer() || version.get<int>() < kOldestReadableVersion ||
      version.get<int>() > kSchemaVersion) {
    return InvalidInput(
        fmt::format("schema_version: expected {} to {}, not {} (written by another kopt version?)",
                    kOldestReadableVersion, kSchemaVersion, version.dump()));
  }
  RunState state;
  const std::string where = "run";
  KOPT_RETURN_IF_ERROR(Read(json_state, "run_id", state.run_id, where));
  KOPT_RETURN_IF_ERROR(Read(json_state, "task", state.task, where));
  KOPT_RETURN_IF_ERROR(Read(json_state, "task_directory", state.task_directory, where));
  KOPT_RETURN_IF_ERROR(Read(json_state, "started", state.started, where));
  KOPT_RETURN_IF_ERROR(Read(json_state, "seed", state.seed, where));
  KOPT_RETURN_IF_ERROR(Read(json_state, "settings", state.settings, where));
  std::string status = "running";
  KOPT_RETURN_IF_ERROR(Read(json_state, "status", status, where));
  KOPT_ASSIGN_OR_RETURN(state.status, ParseRunStatus(status));
  KOPT_RETURN_IF_ERROR(Read(json_state, "stop_reason", state.stop_reason, where));
  KOPT_RETURN_IF_ERROR(Read(json_state, "reference_time_s", state.reference_time_s, where));
  KOPT_RETURN_IF_ERROR(Read(json_state, "floor_s", state.floor_s, where));
  KOPT_RETURN_IF_ERROR(Read(json_state, "task_flops", state.task_flops, where));
  KOPT_RETURN_IF_ERROR(Read(json_state, "task_min_bytes", state.task_min_bytes, where));
  KOPT_RETURN_IF_ERROR(Read(json_state, "gpu", state.gpu, where));
  KOPT_RETURN_IF_ERROR(Read(json_state, "reference_class", state.reference_class, where));
  KOPT_RETURN_IF_ERROR(Read(json_state, "notes", state.notes, where));
  if (json_state.contains("usage")) KOPT_RETURN_IF_ERROR(UsageFromJson(json_state["usage"], state.usage));
  if (!json_state.contains("tree")) return InvalidInput("tree: missing");
  Result<SearchTree> tree = SearchTree::FromJson(json_state["tree"]);
  if (!tree.ok()) return InvalidInput("tree: " + tree.status().message());
  state.tree = std::move(*tree);
  const json& records = json_state.value("records", json::array());
  if (!records.is_array()) return InvalidInput("records: expected an array");
  for (size_t index = 0; index < records.size(); ++index) {
    KOPT_ASSIGN_OR_RETURN(NodeRecord record,
                          RecordFromJson(records[index], fmt::format("records[{}]", index)));
    if (record.id != static_cast<NodeId>(index)) {
      return InvalidInput(fmt::format("records[{}].id: {} (expected the record's index)", index, record.id));
    }
    state.records.push_back(std::move(record));
  }
  if (static_cast<int64_t>(state.records.size()) != state.tree.size()) {
    return InvalidInput(
        fmt::format("records: {} records for {} tree nodes", state.records.size(), state.tree.size()));
  }
  return state;
}

}  // namespace kopt
