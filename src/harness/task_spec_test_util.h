// Test utility (include from *_test.cc only): a task.toml that uses most of the task format
// (docs/task-format.md): integer and floating scalars, tensors of five dtypes (a 0-d one among them)
// with several init kinds, input, inout and output roles, flops and min_bytes formulas, tolerances,
// two size variants and the check seeds.
#pragma once

#include <string_view>

namespace kopt {

inline constexpr std::string_view kFullTaskToml = R"toml([task]
name = "gemm_f32"
entry = "gemm"
description = "C = A * B"
flops = "2*M*N*K"
min_bytes = "4*(M*K + K*N + M*N)"

[[scalar]]
name = "M"
type = "i32"
value = 256

[[scalar]]
name = "N"
type = "i32"
value = 128

[[scalar]]
name = "K"
type = "i64"
value = 64

[[scalar]]
name = "alpha"
type = "f32"
value = 1.5

[[tensor]]
name = "A"
dtype = "f32"
shape = ["M", "K"]
role = "input"
init = { kind = "heavy_tailed", alpha = 2.5 }

[[tensor]]
name = "B"
dtype = "bf16"
shape = ["K", "N"]
role = "input"
init = { kind = "uniform", low = -2.0, high = 2 }

[[tensor]]
name = "idx"
dtype = "i32"
shape = [16]
role = "input"

[[tensor]]
name = "C"
dtype = "f32"
shape = ["M", "N"]
role = "inout"
init = { kind = "zeros" }

[[tensor]]
name = "D"
dtype = "u8"
shape = []
role = "output"

[tolerance]
f32 = { rtol = 1e-3 }
bf16 = { rtol = 5e-2, atol = 5e-2 }

[[variant]]
M = 1000
N = 3

[[variant]]
K = 7
alpha = 2.0

[check]
seeds = 5
)toml";

}  // namespace kopt
