// A task's PyTorch baselines (docs/suite.md "Baselines"): the `kopt.baselines`
// document (version 1) in a task's directory, baselines.json, written by
// `bench/kernelbench_baselines.py --task-baselines` on the GPU:
//   {"schema": "kopt.baselines", "schema_version": 1, "gpu": "NVIDIA H100 ...",
//    "baselines": [{"name": "eager", "time_s": 2.8e-3, "peak_memory_bytes": 1048576},
//                  {"name": "tf32", "time_s": ...},
//                  {"name": "torch_compile", "note": "compile failed: ..."}]}
// Each time is the median time of one call of the PyTorch model, in seconds,
// timed by kopt's protocol on the GPU named. Names other than the three are
// ignored (a later version may add some); a baseline absent or without a
// time is "not measured" with its note, never a guess.
//
// Thread safety: values and pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace kopt {

enum class PytorchBaseline { kEager, kTf32, kTorchCompile };
inline constexpr std::array<PytorchBaseline, 3> kPytorchBaselines = {
    PytorchBaseline::kEager, PytorchBaseline::kTf32, PytorchBaseline::kTorchCompile};
// "eager", "tf32", "torch_compile": the document's names.
std::string_view PytorchBaselineName(PytorchBaseline baseline);
// "eager", "TF32", "torch.compile": short column titles.
std::string_view PytorchBaselineTitle(PytorchBaseline baseline);

struct TaskBaseline {
  std::optional<double> time_s;              // > 0 and finite when measured
  std::optional<int64_t> peak_memory_bytes;  // >= 0 when recorded
  std::string note = "not measured";         // why there is no time; empty when measured
};

struct TaskBaselines {
  std::string path;  // the document's path, for messages
  std::string gpu;   // the GPU they were measured on; may be empty
  std::array<TaskBaseline, kPytorchBaselines.size()> baselines;  // kPytorchBaselines order
  const TaskBaseline& Get(PytorchBaseline baseline) const { return baselines[static_cast<size_t>(baseline)]; }
};

// Parses a kopt.baselines document. InvalidInput naming `path` and the field
// for anything else (not JSON, another schema or version, a time that is not
// a positive number, an entry without a name).
Result<TaskBaselines> ParseTaskBaselines(std::string_view text, const std::string& path);

// DIRECTORY/baselines.json; nullopt when there is none. Errors as above.
Result<std::optional<TaskBaselines>> ReadTaskBaselines(const std::string& directory);

}  // namespace kopt
