// A parser of CUDA C++ kernel source (outside data: the user's .cu file) into
// a light model for the source rules of agents/hypotheses: comments and
// literals blanked, the __global__/__device__ functions with their
// parameters, loops, and integer #define macros. Not a compiler: it reads the
// shapes kernels are written in and skips what it does not understand.
//
// Limits: brackets ('(' '[' '{' together) nested deeper than
// kMaxCudaSourceNesting make the whole source InvalidInput; integer
// expressions nested deeper than kMaxExpressionNesting parentheses, or
// overflowing, evaluate to nullopt. Offsets are byte offsets into the source;
// blanking keeps them (and line numbers) those of the original text.
//
// Thread safety: values and pure functions.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/text.h"  // IsIdentifierChar

namespace kopt {

inline constexpr int kMaxCudaSourceNesting = 256;
inline constexpr int kMaxExpressionNesting = 64;

struct CudaFunction {
  std::string name;
  bool is_kernel = false;  // __global__
  size_t body_begin = 0;   // offset of '{'
  size_t body_end = 0;     // offset of the matching '}'
  std::set<std::string> pointer_parameters;
  std::set<std::string> integer_names;  // integer parameters and locals
  // Varies from lane to lane: threadIdx.x and what follows linearly from it.
  std::set<std::string> lane_varying;
};

struct CudaSourceModel {
  std::string code;  // the source with comments and literals blanked
  std::vector<size_t> line_starts;
  std::vector<CudaFunction> functions;
  std::vector<std::pair<size_t, size_t>> loops;  // [header start, body end] offsets
  std::map<std::string, long long> macros;       // #define NAME <integer>

  // The 1-based line of `offset`.
  int LineOf(size_t offset) const {
    return static_cast<int>(std::upper_bound(line_starts.begin(), line_starts.end(), offset) -
                            line_starts.begin());
  }
  // Line `line` (1-based, at most line_starts.size()) of the blanked code.
  std::string_view LineText(int line) const {
    size_t begin = line_starts[line - 1];
    size_t end = static_cast<size_t>(line) < line_starts.size() ? line_starts[line] - 1 : code.size();
    return std::string_view(code).substr(begin, end - begin);
  }
  bool InLoop(size_t offset) const {
    return std::any_of(loops.begin(), loops.end(),
                       [&](const auto& loop) { return offset > loop.first && offset <= loop.second; });
  }
};

// The model of `source`. InvalidInput ("kernel.cu:12: brackets nested deeper
// than 256") beyond the nesting limit; anything else parses, possibly to a
// model without functions.
Result<CudaSourceModel> ParseCudaSource(std::string_view source, std::string_view source_name);

// ---- Helpers over the blanked code, for the rules ----

// Comments, string and character literals replaced by spaces (newlines kept),
// so offsets and line numbers stay those of the original text.
std::string BlankCommentsAndLiterals(std::string_view text);

// Comments replaced by spaces (newlines kept), string and character literals
// kept as written: where a rule looks for a path or an inline-asm operand.
std::string BlankComments(std::string_view text);

// Offset of the bracket matching the one at `open` ('(' '[' '{'), or npos.
size_t MatchingBracket(std::string_view code, size_t open);

// The first offset from `at` that is not white space (code.size() at the end).
size_t SkipSpace(std::string_view code, size_t at);

// An identifier with member access joined ("threadIdx.x", "a.y") and its offset.
struct SourceToken {
  std::string text;
  size_t offset = 0;
};
std::vector<SourceToken> SourceIdentifiers(std::string_view code, size_t begin, size_t end);

// The end of the statement starting at `at`: a braced block or up to ';'.
size_t StatementEnd(std::string_view code, size_t at, size_t limit);

// The expression assigned at `equals` ('='), up to ',' ';' or an unmatched ')'.
std::string_view AssignedExpression(std::string_view code, size_t equals, size_t limit);

// True when `expression` mentions one of `names` as an identifier.
bool MentionsAny(std::string_view expression, const std::set<std::string>& names);

// The bracketed subscripts following `at` ("[a][b]"): their inner text ranges.
std::vector<std::pair<size_t, size_t>> Subscripts(std::string_view code, size_t at, size_t limit);

// The value of an integer expression ("32", "BN + 4", "(TILE*2)/4u") with
// integer macros; nullopt when unknown, malformed, nested too deep or overflowing.
std::optional<long long> EvaluateIntegerExpression(std::string_view text,
                                                   const std::map<std::string, long long>& macros);

// "ns::gemm<128>" -> "gemm": how a kernel's (demangled) function name appears in its source.
std::string SourceNameOf(std::string_view function_name);

}  // namespace kopt
