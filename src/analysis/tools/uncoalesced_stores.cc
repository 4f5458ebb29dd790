// uncoalesced_stores: global stores whose lanes touch more 32-byte sectors
// than the bytes they write need; tools/uncoalesced_access.cc.
#include "analysis/tools/uncoalesced_access.h"

namespace kopt {

ToolDefinition UncoalescedStoresTool() {
  static const GlobalAccessKind kKind{"st",
                                      "store",
                                      InstructionClass::kGlobalStore,
                                      "lts__t_sectors_srcunit_tex_op_write.sum",
                                      {"drain", "lg_throttle"}};
  ToolDefinition tool = UncoalescedAccessTool(kKind);
  tool.id = "uncoalesced_stores";
  tool.title = "Uncoalesced global stores";
  tool.tuning_moves = {
      {"uncoalesced_stores",
       {{ParameterRole::kVectorWidth, MoveDirection::kIncrease}, {ParameterRole::kTileX, MoveDirection::kIncrease}, {ParameterRole::kPadding, MoveDirection::kIncrease}},
       "sectors written half empty: wider contiguous stores per warp"},
  };
  return tool;
}

}  // namespace kopt
