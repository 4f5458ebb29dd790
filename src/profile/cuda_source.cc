#include "profile/cuda_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>

#include "core/text.h"

namespace kopt {
namespace {

bool IsIntegerType(std::string_view word) {
  static const std::set<std::string_view> kTypes = {
      "int",     "unsigned", "long",      "short", "size_t", "int64_t",  "uint64_t",
      "int32_t", "uint32_t", "ptrdiff_t", "uint",  "char",   "uint16_t", "int16_t"};
  return kTypes.count(word) > 0;
}

void ParseParameters(std::string_view parameters, CudaFunction& function) {
  int depth = 0;
  size_t start = 0;
  auto finish = [&](size_t end) {
    std::vector<SourceToken> words = SourceIdentifiers(parameters, start, end);
    if (words.empty()) return;
    std::string_view piece = parameters.substr(start, end - start);
    const std::string& name = words.back().text;
    if (piece.find('*') != std::string_view::npos) {
      function.pointer_parameters.insert(name);
    } else if (std::any_of(words.begin(), words.end() - 1,
                           [](const SourceToken& t) { return IsIntegerType(t.text); })) {
      function.integer_names.insert(name);
    }
  };
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (parameters[i] == '(' || parameters[i] == '<') ++depth;
    if (parameters[i] == ')' || parameters[i] == '>') --depth;
    if (parameters[i] == ',' && depth == 0) finish(i), start = i + 1;
  }
  finish(parameters.size());
}

// From the qualifier at `at` ("__global__"), the function's name, parameters and body.
std::optional<CudaFunction> ParseFunctionAt(std::string_view code, size_t at, bool is_kernel) {
  size_t position = at;
  while (true) {
    size_t open = code.find('(', position);
    if (open == std::string_view::npos) return std::nullopt;
    // A variable ("__device__ int counter;") has no parameter list before its ';'.
    if (code.substr(at, open - at).find_first_of(";{}") != std::string_view::npos) return std::nullopt;
    size_t name_end = open;
    while (name_end > at && std::isspace(static_cast<unsigned char>(code[name_end - 1]))) --name_end;
    size_t name_begin = name_end;
    while (name_begin > at && IsIdentifierChar(code[name_begin - 1])) --name_begin;
    std::string name(code.substr(name_begin, name_end - name_begin));
    size_t close = MatchingBracket(code, open);
    if (close == std::string_view::npos) return std::nullopt;
    if (name == "__launch_bounds__" || name == "__align__" || name == "__cluster_dims__") {
      position = close + 1;
      continue;
    }
    size_t body = SkipSpace(code, close + 1);
    if (body >= code.size() || code[body] != '{' || name.empty()) return std::nullopt;
    size_t body_end = MatchingBracket(code, body);
    if (body_end == std::string_view::npos) return std::nullopt;
    CudaFunction function;
    function.name = name;
    function.is_kernel = is_kernel;
    function.body_begin = body;
    function.body_end = body_end;
    ParseParameters(code.substr(open + 1, close - open - 1), function);
    return function;
  }
}

void FindLoops(CudaSourceModel& model) {
  std::string_view code = model.code;
  for (const SourceToken& token : SourceIdentifiers(code, 0, code.size())) {
    if (token.text != "for" && token.text != "while" && token.text != "do") continue;
    size_t after = SkipSpace(code, token.offset + token.text.size());
    if (after >= code.size()) continue;
    if (token.text == "do") {
      if (code[after] != '{') continue;
      size_t end = MatchingBracket(code, after);
      if (end != std::string_view::npos) model.loops.emplace_back(token.offset, end);
      continue;
    }
    if (code[after] != '(') continue;
    size_t close = MatchingBracket(code, after);
    if (close == std::string_view::npos) continue;
    size_t body = SkipSpace(code, close + 1);
    if (body < code.size() && code[body] == ';') continue;  // the while of a do-while
    model.loops.emplace_back(token.offset, StatementEnd(code, body, code.size()));
  }
}

void FindMacros(CudaSourceModel& model) {
  for (int line = 1; line <= static_cast<int>(model.line_starts.size()); ++line) {
    std::string_view text = TrimWhitespace(model.LineText(line));
    if (!StartsWith(text, "#define")) continue;
    std::vector<SourceToken> words = SourceIdentifiers(text, 7, text.size());
    if (words.empty()) continue;
    std::string_view value = TrimWhitespace(text.substr(words.front().offset + words.front().text.size()));
    while (!value.empty() &&
           (value.back() == 'u' || value.back() == 'U' || value.back() == 'l' || value.back() == 'L'))
      value.remove_suffix(1);
    if (std::optional<long long> number = ParseInteger(value)) model.macros[words.front().text] = *number;
  }
}

// Assignments "name = expr" in the body (also "type name = expr", "name[..] = expr").
void ForEachAssignment(std::string_view code, const CudaFunction& function,
                       const std::function<void(const std::string&, std::string_view, size_t)>& visit) {
  for (size_t i = function.body_begin; i < function.body_end; ++i) {
    if (code[i] != '=' || code[i + 1] == '=') continue;
    char before = code[i - 1];
    if (std::string_view("=!<>+-*/%&|^").find(before) != std::string_view::npos) continue;
    size_t name_end = i;
    while (name_end > function.body_begin && std::isspace(static_cast<unsigned char>(code[name_end - 1])))
      --name_end;
    size_t name_begin = name_end;
    while (name_begin > function.body_begin && IsIdentifierChar(code[name_begin - 1])) --name_begin;
    if (name_begin == name_end) continue;
    visit(std::string(code.substr(name_begin, name_end - name_begin)),
          AssignedExpression(code, i, function.body_end), name_begin);
  }
}

void ClassifyVariables(std::string_view code, CudaFunction& function) {
  function.lane_varying.insert("threadIdx.x");
  function.lane_varying.insert("laneid");
  for (int pass = 0; pass < 2; ++pass) {
    ForEachAssignment(code, function, [&](const std::string& name, std::string_view expression, size_t) {
      bool divides =
          expression.find('/') != std::string_view::npos || expression.find(">>") != std::string_view::npos;
      if (!divides && MentionsAny(expression, function.lane_varying)) function.lane_varying.insert(name);
    });
  }
  // Integer locals: "int a = ..., b", "size_t i", "unsigned h".
  std::vector<SourceToken> tokens = SourceIdentifiers(code, function.body_begin, function.body_end);
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (!IsIntegerType(tokens[i].text)) continue;
    size_t j = i + 1;
    while (j < tokens.size() && IsIntegerType(tokens[j].text)) ++j;
    if (j < tokens.size()) function.integer_names.insert(tokens[j].text);
  }
}

