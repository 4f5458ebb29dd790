// The energy part of a `kopt optimize` report (report/optimize_renderer.h;
// docs/energy.md "Energy in optimize"): each node's energy per launch,
// measured (NVML, dynamic = above idle) and/or predicted (the proxy model),
// always labelled which; and which rule of the lexicographic reward
// (search/reward.h) picked the best over the runner-up.
//
// Shown when the run's objective is time+energy, it measured energy, or some
// node has a prediction; a time-only run without energy renders as before.
//
// Units: joules with SI prefixes ("9.87 mJ"), relative noise in percent;
// JSON quantities {"value", "unit"}.
// Thread safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "search/run_state.h"

namespace kopt {

bool EnergyShown(const RunState& state);

// "9.87 mJ ±0.4 %" (measured dynamic), "~10.1 mJ predicted", "9.87 mJ (predicted 10.1 mJ)",
// "-" when neither; verified nodes only ("-" otherwise).
std::string NodeEnergyText(const RunState& state, NodeId node);

// The best node's energy against the reference's: "n6: 9.87 mJ ±0.4 %
// dynamic per launch (measured), the reference 11.2 mJ (-11.9 %)"; says
// "not measured: <why>" and shows a prediction, labelled, when that is all.
std::string BestEnergyText(const RunState& state);

// One sentence: which rule picked the best and the numbers it compared, e.g.
// "measured dynamic energy: n6 and n3 run within each other's noise (57.1 µs
// ±0.6 %, 57.3 µs ±0.8 %); n6 uses 9.87 mJ per launch, n3 11.0 mJ (-10.3 %)".
// "" when nothing is verified.
std::string BestChoiceText(const RunState& state);

// {"objective", "chosen_by": {"rule", "best", "runner_up", "text"},
//  "nodes": [{"node", "measured_dynamic", "measured_noise", "measured_total",
//  "mean_power", "idle_power", "predicted_dynamic", "model", "note"}]}
// (absent values null) for every verified node.
nlohmann::json EnergyReportJson(const RunState& state);

}  // namespace kopt
