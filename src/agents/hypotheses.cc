#include "agents/hypotheses.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "analysis/tool.h"
#include "core/text.h"
#include "profile/kernel_launch.h"

namespace kopt::agents {
namespace {

// ---------------------------------------------------------------------------
// A light model of the kernel source: comments and literals blanked, the
// __global__/__device__ functions, loop bodies, integer macros.

bool IsWordChar(char c) {
  return IsIdentifierChar(c);
}

// Comments, string and character literals replaced by spaces (newlines kept),
// so offsets and line numbers stay those of the original text.
std::string BlankCommentsAndLiterals(std::string_view text) {
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
      if (code[i + 1] != '\n') code[i + 1] = ' ';
      code[i] = ' ';
      ++i;
      continue;
    } else if ((state == State::kString && c == '"') || (state == State::kChar && c == '\'')) {
      code[i] = ' ';
      state = State::kCode;
      continue;
    }
    if (blank && c != '\n') code[i] = ' ';
  }
  return code;
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

// Identifiers with member access joined ("threadIdx.x", "a.y"), with offsets.
struct Token {
  std::string text;
  size_t offset = 0;
};

std::vector<Token> Identifiers(std::string_view code, size_t begin, size_t end) {
  std::vector<Token> tokens;
  size_t i = begin;
  while (i < end) {
    bool starts = (std::isalpha(static_cast<unsigned char>(code[i])) || code[i] == '_') &&
                  (i == 0 || (!IsWordChar(code[i - 1]) && code[i - 1] != '.'));
    if (!starts) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < end && (IsWordChar(code[j]) ||
                       (code[j] == '.' && j + 1 < end &&
                        (std::isalpha(static_cast<unsigned char>(code[j + 1])) || code[j + 1] == '_'))))
      ++j;
    tokens.push_back(Token{std::string(code.substr(i, j - i)), i});
    i = j;
  }
  return tokens;
}

struct SourceFunction {
  std::string name;
  bool is_kernel = false;  // __global__
  size_t body_begin = 0;   // offset of '{'
  size_t body_end = 0;     // offset of the matching '}'
  std::set<std::string> pointer_parameters;
  std::set<std::string> integer_names;  // integer parameters and locals
  std::set<std::string>
      lane_varying;  // varies from lane to lane: threadIdx.x and what follows linearly from it
};

struct SourceModel {
  std::string code;
  std::vector<size_t> line_starts;
  std::vector<SourceFunction> functions;
  std::vector<std::pair<size_t, size_t>> loops;  // [header start, body end] offsets
  std::map<std::string, long long> macros;       // #define NAME <integer>