// The recursive-descent evaluator of EvaluateIntegerExpression.
class ExpressionEvaluator {
 public:
  ExpressionEvaluator(std::string_view text, const std::map<std::string, long long>& macros)
      : text_(text), macros_(macros) {}
  std::optional<long long> Evaluate() {
    std::optional<long long> value = Sum(0);
    Skip();
    if (position_ != text_.size()) return std::nullopt;
    return value;
  }

 private:
  void Skip() { position_ = SkipSpace(text_, position_); }
  std::optional<long long> Sum(int depth) {
    std::optional<long long> value = Product(depth);
    for (Skip(); value && position_ < text_.size() && (text_[position_] == '+' || text_[position_] == '-');
         Skip()) {
      char op = text_[position_++];
      std::optional<long long> right = Product(depth);
      if (!right) return std::nullopt;
      long long result = 0;
      bool overflow = op == '+' ? __builtin_add_overflow(*value, *right, &result)
                                : __builtin_sub_overflow(*value, *right, &result);
      if (overflow) return std::nullopt;
      value = result;
    }
    return value;
  }
  std::optional<long long> Product(int depth) {
    std::optional<long long> value = Atom(depth);
    for (Skip(); value && position_ < text_.size() && (text_[position_] == '*' || text_[position_] == '/');
         Skip()) {
      char op = text_[position_++];
      std::optional<long long> right = Atom(depth);
      if (!right || (op == '/' && *right == 0)) return std::nullopt;
      long long result = 0;
      if (op == '*' && __builtin_mul_overflow(*value, *right, &result)) return std::nullopt;
      if (op == '/') {
        if (*right == -1 && *value == std::numeric_limits<long long>::min()) return std::nullopt;
        result = *value / *right;
      }
      value = result;
    }
    return value;
  }
  std::optional<long long> Atom(int depth) {
    Skip();
    if (position_ >= text_.size()) return std::nullopt;
    if (text_[position_] == '(') {
      if (depth >= kMaxExpressionNesting) return std::nullopt;
      ++position_;
      std::optional<long long> value = Sum(depth + 1);
      Skip();
      if (position_ >= text_.size() || text_[position_] != ')') return std::nullopt;
      ++position_;
      return value;
    }
    size_t begin = position_;
    while (position_ < text_.size() && IsIdentifierChar(text_[position_])) ++position_;
    std::string_view word = text_.substr(begin, position_ - begin);
    while (!word.empty() && (word.back() == 'u' || word.back() == 'U') &&
           std::isdigit(static_cast<unsigned char>(word.front())))
      word.remove_suffix(1);
    if (std::optional<long long> number = ParseInteger(word); number && *number < (1LL << 40)) return number;
    auto macro = macros_.find(std::string(word));
    if (macro != macros_.end()) return macro->second;
    return std::nullopt;
  }

