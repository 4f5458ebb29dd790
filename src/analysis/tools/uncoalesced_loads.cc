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
  return tool;
}

}  // namespace kopt