  int LineOf(size_t offset) const {
    return static_cast<int>(std::upper_bound(line_starts.begin(), line_starts.end(), offset) -
                            line_starts.begin());
  }
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

bool IsIntegerType(std::string_view word) {
  static const std::set<std::string_view> kTypes = {
      "int",     "unsigned", "long",      "short", "size_t", "int64_t",  "uint64_t",
      "int32_t", "uint32_t", "ptrdiff_t", "uint",  "char",   "uint16_t", "int16_t"};
  return kTypes.count(word) > 0;
}

void ParseParameters(std::string_view parameters, SourceFunction& function) {
  int depth = 0;
  size_t start = 0;
  auto finish = [&](size_t end) {
    std::vector<Token> words = Identifiers(parameters, start, end);
    if (words.empty()) return;
    std::string_view piece = parameters.substr(start, end - start);
    const std::string& name = words.back().text;
    if (piece.find('*') != std::string_view::npos) {
      function.pointer_parameters.insert(name);
    } else if (std::any_of(words.begin(), words.end() - 1,
                           [](const Token& t) { return IsIntegerType(t.text); })) {
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
std::optional<SourceFunction> ParseFunctionAt(std::string_view code, size_t at, bool is_kernel) {
  size_t position = at;
  while (true) {
    size_t open = code.find('(', position);
    if (open == std::string_view::npos) return std::nullopt;
    // A variable ("__device__ int counter;") has no parameter list before its ';'.
    if (code.substr(at, open - at).find_first_of(";{}") != std::string_view::npos) return std::nullopt;
    size_t name_end = open;
    while (name_end > at && std::isspace(static_cast<unsigned char>(code[name_end - 1]))) --name_end;
    size_t name_begin = name_end;
    while (name_begin > at && IsWordChar(code[name_begin - 1])) --name_begin;
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
    SourceFunction function;
    function.name = name;
    function.is_kernel = is_kernel;
    function.body_begin = body;
    function.body_end = body_end;
    ParseParameters(code.substr(open + 1, close - open - 1), function);
    return function;
  }
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

void FindLoops(SourceModel& model) {
  std::string_view code = model.code;
  for (const Token& token : Identifiers(code, 0, code.size())) {
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

void FindMacros(SourceModel& model) {
  for (int line = 1; line <= static_cast<int>(model.line_starts.size()); ++line) {
    std::string_view text = TrimWhitespace(model.LineText(line));
    if (!StartsWith(text, "#define")) continue;
    std::vector<Token> words = Identifiers(text, 7, text.size());
    if (words.empty()) continue;
    std::string_view value = TrimWhitespace(text.substr(words.front().offset + words.front().text.size()));
    while (!value.empty() &&
           (value.back() == 'u' || value.back() == 'U' || value.back() == 'l' || value.back() == 'L'))
      value.remove_suffix(1);
    if (std::optional<long long> number = ParseInteger(value)) model.macros[words.front().text] = *number;
  }
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
  for (const Token& token : Identifiers(expression, 0, expression.size())) {
    if (names.count(token.text)) return true;
  }
  return false;
}

// Assignments "name = expr" in the body (also "type name = expr", "name[..] = expr").
void ForEachAssignment(std::string_view code, const SourceFunction& function,
                       const std::function<void(const std::string&, std::string_view, size_t)>& visit) {
  for (size_t i = function.body_begin; i < function.body_end; ++i) {
    if (code[i] != '=' || code[i + 1] == '=') continue;
    char before = code[i - 1];
    if (std::string_view("=!<>+-*/%&|^").find(before) != std::string_view::npos) continue;
    size_t name_end = i;
    while (name_end > function.body_begin && std::isspace(static_cast<unsigned char>(code[name_end - 1])))
      --name_end;
    size_t name_begin = name_end;
    while (name_begin > function.body_begin && IsWordChar(code[name_begin - 1])) --name_begin;
    if (name_begin == name_end) continue;
    visit(std::string(code.substr(name_begin, name_end - name_begin)),
          AssignedExpression(code, i, function.body_end), name_begin);
  }
}

void ClassifyVariables(std::string_view code, SourceFunction& function) {
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
  std::vector<Token> tokens = Identifiers(code, function.body_begin, function.body_end);
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (!IsIntegerType(tokens[i].text)) continue;
    size_t j = i + 1;
    while (j < tokens.size() && IsIntegerType(tokens[j].text)) ++j;
    if (j < tokens.size()) function.integer_names.insert(tokens[j].text);
  }
}

SourceModel BuildSourceModel(std::string_view source) {
  SourceModel model;
  model.code = BlankCommentsAndLiterals(source);
  model.line_starts.push_back(0);
  for (size_t i = 0; i < model.code.size(); ++i) {
    if (model.code[i] == '\n') model.line_starts.push_back(i + 1);
  }
  FindMacros(model);
  FindLoops(model);
  for (const Token& token : Identifiers(model.code, 0, model.code.size())) {
    if (token.text != "__global__" && token.text != "__device__") continue;
    std::optional<SourceFunction> function =
        ParseFunctionAt(model.code, token.offset, token.text == "__global__");
    if (!function) continue;
    ClassifyVariables(model.code, *function);
    model.functions.push_back(std::move(*function));
  }
  return model;
}

// ---------------------------------------------------------------------------
// Collecting hypotheses: one per (rule, kernel), lines merged.

struct RuleInfo {
  const char* id;
  const char* title;
  std::vector<std::string> confirming;
};

const RuleInfo kStridedLoads = {
    "strided_global_loads", "Strided or column-wise global loads", {"uncoalesced_loads"}};
const RuleInfo kStridedStores = {
    "strided_global_stores", "Strided or column-wise global stores", {"uncoalesced_stores"}};
const RuleInfo kSharedColumn = {
    "shared_column_access", "Unpadded shared-memory tile read by column", {"shared_bank_conflicts"}};
const RuleInfo kAtomics = {
    "contended_atomics", "Atomics on few addresses or in a loop", {"atomic_contention"}};
const RuleInfo kIntegerDivision = {
    "runtime_integer_division", "Integer division or modulo by a run-time value", {"int64_index_arithmetic"}};
const RuleInfo kFp64 = {"fp64_arithmetic", "Double-precision arithmetic", {"accidental_fp64"}};
const RuleInfo kTranscendentals = {"transcendentals_in_loop",
                                   "Transcendental functions or float division in a loop",
                                   {"mufu_division_pressure"}};
const RuleInfo kBarrierInLoop = {"syncthreads_in_loop", "__syncthreads() inside a loop", {"barrier_stalls"}};
const RuleInfo kDivergence = {
    "lane_divergent_branch", "Branch on the lane index (warp divergence)", {"warp_divergence"}};
const RuleInfo kScalarLoads = {
    "scalar_global_loads", "Only 32-bit global loads (no vector loads)", {"memory_latency_low_mlp"}};
const RuleInfo kGemmNoTensor = {"gemm_without_tensor_cores",
                                "GEMM-like loop on FP32 FMA, no tensor-core instructions",
                                {"fp32_gemm_no_tensor_cores"}};
const RuleInfo kHmmaOnHopper = {
    "mma_sync_on_hopper", "mma.sync (HMMA) on Hopper instead of wgmma", {"hmma_on_hopper"}};
const RuleInfo kLocalMemory = {
    "local_memory", "Local memory: register spills or a stack array", {"local_memory_spills"}};
const RuleInfo kRegisterPressure = {"register_limited_occupancy",
                                    "High register count limits occupancy",
                                    {"low_occupancy_registers", "achieved_occupancy_gap"}};

class HypothesisCollector {
 public:
  explicit HypothesisCollector(std::string source_file) : source_file_(std::move(source_file)) {}

  void Add(const RuleInfo& rule, const std::string& kernel, std::optional<int> line,
           const std::string& reason) {
    auto key = std::make_pair(std::string(rule.id), kernel);
    auto [entry, inserted] = entries_.try_emplace(key);
    Hypothesis& hypothesis = entry->second;
    if (inserted) {
      hypothesis.id = rule.id;
      hypothesis.title = rule.title;
      hypothesis.kernel = kernel;
      hypothesis.confirming_findings = rule.confirming;
      hypothesis.source_file = source_file_;
      hypothesis.reason = reason;
    }
    if (line && std::find(hypothesis.source_lines.begin(), hypothesis.source_lines.end(), *line) ==
                    hypothesis.source_lines.end()) {
      hypothesis.source_lines.push_back(*line);
    }
  }

  std::vector<Hypothesis> Take() {
    std::vector<Hypothesis> result;
    for (auto& [key, hypothesis] : entries_) {
      std::sort(hypothesis.source_lines.begin(), hypothesis.source_lines.end());
      result.push_back(std::move(hypothesis));
    }
    std::stable_sort(result.begin(), result.end(), [](const Hypothesis& a, const Hypothesis& b) {
      int line_a = a.source_lines.empty() ? 0 : a.source_lines.front();
      int line_b = b.source_lines.empty() ? 0 : b.source_lines.front();
      return std::tie(line_a, a.kernel, a.id) < std::tie(line_b, b.kernel, b.id);
    });
    return result;
  }

 private:
  std::string source_file_;
  std::map<std::pair<std::string, std::string>, Hypothesis> entries_;
};

std::string Snippet(const SourceModel& model, std::string_view original, int line) {
  (void)model;
  std::vector<std::string_view> lines = SplitLines(original);
  if (line < 1 || line > static_cast<int>(lines.size())) return "";
  return Abbreviate(TrimWhitespace(lines[line - 1]), 100);
}

// ---------------------------------------------------------------------------
// Source rules. Each looks at one function body.

struct RuleContext {
  const SourceModel& model;
  std::string_view original;
  const SourceFunction& function;
  HypothesisCollector& collector;
  std::string kernel;  // name for Hypothesis::kernel; empty for __device__ helpers
  std::string source_file;

  std::string Where(int line) const { return source_file + ":" + std::to_string(line); }
  std::string Code(int line) const { return "`" + Snippet(model, original, line) + "`"; }
};

// True when `token` at `offset` is an operand of '*' (looking past parentheses and casts' ')').
bool IsMultiplied(std::string_view code, size_t offset, size_t length, size_t begin, size_t end) {
  size_t after = offset + length;
  while (after < end && (std::isspace(static_cast<unsigned char>(code[after])) || code[after] == ')'))
    ++after;
  if (after < end && code[after] == '*') return true;
  size_t before = offset;
  while (before > begin &&
         (std::isspace(static_cast<unsigned char>(code[before - 1])) || code[before - 1] == '('))
    --before;
  return before > begin && code[before - 1] == '*';
}

void StridedGlobalAccessRule(const RuleContext& context) {
  std::string_view code = context.model.code;
  const SourceFunction& function = context.function;
  for (const Token& token : Identifiers(code, function.body_begin, function.body_end)) {
    if (!function.pointer_parameters.count(token.text)) continue;
    size_t open = SkipSpace(code, token.offset + token.text.size());
    if (open >= function.body_end || code[open] != '[') continue;
    size_t close = MatchingBracket(code, open);
    if (close == std::string_view::npos) continue;
    std::string strided;
    for (const Token& index : Identifiers(code, open + 1, close)) {
      if (function.lane_varying.count(index.text) &&
          IsMultiplied(code, index.offset, index.text.size(), open + 1, close)) {
        strided = index.text;
      }
    }
    if (strided.empty()) continue;
    size_t after = SkipSpace(code, close + 1);
    bool store = after < code.size() && code[after] == '=' && code[after + 1] != '=';
    int line = context.model.LineOf(token.offset);
    std::string reason = fmt::format(
        "{}: the index of {} multiplies the lane-varying '{}', so neighbouring lanes touch addresses a "
        "stride "
        "apart: {}",
        context.Where(line), token.text, strided, context.Code(line));
    context.collector.Add(store ? kStridedStores : kStridedLoads, context.kernel, line, reason);
  }
}

// Value of an array dimension ("32", "BN + 4", "TILE*2") with integer macros; nullopt when unknown.
class DimensionEvaluator {
 public:
  DimensionEvaluator(std::string_view text, const std::map<std::string, long long>& macros)
      : text_(text), macros_(macros) {}
  std::optional<long long> Evaluate() {
    std::optional<long long> value = Sum();
    Skip();
    if (position_ != text_.size()) return std::nullopt;
    return value;
  }

 private:
  void Skip() { position_ = SkipSpace(text_, position_); }
  std::optional<long long> Sum() {
    std::optional<long long> value = Product();
    for (Skip(); value && position_ < text_.size() && (text_[position_] == '+' || text_[position_] == '-');
         Skip()) {
      char op = text_[position_++];
      std::optional<long long> right = Product();
      if (!right) return std::nullopt;
      value = op == '+' ? *value + *right : *value - *right;
    }
    return value;
  }
  std::optional<long long> Product() {
    std::optional<long long> value = Atom();
    for (Skip(); value && position_ < text_.size() && (text_[position_] == '*' || text_[position_] == '/');
         Skip()) {
      char op = text_[position_++];
      std::optional<long long> right = Atom();
      if (!right || (op == '/' && *right == 0)) return std::nullopt;
      value = op == '*' ? *value * *right : *value / *right;
    }
    return value;
  }
  std::optional<long long> Atom() {
    Skip();
    if (position_ >= text_.size()) return std::nullopt;
    if (text_[position_] == '(') {
      ++position_;
      std::optional<long long> value = Sum();
      Skip();
      if (position_ >= text_.size() || text_[position_] != ')') return std::nullopt;
      ++position_;
      return value;
    }
    size_t begin = position_;
    while (position_ < text_.size() && IsWordChar(text_[position_])) ++position_;
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

struct SharedArray {
  std::string name;
  std::vector<std::string> dimensions;
  int line = 0;
};

std::vector<SharedArray> SharedArrays(const SourceModel& model, const SourceFunction& function) {
  std::vector<SharedArray> arrays;
  std::string_view code = model.code;
  std::vector<Token> tokens = Identifiers(code, function.body_begin, function.body_end);
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].text != "__shared__") continue;
    for (size_t j = i + 1; j < tokens.size() && j < i + 8; ++j) {
      std::vector<std::pair<size_t, size_t>> dims =
          Subscripts(code, tokens[j].offset + tokens[j].text.size(), function.body_end);
      if (dims.empty()) continue;
      SharedArray array{tokens[j].text, {}, model.LineOf(tokens[j].offset)};
      for (auto [begin, end] : dims)
        array.dimensions.emplace_back(TrimWhitespace(code.substr(begin, end - begin)));
      arrays.push_back(std::move(array));
      break;
    }
  }
  return arrays;
}

void SharedColumnAccessRule(const RuleContext& context) {
  std::string_view code = context.model.code;
  const SourceFunction& function = context.function;
  for (const SharedArray& array : SharedArrays(context.model, function)) {
    if (array.dimensions.size() < 2) continue;
    std::optional<long long> row =
        DimensionEvaluator(array.dimensions.back(), context.model.macros).Evaluate();
    if (!row || *row % 32 != 0) continue;  // unknown, or padded: rows start in different banks
    for (const Token& token : Identifiers(code, function.body_begin, function.body_end)) {
      if (token.text != array.name) continue;
      std::vector<std::pair<size_t, size_t>> subscripts =
          Subscripts(code, token.offset + token.text.size(), function.body_end);
      if (subscripts.size() < 2) continue;
      auto varies = [&](std::pair<size_t, size_t> range) {
        return MentionsAny(code.substr(range.first, range.second - range.first), function.lane_varying);
      };
      if (!varies(subscripts.front()) || varies(subscripts.back())) continue;
      int line = context.model.LineOf(token.offset);
      context.collector.Add(
          kSharedColumn, context.kernel, line,
          fmt::format("{}: {} is declared at line {} with rows of {} elements (a multiple of 32 banks, no "
                      "padding) and "
                      "indexed by a lane-varying row and a lane-uniform column, so the lanes of a warp hit "
                      "one bank: {}",
                      context.Where(line), array.name, array.line, *row, context.Code(line)));
    }
  }
}

bool CallFollows(std::string_view code, const Token& token) {
  size_t after = SkipSpace(code, token.offset + token.text.size());
  return after < code.size() && code[after] == '(';
}

void AtomicRule(const RuleContext& context) {
  std::string_view code = context.model.code;
  const SourceFunction& function = context.function;
  for (const Token& token : Identifiers(code, function.body_begin, function.body_end)) {
    if (!StartsWith(token.text, "atomic") || !CallFollows(code, token)) continue;
    size_t open = code.find('(', token.offset);
    std::string_view address = AssignedExpression(code, open, function.body_end);
    address = TrimWhitespace(address);
    if (StartsWith(address, "&")) address.remove_prefix(1);
    bool in_loop = context.model.InLoop(token.offset);
    bool uniform = !MentionsAny(address, function.lane_varying);
    bool folded = address.find('%') != std::string_view::npos || address.find('&') != std::string_view::npos;
    if (!in_loop && !uniform && !folded) continue;
    std::string why = in_loop   ? "inside a loop"
                      : uniform ? "on an address that is the same for every lane"
                                : "on an address folded by % or & onto a few locations";
    int line = context.model.LineOf(token.offset);
    context.collector.Add(kAtomics, context.kernel, line,
                          fmt::format("{}: {} {}, so many threads serialize on the same memory words: {}",
                                      context.Where(line), token.text, why, context.Code(line)));
  }
}

// The identifier right of the operator at `at` (past spaces and '('), or "".
std::string RightOperand(std::string_view code, size_t at, size_t limit) {
  size_t i = at + 1;
  if (i < limit && code[i] == '=') ++i;
  while (i < limit && (std::isspace(static_cast<unsigned char>(code[i])) || code[i] == '(')) ++i;
  size_t begin = i;
  while (i < limit && IsWordChar(code[i])) ++i;
  return std::string(code.substr(begin, i - begin));
}

void DivisionRules(const RuleContext& context, const SassFunction* sass) {
  std::string_view code = context.model.code;
  const SourceFunction& function = context.function;
  static const std::set<std::string> kMufuFunctions = {
      "expf",  "exp",  "__expf", "exp2f",  "exp10f", "logf",   "log",  "__logf",
      "log2f", "sinf", "cosf",   "__sinf", "__cosf", "sin",    "cos",  "tanf",
      "tanhf", "powf", "pow",    "__powf", "sqrtf",  "rsqrtf", "erff", "sincosf"};
  int mufu = sass ? sass->Count(InstructionClass::kSpecialFunction) : -1;
  std::string mufu_text = mufu >= 0 ? fmt::format(" (SASS: {} MUFU instructions)", mufu) : "";
  for (const Token& token : Identifiers(code, function.body_begin, function.body_end)) {
    if (!kMufuFunctions.count(token.text) || !CallFollows(code, token) || !context.model.InLoop(token.offset))
      continue;
    int line = context.model.LineOf(token.offset);
    context.collector.Add(
        kTranscendentals, context.kernel, line,
        fmt::format("{}: {}() runs on the special-function unit (MUFU) in every loop iteration{}: {}",
                    context.Where(line), token.text, mufu_text, context.Code(line)));
  }
  for (size_t i = function.body_begin; i < function.body_end; ++i) {
    if (code[i] != '/' && code[i] != '%') continue;
    std::string right = RightOperand(code, i, function.body_end);
    bool integer_divisor =
        !right.empty() && function.integer_names.count(right) && !context.model.macros.count(right);
    int line = context.model.LineOf(i);
    if (integer_divisor) {
      context.collector.Add(
          kIntegerDivision, context.kernel, line,
          fmt::format("{}: '{}' divides by the run-time integer '{}', a multi-instruction division "
                      "sequence{}: {}",
                      context.Where(line), std::string(1, code[i]), right,
                      context.model.InLoop(i) ? " inside a loop" : "", context.Code(line)));
      continue;
    }
    bool literal_or_macro = right.empty() ? false
                                          : std::isdigit(static_cast<unsigned char>(right.front())) ||
                                                context.model.macros.count(right) ||
                                                function.integer_names.count(right);
    if (code[i] == '/' && !literal_or_macro && context.model.InLoop(i)) {
      context.collector.Add(kTranscendentals, context.kernel, line,
                            fmt::format("{}: a floating-point division in a loop compiles to MUFU.RCP plus a "
                                        "refinement{}: {}",
                                        context.Where(line), mufu_text, context.Code(line)));
    }
  }
}

// Floating literals without an f suffix ("0.5", "1e-3"): double in C++.
std::vector<size_t> DoubleLiterals(std::string_view code, size_t begin, size_t end) {
  std::vector<size_t> offsets;
  for (size_t i = begin; i < end; ++i) {
    bool starts =
        (std::isdigit(static_cast<unsigned char>(code[i])) ||
         (code[i] == '.' && i + 1 < end && std::isdigit(static_cast<unsigned char>(code[i + 1])))) &&
        (i == 0 || (!IsWordChar(code[i - 1]) && code[i - 1] != '.'));
    if (!starts) continue;
    size_t j = i;
    bool floating = false;
    while (j < end && (std::isdigit(static_cast<unsigned char>(code[j])) || code[j] == '.'))
      floating |= code[j++] == '.';
    if (j < end && (code[j] == 'e' || code[j] == 'E')) {
      size_t k = j + 1;
      if (k < end && (code[k] == '+' || code[k] == '-')) ++k;
      if (k < end && std::isdigit(static_cast<unsigned char>(code[k]))) {
        floating = true;
        j = k;
        while (j < end && std::isdigit(static_cast<unsigned char>(code[j]))) ++j;
      }
    }
    bool suffixed = j < end && IsWordChar(code[j]);  // 1.0f, 2.5F, 0x1p3...
    if (floating && !suffixed) offsets.push_back(i);
    i = j;
  }
  return offsets;
}

void Fp64Rule(const RuleContext& context, const SassFunction* sass) {
  std::string_view code = context.model.code;
  const SourceFunction& function = context.function;
  int fp64 = sass ? sass->Count(InstructionClass::kFp64) : -1;
  if (fp64 == 0) return;  // the compiler emitted none: nothing to predict
  std::string sass_text = fp64 > 0 ? fmt::format("; SASS has {} FP64 instructions", fp64) : "";
  for (const Token& token : Identifiers(code, function.body_begin, function.body_end)) {
    if (token.text != "double") continue;
    int line = context.model.LineOf(token.offset);
    context.collector.Add(
        kFp64, context.kernel, line,
        fmt::format("{}: double-precision values run on the FP64 pipe (1/64 of FP32 on most GPUs){}: {}",
                    context.Where(line), sass_text, context.Code(line)));
  }
  for (size_t offset : DoubleLiterals(code, function.body_begin, function.body_end)) {
    int line = context.model.LineOf(offset);
    context.collector.Add(
        kFp64, context.kernel, line,
        fmt::format("{}: a floating literal without an 'f' suffix is a double and promotes the "
                    "float arithmetic around it to FP64{}: {}",
                    context.Where(line), sass_text, context.Code(line)));
  }
}

void BarrierInLoopRule(const RuleContext& context) {
  std::string_view code = context.model.code;
  for (const Token& token : Identifiers(code, context.function.body_begin, context.function.body_end)) {
    if (token.text != "__syncthreads" || !context.model.InLoop(token.offset)) continue;
    int line = context.model.LineOf(token.offset);
    context.collector.Add(
        kBarrierInLoop, context.kernel, line,
        fmt::format("{}: a block-wide barrier in every loop iteration makes warps wait for the "
                    "slowest one: {}",
                    context.Where(line), context.Code(line)));
  }
}

// A condition that splits the lanes of a warp: lane-varying and bit-sliced or
// compared against a small constant (a bounds check "i < n" is not).
bool LaneSplittingCondition(std::string_view condition, const SourceFunction& function) {
  if (!MentionsAny(condition, function.lane_varying)) return false;
  for (size_t i = 0; i < condition.size(); ++i) {
    char c = condition[i];
    char next = i + 1 < condition.size() ? condition[i + 1] : '\0';
    char previous = i > 0 ? condition[i - 1] : '\0';
    if (c == '%' || (c == '>' && next == '>')) return true;
    if (c == '&' && next != '&' && previous != '&') return true;
    if ((c == '<' || c == '>') && next != c && previous != c) {
      std::string right = RightOperand(condition, next == '=' ? i + 1 : i, condition.size());
      std::optional<long long> value = ParseInteger(right);
      if (value && *value > 0 && *value < 32) return true;
    }
  }
  return false;
}

void DivergenceRule(const RuleContext& context) {
  std::string_view code = context.model.code;
  const SourceFunction& function = context.function;
  for (const Token& token : Identifiers(code, function.body_begin, function.body_end)) {
    if (token.text != "if" && token.text != "switch" && token.text != "while") continue;
    size_t open = SkipSpace(code, token.offset + token.text.size());
    if (open >= function.body_end || code[open] != '(') continue;
    size_t close = MatchingBracket(code, open);
    if (close == std::string_view::npos) continue;
    if (!LaneSplittingCondition(code.substr(open + 1, close - open - 1), function)) continue;
    int line = context.model.LineOf(token.offset);
    context.collector.Add(
        kDivergence, context.kernel, line,
        fmt::format("{}: the {} condition depends on the lane index, so the lanes of a warp take "
                    "different paths one after the other: {}",
                    context.Where(line), token.text, context.Code(line)));
  }
}

void ScalarLoadRule(const RuleContext& context, const SassFunction* sass) {
  if (!sass || sass->global_load_widths.empty()) return;
  int widest = sass->global_load_widths.rbegin()->first;
  if (widest > 32) return;
  std::string_view code = context.model.code;
  const SourceFunction& function = context.function;
  for (const Token& token : Identifiers(code, function.body_begin, function.body_end)) {
    if (!function.pointer_parameters.count(token.text)) continue;
    size_t open = SkipSpace(code, token.offset + token.text.size());
    if (open >= function.body_end || code[open] != '[') continue;
    size_t close = MatchingBracket(code, open);
    if (close == std::string_view::npos) continue;
    bool contiguous = false;
    for (const Token& index : Identifiers(code, open + 1, close)) {
      if (function.lane_varying.count(index.text) &&
          !IsMultiplied(code, index.offset, index.text.size(), open + 1, close))
        contiguous = true;
    }
    size_t after = SkipSpace(code, close + 1);
    bool store = after < code.size() && code[after] == '=' && code[after + 1] != '=';
    if (!contiguous || store) continue;
    int line = context.model.LineOf(token.offset);
    context.collector.Add(
        kScalarLoads, context.kernel, line,
        fmt::format("{}: each thread loads one element of {} and the SASS has only {}-bit global "
                    "loads (no LDG.64/LDG.128), so few bytes are in flight per thread: {}",
                    context.Where(line), token.text, widest, context.Code(line)));
  }
}

// True when the text before `offset` ends a statement or a loop/if header.
bool StartsStatement(std::string_view code, size_t offset) {
  size_t before = offset;
  while (before > 0 && std::isspace(static_cast<unsigned char>(code[before - 1]))) --before;
  return before == 0 || std::string_view(";{})").find(code[before - 1]) != std::string_view::npos;
}

int LoopDepth(const SourceModel& model, size_t offset) {
  return static_cast<int>(std::count_if(model.loops.begin(), model.loops.end(), [&](const auto& loop) {
    return offset > loop.first && offset <= loop.second;
  }));
}

// "x += a[..] * b[..]" or "fmaf(a[..], b[..], ...)" at loop depth >= 2.
void GemmRule(const RuleContext& context, const SassFunction* sass) {
  if (sass &&
      sass->Count(InstructionClass::kTensorHmma) + sass->Count(InstructionClass::kTensorWarpgroup) > 0)
    return;
  std::string_view code = context.model.code;
  const SourceFunction& function = context.function;
  std::string sass_text =
      sass ? fmt::format("; SASS: {} FFMA, no HMMA/HGMMA",
                         sass->opcode_counts.count("FFMA") ? sass->opcode_counts.at("FFMA") : 0)
           : "";
  for (const Token& token : Identifiers(code, function.body_begin, function.body_end)) {
    if (LoopDepth(context.model, token.offset) < 2) continue;
    bool product = false;
    size_t end = StatementEnd(code, token.offset, function.body_end);
    std::string_view statement = code.substr(token.offset, end - token.offset);
    if ((token.text == "fmaf" || token.text == "fma" || token.text == "__fmaf_rn") &&
        CallFollows(code, token)) {
      size_t open = code.find('(', token.offset);
      std::string_view first = AssignedExpression(code, open, end);
      size_t second_start = open + 1 + first.size() + 1;
      std::string_view second = second_start < end ? AssignedExpression(code, second_start - 1, end) : "";
      product = first.find('[') != std::string_view::npos && second.find('[') != std::string_view::npos;
    } else if (StartsStatement(code, token.offset) && statement.find("+=") != std::string_view::npos) {
      std::string_view sum = statement.substr(statement.find("+=") + 2);
      size_t star = sum.find('*');
      product = star != std::string_view::npos && sum.substr(0, star).find(']') != std::string_view::npos &&
                sum.substr(star).find('[') != std::string_view::npos;
    }
    if (!product) continue;
    int line = context.model.LineOf(token.offset);
    context.collector.Add(
        kGemmNoTensor, context.kernel, line,
        fmt::format("{}: a multiply-accumulate of two array elements in a nested loop is a matrix "
                    "product on the FP32 FMA pipe; tensor cores (wmma/mma/wgmma) would do it "
                    "several times faster{}: {}",
                    context.Where(line), sass_text, context.Code(line)));
    return;
  }
}

void RunSourceRules(const RuleContext& context, const SassFunction* sass) {
  StridedGlobalAccessRule(context);
  SharedColumnAccessRule(context);
  AtomicRule(context);
  DivisionRules(context, sass);
  Fp64Rule(context, sass);
  BarrierInLoopRule(context);
  DivergenceRule(context);
  ScalarLoadRule(context, sass);
  GemmRule(context, sass);
}

// ---------------------------------------------------------------------------
// Rules on the compiler's output alone.

void PtxasRules(const PtxasFunctionReport& report, const std::string& kernel,
                HypothesisCollector& collector) {
  if (report.HasSpills() || report.stack_frame_bytes > 0) {
    collector.Add(
        kLocalMemory, kernel, std::nullopt,
        fmt::format("ptxas: {} bytes stack frame, {} bytes spill stores, {} bytes spill loads per thread: "
                    "local memory traffic through L1/L2",
                    report.stack_frame_bytes, report.spill_store_bytes, report.spill_load_bytes));
  }
  // 64 K registers and 64 warps per SM (sm_70 to sm_90), allocated per warp in units of 256.
  int per_warp = (report.registers * 32 + 255) / 256 * 256;
  int warps = per_warp > 0 ? std::min(64, 65536 / per_warp) : 64;
  double occupancy = warps / 64.0;
  if (occupancy < 0.5) {
    collector.Add(
        kRegisterPressure, kernel, std::nullopt,
        fmt::format("ptxas: {} registers per thread allow at most {} warps per SM ({:.0f}% occupancy with "
                    "64 K registers per SM)",
                    report.registers, warps, occupancy * 100));
  }
}

void SassRules(const SassFunction& function, const std::string& kernel, HypothesisCollector& collector) {
  int local = function.Count(InstructionClass::kLocalLoad) + function.Count(InstructionClass::kLocalStore);
  if (local > 0) {
    collector.Add(kLocalMemory, kernel, std::nullopt,
                  fmt::format("SASS: {} local-memory instructions (LDL/STL)", local));
  }
  int hmma = function.Count(InstructionClass::kTensorHmma);
  if (hmma > 0 && function.Count(InstructionClass::kTensorWarpgroup) == 0 &&
      StartsWith(function.architecture, "sm_90")) {
    collector.Add(
        kHmmaOnHopper, kernel, std::nullopt,
        fmt::format("SASS for {}: {} HMMA/IMMA (mma.sync) and no HGMMA: Hopper's wgmma path is unused",
                    function.architecture, hmma));
  }
  int fp64 = function.Count(InstructionClass::kFp64);
  if (fp64 > 0) {
    collector.Add(kFp64, kernel, std::nullopt,
                  fmt::format("SASS: {} FP64 instructions (DFMA/DADD/DMUL/...)", fp64));
  }
}

// "ns::gemm<128>" -> "gemm": how a kernel's name appears in its source.
std::string BaseName(std::string_view function_name) {
  function_name = function_name.substr(0, function_name.find('<'));
  size_t scope = function_name.rfind("::");
  if (scope != std::string_view::npos) function_name.remove_prefix(scope + 2);
  return std::string(function_name);
}

const SassFunction* SassFor(const HypothesisInputs& inputs, const std::string& name) {
  if (!inputs.sass) return nullptr;
  for (const SassFunction& function : inputs.sass->functions) {
    if (BaseName(FunctionNameOf(function.demangled_name)) == name) return &function;
  }
  return nullptr;
}

}  // namespace

std::string_view HypothesisOriginName(HypothesisOrigin origin) {
  return origin == HypothesisOrigin::kStatic ? "static" : "llm";
}

std::string_view HypothesisVerdictName(HypothesisVerdict verdict) {
  switch (verdict) {
    case HypothesisVerdict::kConfirmed: return "confirmed";
    case HypothesisVerdict::kRefuted: return "refuted";
    case HypothesisVerdict::kUndecided: return "undecided";
  }
  return "undecided";
}

std::vector<Hypothesis> PredictStaticHypotheses(const HypothesisInputs& inputs) {
  HypothesisCollector collector(inputs.source_file);
  SourceModel model = BuildSourceModel(inputs.source);
  std::set<std::string> kernels;
  for (const SourceFunction& function : model.functions) {
    std::string kernel = function.is_kernel ? function.name : "";
    if (function.is_kernel) kernels.insert(function.name);
    RuleContext context{model, inputs.source, function, collector, kernel, inputs.source_file};
    RunSourceRules(context, function.is_kernel ? SassFor(inputs, function.name) : nullptr);
  }
  // Compiler facts: for the source's kernels, or every function when there is no source.
  auto wanted = [&](const std::string& name) { return kernels.empty() || kernels.count(BaseName(name)) > 0; };
  if (inputs.ptxas) {
    for (const PtxasFunctionReport& report : inputs.ptxas->functions) {
      std::string name = FunctionNameOf(report.demangled_name);
      if (wanted(name)) PtxasRules(report, kernels.empty() ? name : BaseName(name), collector);
    }
  }
  if (inputs.sass) {
    for (const SassFunction& function : inputs.sass->functions) {
      std::string name = FunctionNameOf(function.demangled_name);
      if (wanted(name)) SassRules(function, kernels.empty() ? name : BaseName(name), collector);
    }
  }
  return collector.Take();
}

// ---------------------------------------------------------------------------
// The LLM pass.

namespace {

std::string NumberedSource(std::string_view source) {
  std::string text;
  int line = 0;
  for (std::string_view row : SplitLines(source)) text += fmt::format("{:4} | {}\n", ++line, row);
  return text;
}

std::string SassSummary(const HypothesisInputs& inputs) {
  if (!inputs.sass) return "(not available)";
  std::string text;
  for (const SassFunction& function : inputs.sass->functions) {
    text += fmt::format("- {} ({}): {} instructions", FunctionNameOf(function.demangled_name),
                        function.architecture, function.InstructionCount());
    for (size_t index = 0; index < static_cast<size_t>(InstructionClass::kCount); ++index) {
      int count = function.class_counts[index];
      if (count > 0)
        text += fmt::format(", {} {}", count, InstructionClassName(static_cast<InstructionClass>(index)));
    }
    text += "\n";
  }
  return text.empty() ? "(no functions)" : text;
}

std::string PtxasSummary(const HypothesisInputs& inputs) {
  if (!inputs.ptxas) return "(not available)";
  std::string text;
  for (const PtxasFunctionReport& report : inputs.ptxas->functions) {
    text += fmt::format(
        "- {}: {} registers, {} bytes shared memory, {} bytes stack frame, {} bytes spill stores, {} "
        "bytes spill loads\n",
        FunctionNameOf(report.demangled_name), report.registers, report.shared_memory_bytes,
        report.stack_frame_bytes, report.spill_store_bytes, report.spill_load_bytes);
  }
  return text.empty() ? "(no functions)" : text;
}

std::string StaticSummary(const std::vector<Hypothesis>& hypotheses) {
  if (hypotheses.empty()) return "(none)";
  std::string text;
  for (const Hypothesis& hypothesis : hypotheses) {
    std::string lines;
    for (int line : hypothesis.source_lines) lines += (lines.empty() ? "" : ",") + std::to_string(line);
    text += fmt::format("- {} [{}] kernel '{}' lines {}\n", hypothesis.title,
                        fmt::join(hypothesis.confirming_findings, ", "), hypothesis.kernel,
                        lines.empty() ? "-" : lines);
  }
  return text;
}

Result<std::string> RenderHypothesisPrompt(const std::string& directory, const std::string& name,
                                           const std::map<std::string, std::string>& values,
                                           std::vector<PromptRecord>& records) {
  KOPT_ASSIGN_OR_RETURN(PromptTemplate prompt_template, LoadPromptTemplate(directory, "hypotheses/" + name));
  KOPT_ASSIGN_OR_RETURN(RenderedPrompt rendered, RenderPrompt(prompt_template, values));
  records.push_back(rendered.record);
  return rendered.text;
}

Result<llm::ChatRequest> BuildHypothesisRequest(const HypothesisInputs& inputs,
                                                const std::vector<Hypothesis>& found,
                                                const std::string& directory,
                                                std::vector<PromptRecord>& records) {
  std::string ids;
  for (const std::string& id : KnownFindingIds()) ids += "- " + id + "\n";
  llm::ChatRequest request;
  request.purpose = "hypotheses";
  KOPT_ASSIGN_OR_RETURN(
      request.system_prompt,
      RenderHypothesisPrompt(directory, "system", {{"finding_ids", ids}, {"max_predictions", "8"}}, records));
  KOPT_ASSIGN_OR_RETURN(std::string user,
                        RenderHypothesisPrompt(directory, "user",
                                               {{"source_file", inputs.source_file},
                                                {"numbered_source", NumberedSource(inputs.source)},
                                                {"sass_summary", SassSummary(inputs)},
                                                {"ptxas_summary", PtxasSummary(inputs)},
                                                {"static_predictions", StaticSummary(found)}},
                                               records));
  request.messages.push_back(llm::ChatMessage{llm::Role::kUser, std::move(user)});
  return request;
}

// The JSON text of an answer: a ```json fence's content, else from the first '[' or '{' to the last ']' or
// '}'.
std::string_view JsonPart(std::string_view answer) {
  size_t fence = answer.find("```json");
  if (fence != std::string_view::npos) {
    size_t begin = answer.find('\n', fence);
    size_t end = begin == std::string_view::npos ? begin : answer.find("```", begin);
    if (begin != std::string_view::npos && end != std::string_view::npos)
      return answer.substr(begin + 1, end - begin - 1);
  }
  size_t begin = answer.find_first_of("[{");
  size_t end = answer.find_last_of("]}");
  if (begin == std::string_view::npos || end == std::string_view::npos || end < begin) return {};
  return answer.substr(begin, end - begin + 1);
}

std::optional<std::string> StringField(const nlohmann::json& entry, const char* name) {
  auto found = entry.find(name);
  if (found == entry.end() || !found->is_string()) return std::nullopt;
  return found->get<std::string>();
}

// One entry of the LLM's array; nullopt (with `problem` set) when unusable.
std::optional<Hypothesis> ParseLlmEntry(const nlohmann::json& entry, const std::set<std::string>& known,
                                        std::string_view source_file, std::string& problem) {
  if (!entry.is_object()) {
    problem = "not an object";
    return std::nullopt;
  }
  Hypothesis hypothesis;
  hypothesis.origin = HypothesisOrigin::kLlm;
  hypothesis.source_file = std::string(source_file);
  hypothesis.kernel = StringField(entry, "kernel").value_or("");
  hypothesis.title = StringField(entry, "title").value_or("");
  hypothesis.reason = StringField(entry, "reason").value_or("");
  std::vector<std::string> unknown;
  auto findings = entry.find("findings");
  if (findings != entry.end() && findings->is_array()) {
    for (const nlohmann::json& id : *findings) {
      if (!id.is_string()) continue;
      std::string text = id.get<std::string>();
      if (known.count(text))
        hypothesis.confirming_findings.push_back(text);
      else
        unknown.push_back(text);
    }
  }
  auto lines = entry.find("lines");
  if (lines != entry.end() && lines->is_array()) {
    for (const nlohmann::json& line : *lines) {
      if (line.is_number_integer() && line.get<long long>() > 0 && line.get<long long>() < 10000000) {
        hypothesis.source_lines.push_back(static_cast<int>(line.get<long long>()));
      }
    }
  }
  if (hypothesis.confirming_findings.empty()) {
    problem = unknown.empty() ? "no \"findings\" list"
                              : fmt::format("unknown finding ids {}", fmt::join(unknown, ", "));
    return std::nullopt;
  }
  if (hypothesis.title.empty()) hypothesis.title = hypothesis.confirming_findings.front();
  return hypothesis;
}

}  // namespace

std::vector<std::string> KnownFindingIds() {
  std::vector<std::string> ids;
  for (const ToolDefinition& tool : ToolRegistry()) {
    if (tool.finding_ids.empty()) ids.push_back(tool.id);
    for (const std::string& id : tool.finding_ids) ids.push_back(id);
  }
  ids.erase(std::remove(ids.begin(), ids.end(), "healthy"), ids.end());
  return ids;
}

Result<LlmHypothesisParse> ParseLlmHypotheses(std::string_view answer, std::string_view source_file) {
  std::string_view json_text = JsonPart(answer);
  if (json_text.empty()) return InvalidInput("hypotheses answer: no JSON array in the answer");
  nlohmann::json parsed = nlohmann::json::parse(json_text, nullptr, false);
  if (parsed.is_discarded()) {
    return InvalidInput("hypotheses answer: invalid JSON (" + Abbreviate(json_text, 80) + ")");
  }
  if (parsed.is_object() && parsed.contains("hypotheses")) parsed = parsed["hypotheses"];
  if (!parsed.is_array()) return InvalidInput("hypotheses answer: expected a JSON array of predictions");
  std::vector<std::string> ids = KnownFindingIds();
  std::set<std::string> known(ids.begin(), ids.end());
  LlmHypothesisParse result;
  for (const nlohmann::json& entry : parsed) {
    std::string problem;
    std::optional<Hypothesis> hypothesis = ParseLlmEntry(entry, known, source_file, problem);
    if (!hypothesis) {
      ++result.dropped;
      result.problems.push_back(
          fmt::format("entry {}: {}", result.dropped + result.hypotheses.size(), problem));
      continue;
    }
    hypothesis->id = "llm_" + std::to_string(result.hypotheses.size() + 1);
    result.hypotheses.push_back(std::move(*hypothesis));
  }
  return result;
}

HypothesisSet PredictHypotheses(const HypothesisInputs& inputs, llm::ChatClient* client,
                                const std::string& prompt_directory) {
  HypothesisSet set;
  set.hypotheses = PredictStaticHypotheses(inputs);
  if (!client) return set;
  set.llm_attempted = true;
  Result<llm::ChatRequest> request =
      BuildHypothesisRequest(inputs, set.hypotheses, prompt_directory, set.prompts);
  if (!request.ok()) {
    set.llm_error = request.status().message();
    return set;
  }
  Result<llm::ChatResponse> response = client->Complete(*request);
  if (!response.ok()) {
    set.llm_error = "LLM call failed: " + response.status().message();
    return set;
  }
  if (response->choices.empty() || TrimWhitespace(response->choices.front().content).empty()) {
    std::string reason = response->choices.empty() ? "" : response->choices.front().finish_reason;
    set.llm_error =
        "the LLM gave an empty answer" + (reason.empty() ? "" : " (finish_reason " + reason + ")");
    return set;
  }
  Result<LlmHypothesisParse> parsed =
      ParseLlmHypotheses(response->choices.front().content, inputs.source_file);
  if (!parsed.ok()) {
    set.llm_error = parsed.status().message();
    return set;
  }
  if (parsed->dropped > 0) {
    set.llm_error =
        fmt::format("{} LLM prediction(s) dropped: {}", parsed->dropped, fmt::join(parsed->problems, "; "));
  }
  for (Hypothesis& hypothesis : parsed->hypotheses) set.hypotheses.push_back(std::move(hypothesis));
  return set;
}

// ---------------------------------------------------------------------------
// Checking against the diagnosis.

namespace {

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// The tool that produces finding id `id` (its own id or a documented variant).
const ToolDefinition* ToolProducing(const std::string& id) {
  return FindToolProducing(id);
}

std::string FormatEvidence(const Evidence& evidence) {
  std::string text = fmt::format("{} = {:.4g}{}{}", evidence.metric, evidence.value,
                                 evidence.unit.empty() ? "" : " ", evidence.unit);
  if (!evidence.comparison.empty())
    text += fmt::format(" ({} {:.4g})", evidence.comparison, evidence.threshold);
  return text;
}

std::string FormatEvidenceList(const std::vector<Evidence>& rows) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < rows.size() && i < 4; ++i) parts.push_back(FormatEvidence(rows[i]));
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::optional<CheckedHypothesis> Confirmation(const Hypothesis& hypothesis, const KernelDiagnosis& kernel) {
  for (const Finding& finding : kernel.findings) {
    bool direct = Contains(hypothesis.confirming_findings, finding.tool);
    auto merged =
        std::find_if(finding.merged_tools.begin(), finding.merged_tools.end(),
                     [&](const std::string& tool) { return Contains(hypothesis.confirming_findings, tool); });
    if (!direct && merged == finding.merged_tools.end()) continue;
    CheckedHypothesis checked{
        hypothesis, HypothesisVerdict::kConfirmed, kernel.function_name, finding.tool, finding.evidence, ""};
    std::string via = direct ? "" : fmt::format(" (its {} finding was merged into it)", *merged);
    checked.explanation =
        fmt::format("confirmed by {}{}: {}", finding.tool, via, FormatEvidenceList(finding.evidence));
    return checked;
  }
  return std::nullopt;
}

std::vector<Evidence> StageOneEvidence(const RooflineAnalysis& roofline) {
  return {Evidence{"compute_percent_of_peak", roofline.compute_percent_of_peak, "%", "", 0},
          Evidence{"memory_percent_of_peak", roofline.memory_percent_of_peak, "%", "", 0},
          Evidence{"speed_of_light_percent", roofline.speed_of_light_percent, "%", "", 0},
          Evidence{"duration", roofline.duration_ns, "ns", "", 0}};
}

// Below this percent of its peak, a side of the roofline cannot be what limits a kernel.
constexpr double kIdleSidePercent = 30;

// Stage 1 contradicts a hypothesis about memory traffic on a compute-bound
// kernel whose memory side is nearly idle, and one about instruction cost on a
// memory-bound kernel whose compute side is nearly idle.
std::optional<std::string> StageOneContradiction(const Hypothesis& hypothesis,
                                                 const RooflineAnalysis& roofline) {
  auto all_in = [&](ToolSide side) {
    return std::all_of(hypothesis.confirming_findings.begin(), hypothesis.confirming_findings.end(),
                       [&](const std::string& id) {
                         const ToolDefinition* tool = FindToolProducing(id);
                         return tool && tool->side == side;
                       });
  };
  if (hypothesis.confirming_findings.empty()) return std::nullopt;
  if (all_in(ToolSide::kMemory) && roofline.bottleneck == BottleneckClass::kComputeBound &&
      roofline.memory_percent_of_peak < kIdleSidePercent) {
    return fmt::format(
        "the kernel is compute-bound (compute {:.1f}% of peak) and its memory side is at {:.1f}% of peak "
        "(< {:.0f}%)",
        roofline.compute_percent_of_peak, roofline.memory_percent_of_peak, kIdleSidePercent);
  }
  if (all_in(ToolSide::kCompute) && roofline.bottleneck == BottleneckClass::kMemoryBound &&
      roofline.compute_percent_of_peak < kIdleSidePercent) {
    return fmt::format(
        "the kernel is memory-bound (memory {:.1f}% of peak) and its compute side is at {:.1f}% of peak "
        "(< {:.0f}%)",
        roofline.memory_percent_of_peak, roofline.compute_percent_of_peak, kIdleSidePercent);
  }
  return std::nullopt;
}

}  // namespace

CheckedHypothesis CheckHypothesis(const Hypothesis& hypothesis, const KernelDiagnosis& kernel) {
  if (std::optional<CheckedHypothesis> confirmed = Confirmation(hypothesis, kernel)) return *confirmed;
  CheckedHypothesis checked{hypothesis, HypothesisVerdict::kUndecided, kernel.function_name, "", {}, ""};
  std::vector<std::string> ran;
  for (const std::string& id : hypothesis.confirming_findings) {
    const ToolDefinition* tool = ToolProducing(id);
    if (!tool) continue;
    auto skipped = std::find_if(kernel.skipped_tools.begin(), kernel.skipped_tools.end(),
                                [&](const SkippedTool& entry) { return entry.tool == tool->id; });
    if (skipped != kernel.skipped_tools.end()) {
      if (std::optional<std::string> contradiction = StageOneContradiction(hypothesis, kernel.roofline)) {
        checked.verdict = HypothesisVerdict::kRefuted;
        checked.evidence = StageOneEvidence(kernel.roofline);
        checked.explanation =
            fmt::format("refuted by stage 1 ({} was skipped): {}", tool->id, *contradiction);
        return checked;
      }
      checked.explanation = fmt::format("undecided: tool {} was skipped (missing {}; {})", tool->id,
                                        fmt::join(skipped->missing, ", "), skipped->how_to_collect);
      return checked;
    }
    if (!Contains(ran, tool->id)) ran.push_back(tool->id);
  }
  if (ran.empty()) {
    checked.explanation = fmt::format("undecided: no analysis tool produces {}",
                                      fmt::join(hypothesis.confirming_findings, ", "));
    return checked;
  }
  const RooflineAnalysis& roofline = kernel.roofline;
  checked.verdict = HypothesisVerdict::kRefuted;
  checked.evidence = StageOneEvidence(roofline);
  bool healthy = std::any_of(kernel.findings.begin(), kernel.findings.end(),
                             [](const Finding& finding) { return finding.tool == "healthy"; });
  checked.explanation = fmt::format(
      "refuted: {} ran and did not fire; stage 1 says {} (compute {:.1f}% and memory {:.1f}% of peak, {:.4g} "
      "ns){}",
      fmt::join(ran, ", "), BottleneckClassName(roofline.bottleneck), roofline.compute_percent_of_peak,
      roofline.memory_percent_of_peak, roofline.duration_ns,
      healthy ? "; the kernel was judged healthy" : "");
  return checked;
}

std::vector<CheckedHypothesis> CheckHypotheses(const std::vector<Hypothesis>& hypotheses,
                                               const Diagnosis& diagnosis) {
  std::vector<CheckedHypothesis> results;
  for (const Hypothesis& hypothesis : hypotheses) {
    std::vector<CheckedHypothesis> per_kernel;
    for (const KernelDiagnosis& kernel : diagnosis.kernels) {
      bool matches = hypothesis.kernel.empty() || kernel.function_name == hypothesis.kernel ||
                     BaseName(kernel.function_name) == hypothesis.kernel ||
                     BaseName(FunctionNameOf(kernel.kernel_name)) == hypothesis.kernel;
      if (matches) per_kernel.push_back(CheckHypothesis(hypothesis, kernel));
    }
    if (per_kernel.empty()) {
      CheckedHypothesis checked{hypothesis, HypothesisVerdict::kUndecided, "", "", {}, ""};
      checked.explanation = "undecided: no profiled kernel named '" + hypothesis.kernel + "'";
      results.push_back(std::move(checked));
      continue;
    }
    auto with = [&](HypothesisVerdict verdict) {
      return std::find_if(per_kernel.begin(), per_kernel.end(),
                          [&](const CheckedHypothesis& checked) { return checked.verdict == verdict; });
    };
    auto chosen = with(HypothesisVerdict::kConfirmed);
    if (chosen == per_kernel.end()) chosen = with(HypothesisVerdict::kUndecided);
    if (chosen == per_kernel.end()) chosen = per_kernel.begin();  // all refuted
    results.push_back(std::move(*chosen));
  }
  return results;
}

}  // namespace kopt::agents
