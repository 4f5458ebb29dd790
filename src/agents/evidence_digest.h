// The evidence digest: the compact, deterministic text an LLM receives to
// explain a diagnosis, and the matching EvidenceSet its numbers are checked
// against (agents/number_check.h).
//
// The digest lists, per kernel (at most kMaxDigestKernels): the kernel and
// its launch configuration, the stage-1 numbers with units, the warp-stall
// breakdown, the findings in rank order with their evidence rows, root cause,
// recommendations and locations, the hottest SASS instructions of the ncu
// source page, and the kernel source (numbered) when given. Same inputs, same
// bytes.
//
// Every number the digest prints is in the EvidenceSet: the structured values
// at full precision (stage 1, launch configuration, evidence rows and their
// thresholds, gains, stall shares, source lines, SASS offsets, the GPU spec
// row), then every number of every digest line (labelled with the line).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "agents/number_check.h"
#include "analysis/diagnosis.h"
#include "profile/profile.h"

namespace kopt::agents {

inline constexpr size_t kMaxDigestKernels = 4;
inline constexpr size_t kHotInstructionsPerKernel = 8;
inline constexpr size_t kMaxSourceLines = 400;

// One SASS instruction of the ncu source page with its share of stall samples.
struct HotInstruction {
  unsigned long long offset = 0;  // SASS offset from the kernel's start, byte
  std::string sass;               // "LDG.E R3, desc[UR6][R2.64]"
  double stall_share = 0;         // fraction of the kernel's stall samples, 0..1
};

struct KernelHotSpots {
  std::string function_name;                 // KernelDiagnosis::function_name
  std::vector<HotInstruction> instructions;  // largest share first
};

struct DigestInputs {
  const Diagnosis* diagnosis = nullptr;   // required; borrowed
  std::vector<KernelHotSpots> hot_spots;  // may be empty
  std::string source_file;                // name of the kernel source; empty: none
  std::string source_text;                // its text; shown numbered, cut at kMaxSourceLines
};

// The `limit` instructions with the most stall samples of each diagnosed
// kernel's source page (none when the profile has no source page).
std::vector<KernelHotSpots> HotSpotsFromProfile(const Profile& profile, const Diagnosis& diagnosis,
                                                size_t limit = kHotInstructionsPerKernel);

std::string RenderEvidenceDigest(const DigestInputs& inputs);

EvidenceSet BuildEvidenceSet(const DigestInputs& inputs);

}  // namespace kopt::agents