  std::string_view text_;
  const std::map<std::string, long long>& macros_;
  size_t position_ = 0;
};

// The deepest bracket nesting of `code` ('(' '[' '{' together) and the
// offset where it first exceeds `limit` (npos when it does not).
size_t FirstTooDeep(std::string_view code, int limit) {
  int depth = 0;
  for (size_t i = 0; i < code.size(); ++i) {
    char c = code[i];
    if (c == '(' || c == '[' || c == '{') {
      if (++depth > limit) return i;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

CudaSourceModel BuildModel(std::string code) {
  CudaSourceModel model;
  model.code = std::move(code);
  model.line_starts.push_back(0);
  for (size_t i = 0; i < model.code.size(); ++i) {
    if (model.code[i] == '\n') model.line_starts.push_back(i + 1);
  }
  FindMacros(model);
  FindLoops(model);
  for (const SourceToken& token : SourceIdentifiers(model.code, 0, model.code.size())) {
    if (token.text != "__global__" && token.text != "__device__") continue;
    std::optional<CudaFunction> function =
        ParseFunctionAt(model.code, token.offset, token.text == "__global__");
    if (!function) continue;
    ClassifyVariables(model.code, *function);
    model.functions.push_back(std::move(*function));
  }
  return model;
}

}  // namespace

// Comments, string and character literals replaced by spaces (newlines kept),
// so offsets and line numbers stay those of the original text.
namespace {

// Comments (and, unless `keep_literals`, string and character literals)
// replaced by spaces, newlines kept.
std::string Blank(std::string_view text, bool keep_literals) {
  std::string code(text);
  enum class State { kCode, kLine, kBlock, kString, kChar } state = State::kCode;
  for (size_t i = 0; i < code.size(); ++i) {
    char c = code[i];
    char next = i + 1 < code.size() ? code[i + 1] : '\0';
    bool blank = state != State::kCode;
    if (state == State::kCode) {
      if (c == '/' && next == '/')
        state = State::kLine, blank = true;
      else if (c == '/' && next == '*')
        state = State::kBlock, blank = true;
      else if (c == '"')
        state = State::kString, blank = true;
      else if (c == '\'')
        state = State::kChar, blank = true;
    } else if (state == State::kLine && c == '\n') {
      state = State::kCode, blank = false;
    } else if (state == State::kBlock && c == '*' && next == '/') {
      code[i] = code[i + 1] = ' ';
      ++i, state = State::kCode;
      continue;
    } else if ((state == State::kString || state == State::kChar) && c == '\\' && i + 1 < code.size()) {
      if (!keep_literals) {
        if (code[i + 1] != '\n') code[i + 1] = ' ';
        code[i] = ' ';
      }
      ++i;
      continue;
    } else if ((state == State::kString && c == '"') || (state == State::kChar && c == '\'')) {
      code[i] = ' ';
      state = State::kCode;
      continue;
    }
    if (blank && c != '\n' && !(keep_literals && (state == State::kString || state == State::kChar))) {
      code[i] = ' ';
    }
  }
  return code;
}

}  // namespace

std::string BlankCommentsAndLiterals(std::string_view text) {
  return Blank(text, false);
}

std::string BlankComments(std::string_view text) {
  return Blank(text, true);
}

// Offset of the bracket matching the one at `open` ('(' '[' '{'), or npos.
size_t MatchingBracket(std::string_view code, size_t open) {
  char opening = code[open];
  char closing = opening == '(' ? ')' : opening == '[' ? ']' : '}';
  int depth = 0;
  for (size_t i = open; i < code.size(); ++i) {
    if (code[i] == opening) ++depth;
    if (code[i] == closing && --depth == 0) return i;
  }
  return std::string_view::npos;
}

size_t SkipSpace(std::string_view code, size_t at) {
  while (at < code.size() && std::isspace(static_cast<unsigned char>(code[at]))) ++at;
  return at;
}

std::vector<SourceToken> SourceIdentifiers(std::string_view code, size_t begin, size_t end) {
  std::vector<SourceToken> tokens;
  size_t i = begin;
  while (i < end) {
    bool starts = (std::isalpha(static_cast<unsigned char>(code[i])) || code[i] == '_') &&
                  (i == 0 || (!IsIdentifierChar(code[i - 1]) && code[i - 1] != '.'));
    if (!starts) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < end && (IsIdentifierChar(code[j]) ||
                       (code[j] == '.' && j + 1 < end &&
                        (std::isalpha(static_cast<unsigned char>(code[j + 1])) || code[j + 1] == '_'))))
      ++j;
    tokens.push_back(SourceToken{std::string(code.substr(i, j - i)), i});
    i = j;
  }
  return tokens;
}

// The end of the statement starting at `at`: a braced block or up to ';'.
size_t StatementEnd(std::string_view code, size_t at, size_t limit) {
  int parentheses = 0;
  for (size_t i = at; i < limit; ++i) {
    if (code[i] == '(') ++parentheses;
    if (code[i] == ')' && --parentheses < 0) return i;  // started inside parentheses: ends at their close
    if (parentheses == 0 && code[i] == '{') {
      size_t end = MatchingBracket(code, i);
      return end == std::string_view::npos ? limit : end;
    }
    if (parentheses == 0 && code[i] == ';') return i;
  }
  return limit;
}

// The expression assigned at `equals` ('='), up to ',' ';' or an unmatched ')'.
std::string_view AssignedExpression(std::string_view code, size_t equals, size_t limit) {
  int depth = 0;
  size_t i = equals + 1;
  for (; i < limit; ++i) {
    char c = code[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) break;
      --depth;
    }
    if (depth == 0 && (c == ';' || c == ',')) break;
  }
  return code.substr(equals + 1, i - equals - 1);
}

