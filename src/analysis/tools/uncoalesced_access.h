// Uncoalesced global accesses: the analysis uncoalesced_loads.cc and
// uncoalesced_stores.cc share, parameterized by the kind of access. The waste
// is 1 − bytes per sector / 32 of each fetched sector; the gain is the largest
// of the traffic terms (the removable share of L2 and DRAM traffic × how busy
// each level is) and the latency term (the stalls the excess sectors lengthen
// × the SM active share), as ncu's MemoryCacheAccessPattern rule weighs its own.
#pragma once

#include <string>
#include <vector>

#include "analysis/tool.h"

namespace kopt {

// What differs between the load and the store tool.
struct GlobalAccessKind {
  std::string op;    // "ld" or "st"
  std::string noun;  // "load" or "store"
  InstructionClass instruction_class;
  std::string l2_sectors_metric;           // this op's share of the L2 traffic from the SMs
  std::vector<std::string> stall_reasons;  // stalls the excess sectors lengthen
};

// The declaration of the tool for `kind` (which must outlive it) without id and title.
ToolDefinition UncoalescedAccessTool(const GlobalAccessKind& kind);

}  // namespace kopt
