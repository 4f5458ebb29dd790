// The builtin generator (`--generator builtin`, docs/tuning.md): tunes a
// tunable seed candidate (harness/tuning_space.h) without an LLM. Each
// candidate it returns is one configuration of the seed's space,
// materialized as a whole source (the `#define` prelude), so every other
// part of the loop treats it as any candidate.
//
// Per request mode:
//   kInitial   the default configuration first; later initial requests get
//              random restarts (kExhaustive: the next in enumeration order).
//   kOptimize  the parent's configuration (read back from its prelude)
//              moved as its findings say (GenerationRequest::finding_ids,
//              top finding first, through agents/tuning_moves.h), then its
//              neighbours (one value step in one parameter, then two), then
//              random restarts. Between the findings' moves and the
//              neighbours come momentum moves: when the parent was itself
//              derived from a verified configuration and is faster than it
//              (GenerationRequest::parent_time_seconds of both), each
//              parameter that changed takes one more step the same way.
//              Under GenerationRequest::objective kTimeEnergy, energy moves
//              come right after the findings' moves (before momentum): each
//              fast_math parameter one value step up, then two, when
//              settings.fast_math allows (agents/energy_moves.h), even
//              when no finding asks for them (kGuided only); and among the
//              neighbours, those that step a fast_math parameter back down
//              come last (time first: the other knobs' neighbours before
//              giving an energy saving back).
//   kRepair    a step back from the failed configuration toward the
//              verified configuration it was derived from (one value index
//              per differing parameter), then that configuration's
//              neighbours, then random restarts.
// Nothing is served twice (a served configuration is skipped; a resumed run
// tells MarkServed what was served before: origins and times of nodes served
// before the stop are not restored, so their repairs step back toward the
// default and their children get no momentum); kExhausted once every valid
// configuration was served. Every candidate's `reason` names what motivated
// it ("tail_effect: ITEMS 8→4 (items_per_thread, decrease)", "neighbour",
// "random restart", "repair: ..."); `answer_id` is the configuration's key.
//
// The orderings are the simulation's ablations: kGuided (above), kUnguided
// (the same moves and neighbours in a random order, findings ignored),
// kRandomSearch (uniform sampling without replacement) and kExhaustive
// (enumeration order).
//
// Determinism: the randomness of a request is seeded by (seed, node id); with
// the same requests in the same order the same candidates come back.
// Thread safety: Generate and MarkServed may be called from several threads
// (one mutex).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>

#include "agents/candidate_generator.h"
#include "agents/energy_moves.h"
#include "harness/tuning_space.h"

namespace kopt::agents {

enum class MoveOrdering { kGuided, kUnguided, kRandomSearch, kExhaustive };
std::string_view MoveOrderingName(MoveOrdering ordering);  // "guided", "unguided", "random", "exhaustive"
Result<MoveOrdering> ParseMoveOrdering(std::string_view name);

struct BuiltinGeneratorSettings {
  MoveOrdering ordering = MoveOrdering::kGuided;
  uint64_t seed = 0;
  // Whether the task's tolerance admits the fast paths (agents/energy_moves.h
  // FastMathAllowedBy); decides the energy moves under time+energy.
  FastMathAllowance fast_math = {false, "the task's tolerance was not given to the generator"};
  // How many of the moves that follow the served one go out as
  // GeneratedCandidate::compile_ahead (0: none). The GEMM path (slow CUTLASS
  // compiles) sets it; the moves are those of the same request, in order.
  size_t compile_ahead = 0;
};

class BuiltinGenerator final : public CandidateGenerator {
 public:
  BuiltinGenerator(TuningSpace space, BuiltinGeneratorSettings settings);

  GeneratorKind kind() const override { return GeneratorKind::kBuiltin; }
  Result<GeneratedCandidate> Generate(const GenerationRequest& request) override;
  // `answer_id` is a configuration key; anything else is ignored.
  void MarkServed(const std::string& answer_id) override;

  const TuningSpace& space() const { return space_; }
  // The configuration a source of this space carries, or nullopt.
  std::optional<Configuration> ConfigurationOf(std::string_view source) const;

 private:
  struct Move {
    Configuration configuration;
    std::string reason;
  };
  // Marks the move served, remembers the node's origin, returns the candidate.
  GeneratedCandidate Serve(const GenerationRequest& request, const std::optional<Configuration>& parent,
                           const Move& move);
  std::vector<Move> InitialMoves(const GenerationRequest& request, std::mt19937_64& generator) const;
  std::vector<Move> OptimizeMoves(const GenerationRequest& request, std::mt19937_64& generator) const;
  std::vector<Move> RepairMoves(const GenerationRequest& request, std::mt19937_64& generator) const;
  std::vector<Move> FindingMoves(const Configuration& from, const std::vector<std::string>& findings) const;
  std::vector<Move> EnergyMoves(const Configuration& from) const;
  // True when `to` has a fast_math parameter at a lower value than `from`.
  bool LowersFastMath(const Configuration& from, const Configuration& to) const;
  std::vector<Move> MomentumMoves(const GenerationRequest& request, const Configuration& from) const;
  std::vector<Move> NeighbourMoves(const Configuration& from, std::string_view label) const;
  std::optional<Move> RandomMove(std::mt19937_64& generator) const;
  std::optional<Move> NextInEnumeration() const;
  bool Served(const Configuration& configuration) const;

  TuningSpace space_;
  BuiltinGeneratorSettings settings_;
  mutable std::mutex mutex_;
  std::set<std::string> served_;                // configuration keys
  std::map<int64_t, Configuration> origin_of_;  // node → the verified configuration it was derived from
  std::map<int64_t, int64_t> origin_node_of_;   // node → the verified node it was derived from (kOptimize)
  std::map<int64_t, double> time_of_;           // node → its time, once it was a parent (seconds)
  uint64_t valid_count_ = 0;                    // valid configurations (0: not counted: too many)
};

// A candidate file offered as the seed of the tuner (a seed given on the
// command line, or TASK/tunable/*.cu).
struct TunableSeed {
  std::string path;
  std::string source;
};

// The generator over the first seed that declares parameters (kopt:tune).
// InvalidInput when none does ("builtin generator: no tunable candidate
// ..."), or with the first declaration error of a seed that declares
// parameters but does not parse (file, line and parameter).
Result<std::unique_ptr<BuiltinGenerator>> MakeBuiltinGenerator(const std::vector<TunableSeed>& seeds,
                                                               const ScalarValues& scalars,
                                                               BuiltinGeneratorSettings settings);

}  // namespace kopt::agents
