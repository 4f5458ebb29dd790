// The builtin generator's GEMM path (docs/tuning.md "GEMM tasks"): a
// recognised GEMM-class operation (harness/gemm_operation.h) becomes a
// tunable seed candidate that instantiates a CUTLASS kernel, its template
// parameters declared as `kopt:tune` knobs with `kopt:restrict` lines, so
// that BuiltinGenerator, the compile cache, the search and the simulation
// treat it as any tunable candidate (one of each thing: no second tuner).
//
// Families (chosen by the operand types):
//   kSm90TmaWgmma  f16/bf16 A and B on sm_90a: CUTLASS 3.x collective
//                  builders (TMA loads, wgmma, warp-specialised persistent
//                  kernels). Knobs: TILE_M, TILE_N, TILE_K, CLUSTER_M,
//                  CLUSTER_N, STAGES (0: as many as fit), SCHEDULE
//                  (1 ping-pong, 2 cooperative), SCHEDULER (0 persistent,
//                  1 stream-K), SPLIT (split-K through the stream-K
//                  scheduler), RASTER (0 heuristic, 1 along M, 2 along N),
//                  SWIZZLE.
//   kSm80F32       f32 A and B: CUTLASS 2.x GemmUniversal with TF32 off:
//                  F32_PATH 0 = SIMT FFMA (multistage cp.async mainloop),
//                  1 = 3xTF32 tensor-core emulation of f32
//                  (OpMultiplyAddFastF32: f32-level error, offered only when
//                  options.allow_3xtf32). Knobs: BLOCK_M, BLOCK_N, BLOCK_K,
//                  WARPS_M, WARPS_N, STAGES, SPLIT (serial split-K),
//                  SWIZZLE, ALIGN (operand alignment in elements: 4 on the
//                  3xTF32 path where the main size's leading dimensions are
//                  multiples of 4, else 1).
// The epilogue (bias, relu / gelu, alpha, post_scale) is fused: CUTLASS's
// epilogue fusion operations on sm90, LinearCombinationGeneric with the bias
// as a stride-0 source on the f32 path.
//
// Every seed handles every size: the CUTLASS kernel runs when its alignment
// and can_implement hold (sm90: 16-byte aligned pointers and leading
// dimensions), a plain one-thread-per-output kernel otherwise (the task's odd
// variant sizes; never the measured main size of an aligned problem).
//
// Pruning before anything compiles: restrictions from the problem's shape
// (no tile dimension beyond twice the problem plus one small tile, split-K only when the
// tiles fill fewer than two waves of options.sm_count SMs and each split
// keeps at least one k-tile, shared memory per stage within the SM's), and
// the schedules' own rules (cooperative needs TILE_M ≥ 128, stream-K needs
// the cooperative schedule, warp tiles of 32 or 64).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "harness/gemm_operation.h"
#include "harness/task_spec.h"

namespace kopt::agents {

enum class CutlassGemmFamily { kSm90TmaWgmma, kSm80F32 };
std::string_view CutlassGemmFamilyName(CutlassGemmFamily family);  // "sm90_tma_wgmma", "sm80_f32"

struct CutlassSeedOptions {
  std::string architecture = "sm_90a";  // the compile target; kSm90TmaWgmma needs sm_90a
  int sm_count = 132;                   // for the split-K pruning rule (H100 SXM: 132)
  bool allow_3xtf32 = true;             // offer F32_PATH=1 on the f32 family
};

struct CutlassGemmSeed {
  CutlassGemmFamily family = CutlassGemmFamily::kSm80F32;
  std::string file_name;  // "cutlass_gemm_sm80_f32.cu"
  std::string source;     // the tunable seed: kopt:tune lines, guarded defaults, the entry point
  std::vector<std::string> notes;
};

// The seed for `operation` of `task`. InvalidInput (naming what) for an
// operation the families do not cover: 16-bit inputs on another
// architecture, f32 inputs with a 16-bit output, a post_scale with a bias on
// sm90.
Result<CutlassGemmSeed> EmitCutlassGemmSeed(const TaskSpec& task, const GemmOperation& operation,
                                            const CutlassSeedOptions& options);

}  // namespace kopt::agents
