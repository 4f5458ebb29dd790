// SearchTree's JSON form (search_tree.h): for resume and the report's tree.
#include <fmt/format.h>

#include "search/search_tree.h"

namespace kopt {
namespace {

constexpr int kTreeSchemaVersion = 1;
constexpr std::string_view kTreeSchemaName = "kopt.search_tree";

template <typename T>
nlohmann::json OptionalJson(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

template <typename T>
std::optional<T> OptionalFrom(const nlohmann::json& object, const char* key) {
  const nlohmann::json& value = object.at(key);
  if (value.is_null()) return std::nullopt;
  return value.get<T>();
}

nlohmann::json NodeJson(const SearchNode& node) {
  return {
      {"id", node.id},
      {"parent_id", OptionalJson(node.parent)},
      {"children_ids", node.children},
      {"mode", GenerationModeName(node.mode)},
      {"status", NodeStatusName(node.status)},
      {"note", node.note},
      {"time_s", node.time_s},
      {"time_noise_fraction", node.time_noise_fraction},
      {"energy_j", OptionalJson(node.energy_j)},
      {"energy_noise_fraction", node.energy_noise_fraction},
      {"predicted_energy_j", OptionalJson(node.predicted_energy_j)},
      {"detail", node.detail},
      {"reward_log_speedup", node.reward_log_speedup},
      {"record_sequence", node.record_sequence},
      {"visits", node.visits},
      {"subtree_value_log_speedup", node.subtree_value_log_speedup},
      {"best_in_subtree_id", OptionalJson(node.best_in_subtree)},
      {"expansions_since_improvement", node.expansions_since_improvement},
      {"pending_in_subtree", node.pending_in_subtree},
      {"closed", node.closed},
      {"close_reason", CloseReasonName(node.close_reason)},
      {"duplicate_of_id", OptionalJson(node.duplicate_of)},
      {"transposition_keys", node.transposition_keys},
  };
}

template <typename Enum>
Result<Enum> ParsedEnum(std::optional<Enum> parsed, const nlohmann::json& object, const char* key) {
  if (!parsed) return InvalidInput(fmt::format("unknown {} \"{}\"", key, object.at(key).get<std::string>()));
  return *parsed;
}

// Reads one node; nlohmann's exceptions (missing key, wrong type) are the caller's to catch.
Result<SearchNode> NodeFromJson(const nlohmann::json& object) {
  SearchNode node;
  node.id = object.at("id").get<NodeId>();
  node.parent = OptionalFrom<NodeId>(object, "parent_id");
  node.children = object.at("children_ids").get<std::vector<NodeId>>();
  KOPT_ASSIGN_OR_RETURN(
      node.mode, ParsedEnum(ParseGenerationMode(object.at("mode").get<std::string>()), object, "mode"));
  KOPT_ASSIGN_OR_RETURN(
      node.status, ParsedEnum(ParseNodeStatus(object.at("status").get<std::string>()), object, "status"));
  node.note = object.at("note").get<std::string>();
  node.time_s = object.at("time_s").get<double>();
  node.time_noise_fraction = object.at("time_noise_fraction").get<double>();
  node.energy_j = OptionalFrom<double>(object, "energy_j");
  // Absent from files written before energy noise was recorded: 0.
  node.energy_noise_fraction = object.value("energy_noise_fraction", 0.0);
  if (object.contains("predicted_energy_j"))
    node.predicted_energy_j = OptionalFrom<double>(object, "predicted_energy_j");
  node.detail = object.at("detail").get<std::string>();
  node.reward_log_speedup = object.at("reward_log_speedup").get<double>();
  node.record_sequence = object.at("record_sequence").get<int64_t>();
  node.visits = object.at("visits").get<int64_t>();
  node.subtree_value_log_speedup = object.at("subtree_value_log_speedup").get<double>();
  node.best_in_subtree = OptionalFrom<NodeId>(object, "best_in_subtree_id");
  node.expansions_since_improvement = object.at("expansions_since_improvement").get<int64_t>();
  node.pending_in_subtree = object.at("pending_in_subtree").get<int64_t>();
  node.closed = object.at("closed").get<bool>();
  KOPT_ASSIGN_OR_RETURN(
      node.close_reason,
      ParsedEnum(ParseCloseReason(object.at("close_reason").get<std::string>()), object, "close_reason"));
  node.duplicate_of = OptionalFrom<NodeId>(object, "duplicate_of_id");
  node.transposition_keys = object.at("transposition_keys").get<std::vector<std::string>>();
  return node;
}

bool ValidReference(const std::optional<NodeId>& id, int64_t size) {
  return !id || (*id >= 0 && *id < size);
}

// Structure: dense ids, parents before children, children lists matching the parents.
Status CheckStructure(const std::vector<SearchNode>& nodes) {
  int64_t size = static_cast<int64_t>(nodes.size());
  std::vector<std::vector<NodeId>> children(nodes.size());
  for (const SearchNode& node : nodes) {
    std::string where = fmt::format("node {}", node.id);
    if (node.id != static_cast<int64_t>(&node - nodes.data()))
      return InvalidInput(where + ": ids must be 0, 1, ...");
    if ((node.id == 0) != !node.parent) return InvalidInput(where + ": only node 0 (the root) has no parent");
    if (node.parent && (*node.parent < 0 || *node.parent >= node.id))
      return InvalidInput(where + ": bad parent_id");
    if (!ValidReference(node.best_in_subtree, size) || !ValidReference(node.duplicate_of, size)) {
      return InvalidInput(where + ": bad best_in_subtree_id or duplicate_of_id");
    }
    if (node.parent) children[static_cast<size_t>(*node.parent)].push_back(node.id);
  }
  for (const SearchNode& node : nodes) {
    if (node.children != children[static_cast<size_t>(node.id)]) {
      return InvalidInput(fmt::format("node {}: children_ids do not match the nodes' parent_id", node.id));
    }
  }
  return Status::Ok();
}

}  // namespace

nlohmann::json SearchTree::NodeToJson(const SearchNode& node) {
  return NodeJson(node);
}

nlohmann::json SearchTree::ToJson() const {
  nlohmann::json nodes = nlohmann::json::array();
  for (const SearchNode& node : nodes_) nodes.push_back(NodeJson(node));
  nlohmann::json owners = nlohmann::json::object();
  for (const auto& [key, owner] : key_owners_) owners[key] = owner;
  return {
      {"schema", kTreeSchemaName},
      {"schema_version", kTreeSchemaVersion},
      {"objective", ObjectiveName(objective_)},
      {"reference_time_s", reference_time_s_},
      {"nodes", std::move(nodes)},
      {"transposition_key_owners", std::move(owners)},
  };
}

Result<SearchTree> SearchTree::FromJson(const nlohmann::json& json) {
  auto fail = [](const std::string& message) { return InvalidInput("search tree JSON: " + message); };
  try {
    if (json.at("schema_version").get<int>() != kTreeSchemaVersion) {
      return fail(fmt::format("schema_version {} (this kopt reads {})", json.at("schema_version").dump(),
                              kTreeSchemaVersion));
    }
    std::optional<Objective> objective = ParseObjective(json.at("objective").get<std::string>());
    if (!objective) return fail("unknown objective " + json.at("objective").dump());
    SearchTree tree(*objective);
    tree.reference_time_s_ = json.at("reference_time_s").get<double>();
    for (const nlohmann::json& object : json.at("nodes")) {
      Result<SearchNode> node = NodeFromJson(object);
      if (!node.ok()) return fail(fmt::format("node {}: {}", tree.nodes_.size(), node.status().message()));
      tree.nodes_.push_back(std::move(node).value());
    }
    Status structure = CheckStructure(tree.nodes_);
    if (!structure.ok()) return fail(structure.message());
    for (const auto& [key, owner] : json.at("transposition_key_owners").items()) {
      if (!tree.Contains(owner.get<NodeId>())) return fail("transposition key " + key + " owned by no node");
      tree.key_owners_[key] = owner.get<NodeId>();
    }
    for (const SearchNode& node : tree.nodes_) {
      if (node.status == NodeStatus::kDuplicate) ++tree.duplicate_count_;
      if (!node.pending() && node.status != NodeStatus::kDuplicate) ++tree.evaluated_count_;
      tree.next_record_sequence_ = std::max(tree.next_record_sequence_, node.record_sequence + 1);
    }
    return tree;
  } catch (const nlohmann::json::exception& error) {
    return fail(error.what());
  }
}

}  // namespace kopt