bool MentionsAny(std::string_view expression, const std::set<std::string>& names) {
  for (const SourceToken& token : SourceIdentifiers(expression, 0, expression.size())) {
    if (names.count(token.text)) return true;
  }
  return false;
}

// The bracketed subscripts following `at` ("[a][b]"): their inner text ranges.
std::vector<std::pair<size_t, size_t>> Subscripts(std::string_view code, size_t at, size_t limit) {
  std::vector<std::pair<size_t, size_t>> ranges;
  size_t open = SkipSpace(code, at);
  while (open < limit && code[open] == '[') {
    size_t close = MatchingBracket(code, open);
    if (close == std::string_view::npos || close > limit) break;
    ranges.emplace_back(open + 1, close);
    open = SkipSpace(code, close + 1);
  }
  return ranges;
}

// "ns::gemm<128>" -> "gemm": how a kernel's name appears in its source.
std::string SourceNameOf(std::string_view function_name) {
  function_name = function_name.substr(0, function_name.find('<'));
  size_t scope = function_name.rfind("::");
  if (scope != std::string_view::npos) function_name.remove_prefix(scope + 2);
  return std::string(function_name);
}

std::optional<long long> EvaluateIntegerExpression(std::string_view text,
                                                   const std::map<std::string, long long>& macros) {
  return ExpressionEvaluator(text, macros).Evaluate();
}

Result<CudaSourceModel> ParseCudaSource(std::string_view source, std::string_view source_name) {
  std::string code = BlankCommentsAndLiterals(source);
  size_t too_deep = FirstTooDeep(code, kMaxCudaSourceNesting);
  if (too_deep != std::string_view::npos) {
    int line =
        static_cast<int>(std::count(code.begin(), code.begin() + static_cast<long>(too_deep), '\n')) + 1;
    return InvalidInput(
        fmt::format("{}:{}: brackets nested deeper than {}", source_name, line, kMaxCudaSourceNesting));
  }
  return BuildModel(std::move(code));
}

}  // namespace kopt
