// Speedups against a task's PyTorch baselines (harness/task_baselines.h), as
// `kopt bench` and `kopt optimize` show them: each ratio is the baseline's
// time over the candidate's, in the kPytorchBaselines order (eager first:
// for an imported KernelBench task the reference is the bridge to PyTorch,
// never the ratio to quote).
//
// Thread safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/task_baselines.h"

namespace kopt {

// baseline time / time_s; nullopt when either is unknown or not positive.
std::optional<double> SpeedupAgainst(const TaskBaseline& baseline, std::optional<double> time_s);

// {"eager": {"value": r, "unit": "ratio"}|null, "tf32": ..., "torch_compile": ...};
// null JSON without baselines.
nlohmann::json SpeedupsAgainstJson(const std::optional<TaskBaselines>& baselines,
                                   std::optional<double> time_s);

// {"path", "gpu", "baselines": [{"name", "time": {"value", "unit": "s"}|null,
// "peak_memory": {"value", "unit": "byte"}|null, "note"}]}; null JSON without baselines.
nlohmann::json PytorchBaselinesJson(const std::optional<TaskBaselines>& baselines);

// "PyTorch baselines (PATH, measured on GPU): eager 150 µs, TF32 100 µs,
// torch.compile not measured (why)", and a note when `run_gpu` is another GPU.
std::vector<std::string> PytorchBaselineLines(const TaskBaselines& baselines, const std::string& run_gpu);

// "3.00x vs eager, 2.00x vs TF32, torch.compile not measured".
std::string SpeedupsAgainstText(const TaskBaselines& baselines, std::optional<double> time_s);

}  // namespace kopt
