// The builtin generator's energy moves (docs/energy.md "Energy in optimize",
// docs/tuning.md "Moves"): under --objective time+energy, the parameters with
// the fast_math role (kopt:tune knobs that switch to __expf / __fdividef
// style intrinsics, kopt:flag knobs for -use_fast_math, -prec-div=false,
// -ftz=true) are stepped up even when no finding asks for it, because the
// fast paths do less work in hardware at the same speed, but only where the
// task's tolerance admits their documented error. The correctness check stays
// the final judge: a configuration that fails it is a failed node.
//
// The tolerance rule (FastMathAllowedBy): every output / inout tensor of a
// single-precision type (f32, f16, bf16; fast-math flags change
// single-precision arithmetic only) must have rtol >= kFastPathRelativeError.
// That bound is the CUDA Programming Guide's documented error of the fast
// paths (appendix "Intrinsic Functions"): __expf(x) within 2 + floor(|1.173 x|)
// ulp, so 31 ulp at |x| <= 25; __fdividef(x, y) within 2 ulp for
// 2^-126 <= |y| <= 2^126: about 32 ulp = 32 x 2^-23 = 3.8e-6 relative for an
// expression that uses both. A task with no single-precision output gains
// nothing (no move), and one with a tighter rtol (1e-6, bit-exact) is refused.
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "harness/task_spec.h"

namespace kopt::agents {

inline constexpr double kFastPathRelativeError = 32.0 / (1 << 23);  // 3.8e-6: 32 ulp of f32

// Whether the energy moves may be tried, and why (one sentence naming the
// tensor and its tolerance, for the candidates' reasons and the run's notes).
struct FastMathAllowance {
  bool allowed = false;
  std::string reason;
};

FastMathAllowance FastMathAllowedBy(const TaskSpec& task);

}  // namespace kopt::agents
