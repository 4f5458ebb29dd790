// The vocabulary of the search layer: how a node of the search tree was
// generated, what became of it, and what one evaluation of a candidate
// reports back to the tree (docs/search.md).
//
// Evaluation is what the loop's orchestrator (or the simulation driver)
// hands to SearchTree::Record once a candidate has been generated, compiled,
// verified and timed (or has failed at one of those steps). Times are SI
// seconds, energies joules, relative noise a fraction (0.02 = 2 %).
//
// Thread safety: plain values and pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kopt {

// How the generator produced a candidate from its parent.
enum class GenerationMode {
  kInitial,   // a first candidate written from the reference (children of the root; seeds)
  kRepair,    // a fix of a failed parent, given its compile/check/run failure or rejection text
  kOptimize,  // an improvement of a verified parent, given its feedback (findings)
};
std::string_view GenerationModeName(GenerationMode mode);  // "initial", "repair", "optimize"
std::optional<GenerationMode> ParseGenerationMode(std::string_view name);

// What became of a node. Every status but kPending is final.
enum class NodeStatus {
  kPending,         // created (AddChild); its evaluation has not finished
  kVerified,        // compiled, passed every check, timed
  kFailedGenerate,  // the generator returned no code
  kFailedCompile,   // did not compile (or lacked the entry point)
  kFailedCheck,     // wrong results
  kFailedRun,       // crash, hang, timeout, illegal address, out of memory
  kRejected,        // suspect (faster than the roofline floor) or an anti-cheat signal; never the best
  kDuplicate,       // same normalized source or binary as an earlier node (SearchTree::RecordDuplicate)
};
// "pending", "verified", "failed_generate", "failed_compile", "failed_check",
// "failed_run", "rejected", "duplicate".
std::string_view NodeStatusName(NodeStatus status);
std::optional<NodeStatus> ParseNodeStatus(std::string_view name);

// kFailedGenerate, kFailedCompile, kFailedCheck, kFailedRun and kRejected:
// the statuses whose children are repairs.
bool IsFailure(NodeStatus status);

// The result of evaluating one candidate.
struct Evaluation {
  // Any final status but kDuplicate (duplicates go through RecordDuplicate).
  // A result flagged suspect must arrive as kRejected (or be re-verified first).
  NodeStatus status = NodeStatus::kFailedGenerate;
  double time_s = 0;               // median kernel time, seconds; > 0 and finite when verified
  double time_noise_fraction = 0;  // measured relative spread of the time (e.g. relative stdev), >= 0
  // Measured dynamic energy per launch (NVML windows, idle power subtracted:
  // kopt-runner's dynamic_joules_per_launch), joules; nullopt when not
  // measured (energy off, NVML unavailable, the measurement failed).
  std::optional<double> energy_j;
  double energy_noise_fraction = 0;  // relative spread of the measured energy (window stdev / energy_j), >= 0
  // The proxy model's dynamic energy per launch (analysis/energy_model.h,
  // from the candidate's profile), joules; nullopt when not profiled or no
  // coefficients exist for the GPU. Never mixed with a measured value (reward.h).
  std::optional<double> predicted_energy_j;
  std::vector<std::string> transposition_keys;  // transposition_key.h; registered by Record
  std::string detail;                           // failure or rejection text (what a repair is given), or ""
};

}  // namespace kopt
