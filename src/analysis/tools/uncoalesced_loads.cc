// uncoalesced_loads: global loads whose lanes touch more 32-byte sectors than
// the bytes they use need (strided or scattered reads); tools/uncoalesced_access.cc.
#include "analysis/tools/uncoalesced_access.h"

namespace kopt {

ToolDefinition UncoalescedLoadsTool() {
  static const GlobalAccessKind kKind{"ld",
                                      "load",
                                      InstructionClass::kGlobalLoad,
                                      "lts__t_sectors_srcunit_tex_op_read.sum",
                                      {"long_scoreboard", "lg_throttle"}};
  ToolDefinition tool = UncoalescedAccessTool(kKind);
  tool.id = "uncoalesced_loads";
  tool.title = "Uncoalesced global loads";
  tool.tuning_moves = {
      {"uncoalesced_loads",
       {{ParameterRole::kVectorWidth, MoveDirection::kIncrease}, {ParameterRole::kTileX, MoveDirection::kIncrease}, {ParameterRole::kPadding, MoveDirection::kIncrease}, {ParameterRole::kLoadCaching, MoveDirection::kIncrease}},
       "sectors fetched half empty: wider contiguous accesses per warp (or loads that bypass L1)"},
  };
  return tool;
}

}  // namespace kopt
