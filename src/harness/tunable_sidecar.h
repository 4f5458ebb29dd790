// A tunable candidate's declarations in a sidecar TOML file beside it
// (docs/tuning.md "Sidecar TOML"): `k.cu` is tuned with `k.tune.toml` when
// that file exists, for code whose comments should stay untouched.
//
//   restrict = ["BLOCK_SIZE * ITEMS <= 4096"]   # first: after a table header
//                                               # TOML gives keys to that table
//   [[parameter]]                 # one per kopt:tune line
//   name = "BLOCK_SIZE"
//   values = [64, 128, 256]       # or range = "1..8" with step = "*2"
//   role = "block_size"
//   default = 128                 # optional
//
//   [[flag]]                      # one per kopt:flag line
//   name = "FAST_MATH"
//   option = "-use_fast_math"
//   role = "fast_math"
//
// The sidecar means exactly what the same `kopt:` lines in the file would
// (harness/tunable_declarations.h): it is turned into those lines, checked
// with the sidecar's own name and line numbers in every message, and checked
// against the code of the `.cu`. A `.cu` that declares parameters itself and
// has a sidecar too is an error (one place per candidate).
//
// Thread safety: pure functions (LoadTunableSource reads files).
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "harness/tunable_declarations.h"

namespace kopt {

// "dir/k.cu" → "dir/k.tune.toml".
std::string SidecarPathFor(std::string_view candidate_path);

// The `kopt:` directive lines the sidecar stands for, each on the line of
// the sidecar it came from (so that a declaration error names the sidecar's
// line). InvalidInput "FILE:LINE: ..." for TOML errors, unknown keys and
// values of the wrong type.
Result<std::string> SidecarDirectives(std::string_view toml_text, std::string_view sidecar_file);

// The candidate's source as the tuner reads it: the `.cu` text, preceded,
// when a sidecar exists, by the sidecar's directives and `#line 1` (so the
// compiler's line numbers stay the file's). The sidecar is checked against
// the code first. NotFound when the `.cu` cannot be read.
Result<std::string> LoadTunableSource(const std::string& candidate_path, const ScalarValues& scalars);

}  // namespace kopt
