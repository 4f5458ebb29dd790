// Size expressions of task.toml ("2*M*N*K", "4*(M*K + K*N)"): numbers,
// scalar names, + - * /, unary minus and parentheses, evaluated in double.
//
// Thread safety: pure functions.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace kopt {

// Looks a name up; nullopt when there is no such scalar.
using SizeExpressionLookup = std::function<std::optional<double>(std::string_view name)>;

// The value of `text`. Errors (InvalidInput) say what was expected at which
// column: a malformed expression, an unknown name, division by zero, nesting
// deeper than 64 levels.
Result<double> EvaluateSizeExpression(std::string_view text, const SizeExpressionLookup& lookup);

}  // namespace kopt
