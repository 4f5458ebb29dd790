// Test helpers of the suite layer: a temporary directory, task directories
// and run states written the way kopt optimize writes them.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "search/run_state.h"
#include "search/search_tree.h"

namespace kopt::suite {

class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kopt-suite-test.XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~ScratchDirectory() {
    std::error_code error;
    std::filesystem::remove_all(path_, error);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const {
    return (std::filesystem::path(path_) / name).string();
  }

 private:
  std::string path_;
};

inline void WriteText(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

inline void MakeTaskDirectory(const std::string& directory) {
  WriteText(directory + "/task.toml", "[task]\n");
}

// A finished run state: the reference at `reference_s`, then one child per
// time in `children_s` (0: a failed compile).
inline RunState MakeRunState(int64_t run_id, double reference_s, const std::vector<double>& children_s) {
  RunState state;
  state.run_id = run_id;
  state.task = "task";
  state.status = RunStatus::kFinished;
  NodeId root = *state.tree.AddRoot("reference");
  Evaluation reference;
  reference.status = NodeStatus::kVerified;
  reference.time_s = reference_s;
  (void)state.tree.Record(root, reference);
  state.reference_time_s = reference_s;
  NodeRecord root_record;
  root_record.name = "reference";
  state.records.push_back(root_record);
  for (double time_s : children_s) {
    NodeId child = *state.tree.AddChild(root, GenerationMode::kInitial, "");
    Evaluation evaluation;
    evaluation.status = time_s > 0 ? NodeStatus::kVerified : NodeStatus::kFailedCompile;
    evaluation.time_s = time_s;
    (void)state.tree.Record(child, evaluation);
    NodeRecord record;
    record.id = child;
    record.name = "n" + std::to_string(child);
    state.records.push_back(record);
    ++state.usage.evaluations;
  }
  state.usage.gpu_seconds = 1.5;
  state.usage.llm_input_tokens = 100;
  state.usage.llm_output_tokens = 20;
  state.usage.llm_cost_usd = 0.01;
  return state;
}

inline void WriteRunState(const std::string& workspace, const RunState& state) {
  WriteText(workspace + "/" + RunStatePath(state.run_id), RunStateToJson(state).dump());
}

}  // namespace kopt::suite
