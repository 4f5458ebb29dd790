#include "analysis/tuning_role.h"

#include "core/enum_names.h"

namespace kopt {
namespace {

constexpr EnumNameTable<ParameterRole, 18> kRoleNames = {{
    {ParameterRole::kBlockSize, "block_size"},
    {ParameterRole::kItemsPerThread, "items_per_thread"},
    {ParameterRole::kVectorWidth, "vector_width"},
    {ParameterRole::kTileX, "tile_x"},
    {ParameterRole::kTileY, "tile_y"},
    {ParameterRole::kTileK, "tile_k"},
    {ParameterRole::kThreadTileX, "thread_tile_x"},
    {ParameterRole::kThreadTileY, "thread_tile_y"},
    {ParameterRole::kRowsPerBlock, "rows_per_block"},
    {ParameterRole::kUnroll, "unroll"},
    {ParameterRole::kStages, "stages"},
    {ParameterRole::kMinBlocksPerSm, "min_blocks_per_sm"},
    {ParameterRole::kSplitK, "split_k"},
    {ParameterRole::kPadding, "padding"},
    {ParameterRole::kFastMath, "fast_math"},
    {ParameterRole::kMaxRegisters, "max_registers"},
    {ParameterRole::kLoadCaching, "load_caching"},
    {ParameterRole::kOther, "other"},
}};

}  // namespace

std::string_view ParameterRoleName(ParameterRole role) {
  return EnumName(kRoleNames, role, "other");
}

std::optional<ParameterRole> ParseParameterRole(std::string_view name) {
  return EnumFromName(kRoleNames, name);
}

const std::vector<ParameterRole>& AllParameterRoles() {
  static const std::vector<ParameterRole> roles = [] {
    std::vector<ParameterRole> all;
    for (const auto& [role, name] : kRoleNames) all.push_back(role);
    return all;
  }();
  return roles;
}

std::string_view MoveDirectionName(MoveDirection direction) {
  return direction == MoveDirection::kIncrease ? "increase" : "decrease";
}

}  // namespace kopt
