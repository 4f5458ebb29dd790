// Dependency stalls moved to the instruction they wait for. ncu's source page
// counts a warp-stall sample at the instruction the warp could not issue; for a
// scoreboard stall that is the consumer of a result, not its producer: the
// FFMA that reads the value an uncoalesced LDG loads holds the samples, the LDG
// almost none. This follows the registers back: the stalled instruction's
// source and address registers, each to the nearest earlier instruction of
// the page that writes it (program order; not across a loop's back edge).
//
// Rules (the scoreboards of NVIDIA's stall reasons, ncu's "Warp State" docs):
//  - stall_long_sb (waiting for an L1TEX result) goes to a producer that is a
//    global, local or generic load, or a global atomic with a result;
//  - stall_short_sb (waiting for an MIO result) goes to a shared-memory load or
//    atomic, a MUFU, or an S2R/SHFL;
//  - samples of other reasons stay where they are; a consumer waiting on
//    several such producers splits its samples evenly among them; with no such
//    producer found the samples stay where they are.
//
// Thread safety: pure functions over values.
#pragma once

#include <cstddef>
#include <vector>

#include "profile/ncu_source_page.h"

namespace kopt {

// One row's share of the moved samples, by row index of the page.
struct DependencyStalls {
  static constexpr size_t kNone = static_cast<size_t>(-1);
  // Samples of other rows that wait for this row's result (0 for most rows).
  std::vector<double> waiting_samples;
  // The row with the most samples waiting for this one, or kNone.
  std::vector<size_t> main_waiter;
  // Samples that moved away from this row to its producers.
  std::vector<double> moved_samples;

  // The row's samples after the move: its own, less what moved away, plus what waits for it.
  double AttributedSamples(const SourcePage& page, size_t row) const;
};

DependencyStalls AttributeDependencyStalls(const SourcePage& page);

}  // namespace kopt
