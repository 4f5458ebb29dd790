// Energy in explain (docs/energy.md "Energy in explain"): the energy section
// of a kernel's diagnosis, and the energy each finding's fix saves.
//
// The section is the energy model's prediction (analysis/energy_model.h) for
// the diagnosed launch: dynamic joules and average dynamic watts per launch,
// and where the energy goes (every term with its count, joules and share).
//
// A saving is priced by changing the counts the fix changes and predicting
// again: saving = E(before) − E(after), per launch, with the same
// coefficients. Each tool whose fix is priced names its rule in its
// declaration (ToolDefinition::energy_change). The rules (each one's
// arithmetic is in its method text):
//  - FP64 work in float code (accidental_fp64): every FP64-pipe issue becomes
//    FMA-pipe issues at the lanes ratio FP64/FP32 (Hopper: 64 and 128 lanes
//    per SM, so 0.5; from ncu's DFMA and FFMA peaks, else the GPU table's
//    FP64/FP32 peaks), and the float↔double conversions leave the XU pipe
//    (their share of the main body's XU instructions in the SASS);
//  - IEEE division and accurate expf where __fdividef / __expf would do
//    (mufu_division_pressure, hidden_compute_energy): each FCHK-checked
//    division drops its four Newton fix-up FFMAs (MUFU.RCP + FCHK + 5 FFMA
//    become MUFU.RCP + 1 FMUL), each accurate expf three FMA-pipe
//    instructions of its range reduction; the FMA-pipe issues shrink by that
//    share of the main body's static FMA-pipe instructions (the SASS is
//    needed to count them; the MUFU stays);
//  - excess sectors of uncoalesced loads/stores: the excess share
//    (1 − bytes per sector / 32) of that access's L1 sectors, of its L2
//    sectors, and of the DRAM bytes in its direction (never more than the
//    excess L2 bytes) disappear;
//  - local memory (local_memory_spills): the local L1 traffic disappears,
//    with the local sectors that reach L2 (load misses, every store) and the
//    same share of the DRAM traffic;
//  - a pass that only moves data (data_movement_pass): fused, its DRAM, L2
//    and L1 traffic and its LSU issues disappear, and its busy time shrinks
//    to its compute floor.
//
// Units: joules, watts, seconds, the terms' units. Thread safety: pure
// functions over values.
#pragma once

#include <optional>
#include <string>

#include "analysis/diagnosis.h"
#include "analysis/energy_model.h"
#include "analysis/orchestrator.h"
#include "core/quantity_format.h"
#include "hw/energy_coefficients.h"
#include "hw/gpu_spec.h"
#include "profile/kernel_launch.h"
#include "profile/sass.h"

namespace kopt {

// FMA-pipe issues per FP64-pipe issue once FP64 work runs as FP32: the lanes
// ratio FP64/FP32 per SM, with where it came from.
struct IssueRatio {
  double value = 0;
  std::string source;
};
std::optional<IssueRatio> Fp64ToFmaIssueRatio(const KernelLaunch& launch, const GpuSpec* gpu);

// The changes of the header comment. nullopt when the fix changes nothing the
// profile counts (no FP64 issues, no FCHK, no excess sectors, ...).
std::optional<EnergyChange> MoveFp64ToFma(const EnergyCounts& before, const IssueRatio& ratio,
                                          double xu_conversion_share);
std::optional<EnergyChange> FastIntrinsics(const EnergyCounts& before, const SassFunction& sass);
// `op` is "ld" or "st".
std::optional<EnergyChange> CoalescedAccess(const EnergyCounts& before, const KernelLaunch& launch,
                                            std::string_view op);
std::optional<EnergyChange> NoLocalMemory(const EnergyCounts& before, const KernelLaunch& launch);
std::optional<EnergyChange> FusedDataPass(const EnergyCounts& before, const RooflineAnalysis& roofline);

// The rules as the tools declare them (ToolDefinition::energy_change):
// accidental_fp64's (the lanes ratio from the context's launch and GPU, the
// conversions' XU share from its SASS) and the fast-intrinsics rule of
// mufu_division_pressure (needs the SASS).
std::optional<EnergyChange> PriceFp64InFloatCode(const ToolContext& context, const EnergyCounts& before,
                                                 std::string& why_not);
std::optional<EnergyChange> PriceFastIntrinsics(const ToolContext& context, const EnergyCounts& before,
                                                std::string& why_not);

// Static main-body counts the fast-intrinsics rule uses: IEEE divisions (FCHK),
// accurate expf sequences (their Cody-Waite reduction's FFMA by the low part
// of log2(e), 1.925963033500011079e-08), and FMA-pipe instructions (FFMA, FADD,
// FMUL, IMAD, IMUL, HFMA2, HADD2, HMUL2, with their immediate forms);
// instructions predicated @!PT never run.
struct FastMathSites {
  int ieee_divisions = 0;
  int accurate_expf = 0;
  int expf_constants =
      0;  // IMAD.MOV.U32 of its constants 0x3bbb989d, 0x437c0000 (once per kernel when hoisted)
  int fma_pipe_instructions = 0;
  int xu_pipe_instructions = 0;  // MUFU, conversions and FCHK (which issues on the XU pipe)
};
FastMathSites CountFastMathSites(const SassFunction& sass);
// The FMA-pipe instructions an IEEE division adds over __fdividef's multiply
// (MUFU.RCP + FCHK + 5 FFMA against MUFU.RCP + FMUL), and an accurate expf
// over __expf besides its constants (FFMA.SAT, FFMA.RM, FADD, IMAD.SHL of
// 2^k, two FFMA and the scaling FFMA: 7, against the FMUL by log2(e) and the
// two FMULs of its range guard: 3). On the H200 swish (x / (1 + expf(-x)),
// tests/fixtures/h200_energy) the rule removes 10 of 18 FMA-pipe
// instructions (56%); ncu measured 53% fewer FMA-pipe issues with the
// intrinsics. Each FCHK also leaves the XU pipe: there 1 of 3 XU
// instructions, and ncu measured 33% fewer XU issues.
inline constexpr int kDivisionFixupFfmas = 4;
inline constexpr int kAccurateExpfExtraFmas = 4;

// A count of `term` in its unit for people: bytes as bytes ("2.15 GB"),
// seconds as a duration ("592 µs"), others with an SI prefix ("79.7M issue").
std::string FormatEnergyCount(double count, EnergyTerm term, QuantityStyle style);

// The saving of `change` against `before`: E(before) − E(after) with
// `coefficients`; nullopt when it is not positive.
std::optional<EnergySaving> SavingOf(const EnergyCounts& before, const EnergyChange& change,
                                     const EnergyCoefficients& coefficients);

// The share (0..1) of `prediction`'s energy on the SM's instruction pipes
// (FMA, ALU, FP64, XU): the work a memory-bound kernel's time hides.
double ComputePipeEnergyShare(const EnergyPrediction& prediction);

// Fills kernel.energy from inputs.launch and inputs.energy_coefficients
// (nothing when there is no table), and the energy_saving of each finding
// whose tool declares an `energy_change` (analysis/tool.h; a saving already
// set is kept). Runs after RunTools on the same inputs and options.
void AnalyzeEnergy(const LaunchInputs& inputs, const OrchestrationOptions& options, KernelDiagnosis& kernel);

}  // namespace kopt
