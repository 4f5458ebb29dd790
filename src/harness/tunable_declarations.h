// The tunable parameters a candidate `.cu` declares (docs/tuning.md): a
// comment block of `kopt:` lines, parsed as outside data.
//
//   // kopt:tune BLOCK_SIZE values=64,128,256,512 role=block_size
//   // kopt:tune ITEMS range=1..8 step=*2 role=items_per_thread default=4
//   // kopt:restrict BLOCK_SIZE * ITEMS <= 4096
//
// A `kopt:tune` line declares one parameter: a C identifier (compiled in as a
// macro), its values (`values=` a comma list of integers, or `range=LO..HI`
// with `step=+K` (default +1) or `step=*K`), its role (ParameterRole) and an
// optional `default=`.
//
//   // kopt:flag FAST_MATH option=-use_fast_math role=fast_math
//   // kopt:flag MAX_REGISTERS option=-maxrregcount={} values=32,64,128,255 role=max_registers default=255
//
// A `kopt:flag` line declares a compile-flag knob: a parameter like any
// other (also #defined, so code may read it) whose value also sets one nvcc
// flag (`option=`, checked against harness/candidate_flags.h): without "{}"
// it is 0 (absent) or 1 (present); with "{}" the value replaces it. A
// materialized configuration asks for its flags with a `// kopt:nvcc` line.
// It need not be used in the code. A `kopt:restrict` line is one restriction: two
// expressions over parameter names and the task's scalars (numbers, names,
// + - * /, parentheses: harness/size_expression.h, evaluated in double) joined
// by one of <= < >= > == !=. A configuration must satisfy every restriction.
//
// The default of a parameter: `default=`, else the value of the source's
// guarded `#ifndef NAME / #define NAME V`, else the middle declared value.
//
// Errors (InvalidInput) name the file, the line and the parameter:
// "k.cu:3: kopt:tune ITEMS: range=8..1: the low end is above the high end".
//
// Thread safety: values and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/tuning_role.h"
#include "core/status.h"
#include "harness/task_spec.h"

namespace kopt {


enum class ComparisonOperator { kLess, kLessEqual, kGreater, kGreaterEqual, kEqual, kNotEqual };

struct TunableParameter {
  std::string name;
  std::vector<int64_t> values;  // ascending, distinct, at least one
  int64_t default_value = 0;    // one of values
  ParameterRole role = ParameterRole::kOther;
  int line = 0;  // 1-based line of its kopt:tune / kopt:flag
  // kopt:flag: the nvcc flag the parameter sets ("-use_fast_math": on for 1,
  // absent for 0; "-maxrregcount={}": the value in place of {}); empty for a
  // macro parameter (kopt:tune).
  std::string compile_option;
};

// The flag a kopt:flag parameter gives for `value`, or nullopt (a kopt:tune
// parameter, or an on/off flag at 0).
std::optional<std::string> CompileFlagOf(const TunableParameter& parameter, int64_t value);

struct Restriction {
  std::string text;  // as written, trimmed
  std::string left;
  ComparisonOperator comparison = ComparisonOperator::kLessEqual;
  std::string right;
  int line = 0;
};

struct TunableDeclarations {
  std::string file;
  std::vector<TunableParameter> parameters;  // declaration order
  std::vector<Restriction> restrictions;     // declaration order
  bool empty() const { return parameters.empty(); }
  // Index of the parameter called `name`, or nullopt.
  std::optional<size_t> Find(std::string_view name) const;
};

// The task's scalars a restriction may name (name → value).
using ScalarValues = std::map<std::string, double, std::less<>>;
ScalarValues TaskScalarValues(const TaskSpec& task);

// Parses every `kopt:tune` / `kopt:restrict` line of `source` (each in a //
// comment; other comments and code are ignored; an unknown `kopt:` word is
// an error). A source with no such line gives empty declarations. Checks:
// identifiers, duplicate names, values (integers, distinct, at most 4096 per
// parameter), roles, defaults among the values, restrictions that parse and
// name only parameters and `scalars`.
Result<TunableDeclarations> ParseTunableDeclarations(std::string_view source, std::string_view file,
                                                     const ScalarValues& scalars);

// Checks the declarations against the code (InvalidInput naming file, line
// and parameter): a declared parameter the code never uses; a declared
// parameter `#define`d without an `#ifndef NAME` guard (it would override
// the tuned value); and, in a file that declares any parameter, a guarded
// `#ifndef NAME / #define NAME` macro that is not declared (it looks tunable
// but the tuner cannot see it). OK for empty declarations.
Status CheckDeclarationsAgainstSource(const TunableDeclarations& declarations, std::string_view source);

// The value V of `#ifndef NAME` followed by `#define NAME V` (an integer), or nullopt.
std::optional<int64_t> GuardedDefault(std::string_view source, std::string_view name);

}  // namespace kopt
