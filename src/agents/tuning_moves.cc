#include "agents/tuning_moves.h"

#include <algorithm>

namespace kopt::agents {
namespace {

using R = ParameterRole;
constexpr MoveDirection kUp = MoveDirection::kIncrease;
constexpr MoveDirection kDown = MoveDirection::kDecrease;

std::vector<FindingMoves> BuildTable() {
  std::vector<FindingMoves> table = {
      {"achieved_occupancy_gap",
       {{R::kBlockSize, kDown}, {R::kRowsPerBlock, kDown}, {R::kItemsPerThread, kDown}},
       "resident warps fall short of the theoretical occupancy: smaller blocks even out the SMs"},
      {"atomic_contention",
       {{R::kItemsPerThread, kUp}, {R::kRowsPerBlock, kUp}, {R::kBlockSize, kUp}},
       "fewer atomics on the same address: more work reduced locally before each atomic"},
      {"barrier_stalls",
       {{R::kBlockSize, kDown}, {R::kTileK, kUp}, {R::kStages, kUp}},
       "fewer threads wait at each __syncthreads, and fewer barriers per unit of work"},
      {"launch_overhead",
       {{R::kItemsPerThread, kUp}, {R::kRowsPerBlock, kUp}, {R::kVectorWidth, kUp}},
       "a kernel this short is dominated by launch cost: more work per launch"},
      {"local_memory_spills",
       {{R::kThreadTileX, kDown},
        {R::kThreadTileY, kDown},
        {R::kUnroll, kDown},
        {R::kItemsPerThread, kDown},
        {R::kMinBlocksPerSm, kDown}},
       "registers spill to local memory: a smaller per-thread footprint, or a looser register cap"},
      {"low_occupancy_block_size",
       {{R::kBlockSize, kUp}, {R::kRowsPerBlock, kUp}},
       "the warp limit leaves slots empty: a block size whose warps divide the SM's slots"},
      {"low_occupancy_blocks",
       {{R::kBlockSize, kUp}, {R::kRowsPerBlock, kUp}},
       "the blocks-per-SM limit binds: larger blocks fill the warp slots"},
      {"low_occupancy_registers",
       {{R::kMinBlocksPerSm, kUp},
        {R::kThreadTileX, kDown},
        {R::kThreadTileY, kDown},
        {R::kItemsPerThread, kDown},
        {R::kUnroll, kDown}},
       "registers per thread limit residency: launch bounds or a smaller per-thread tile"},
      {"low_occupancy_shared_memory",
       {{R::kStages, kDown},
        {R::kTileK, kDown},
        {R::kTileX, kDown},
        {R::kTileY, kDown},
        {R::kPadding, kDown}},
       "shared memory per block limits residency: smaller tiles or fewer stages"},
      {"memory_latency_low_mlp",
       {{R::kVectorWidth, kUp},
        {R::kItemsPerThread, kUp},
        {R::kStages, kUp},
        {R::kUnroll, kUp},
        {R::kRowsPerBlock, kUp}},
       "too few loads in flight to hide DRAM latency: wider vectors, more independent items, more stages"},
      {"shared_bank_conflicts",
       {{R::kPadding, kUp}, {R::kVectorWidth, kDown}},
       "threads of a warp hit the same bank: pad the shared tile"},
      {"sm_load_imbalance",
       {{R::kItemsPerThread, kDown}, {R::kRowsPerBlock, kDown}, {R::kBlockSize, kDown}, {R::kSplitK, kUp}},
       "some SMs finish early: more, smaller pieces of work"},
      {"tail_effect",
       {{R::kItemsPerThread, kDown},
        {R::kRowsPerBlock, kDown},
        {R::kTileX, kDown},
        {R::kTileY, kDown},
        {R::kSplitK, kUp},
        {R::kBlockSize, kDown}},
       "the last wave of blocks leaves SMs idle: more, smaller blocks (or split the reduction)"},
      {"uncoalesced_loads",
       {{R::kVectorWidth, kUp}, {R::kTileX, kUp}, {R::kPadding, kUp}},
       "sectors fetched half empty: wider contiguous accesses per warp"},
      {"uncoalesced_stores",
       {{R::kVectorWidth, kUp}, {R::kTileX, kUp}, {R::kPadding, kUp}},
       "sectors written half empty: wider contiguous stores per warp"},
      {"warp_divergence",
       {{R::kRowsPerBlock, kUp}, {R::kVectorWidth, kDown}},
       "lanes idle in divergent tails: whole rows per warp leave fewer partial warps"},
  };
  std::sort(table.begin(), table.end(),
            [](const FindingMoves& a, const FindingMoves& b) { return a.tool < b.tool; });
  return table;
}

}  // namespace

std::string_view MoveDirectionName(MoveDirection direction) {
  return direction == MoveDirection::kIncrease ? "increase" : "decrease";
}

const std::vector<FindingMoves>& MoveTable() {
  static const std::vector<FindingMoves> table = BuildTable();
  return table;
}

const std::vector<RoleMove>& MovesForFinding(std::string_view tool) {
  static const std::vector<RoleMove> none;
  for (const FindingMoves& row : MoveTable()) {
    if (row.tool == tool) return row.moves;
  }
  return none;
}

}  // namespace kopt::agents
