// The vocabulary shared by micro-profiling tools and the builtin tuner
// (docs/tuning.md "Moves"): what a tunable parameter of a candidate controls
// (its role), and which way a tool's recommendation moves a parameter of a
// role. A tool declares its moves (ToolDefinition::tuning_moves, analysis/tool.h);
// a candidate declares its parameters' roles (harness/tunable_declarations.h).
//
// Thread safety: values and pure functions.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace kopt {

// What a parameter controls; decides which moves act on it.
enum class ParameterRole {
  kBlockSize,       // threads per block
  kItemsPerThread,  // elements each thread handles (grid-stride or unrolled)
  kVectorWidth,     // elements per vector load/store (1, 2, 4, 8)
  kTileX,           // block tile, fastest dimension (columns, N)
  kTileY,           // block tile, second dimension (rows, M)
  kTileK,           // reduction-dimension tile (K)
  kThreadTileX,     // register tile per thread, columns
  kThreadTileY,     // register tile per thread, rows
  kRowsPerBlock,    // rows (or segments) one block handles
  kUnroll,          // loop unroll factor
  kStages,          // software-pipeline stages (buffers in flight)
  kMinBlocksPerSm,  // __launch_bounds__ minimum blocks per SM (caps registers)
  kSplitK,          // split of the reduction dimension across blocks
  kPadding,         // shared-memory padding (bank conflicts)
  kFastMath,        // compile flag: approximate math (-use_fast_math, -prec-div=false, ...): 0 off, 1 on
  kMaxRegisters,    // compile flag: -maxrregcount=N (larger: fewer spills; smaller: more residency)
  kLoadCaching,     // compile flag: global loads bypass L1 (-Xptxas -dlcm=cg): 0 off, 1 on
  kOther,           // anything else (no guided move acts on it)
};
// "block_size", "items_per_thread", "vector_width", "tile_x", "tile_y",
// "tile_k", "thread_tile_x", "thread_tile_y", "rows_per_block", "unroll",
// "stages", "min_blocks_per_sm", "split_k", "padding", "fast_math",
// "max_registers", "load_caching", "other".
std::string_view ParameterRoleName(ParameterRole role);
std::optional<ParameterRole> ParseParameterRole(std::string_view name);
const std::vector<ParameterRole>& AllParameterRoles();

enum class MoveDirection { kIncrease, kDecrease };
std::string_view MoveDirectionName(MoveDirection direction);  // "increase", "decrease"

struct RoleMove {
  ParameterRole role = ParameterRole::kOther;
  MoveDirection direction = MoveDirection::kIncrease;
};

// The moves one finding id's recommendation makes, in priority order, and why
// (one line, shown by `kopt rules` and docs/tuning.md).
struct FindingTuningMoves {
  std::string_view finding_id;  // the tool's id or one of its finding_ids
  std::vector<RoleMove> moves;
  std::string_view rationale;
};

}  // namespace kopt
