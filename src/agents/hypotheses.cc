// The static pass of the hypotheses (hypotheses.h): rules over the kernel
// source (its model: profile/cuda_source.h), the SASS summary and the ptxas
// report. The LLM pass is in hypothesis_llm.cc, the check against the
// diagnosis in hypothesis_check.cc.
#include "agents/hypotheses.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include "core/text.h"
#include "profile/cuda_source.h"
#include "profile/kernel_launch.h"

namespace kopt::agents {
namespace {

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
// Every rule, in the order above.
const RuleInfo* const kRules[] = {
    &kStridedLoads, &kStridedStores,   &kSharedColumn,  &kAtomics,         &kIntegerDivision,
    &kFp64,         &kTranscendentals, &kBarrierInLoop, &kDivergence,      &kScalarLoads,
    &kGemmNoTensor, &kHmmaOnHopper,    &kLocalMemory,   &kRegisterPressure};

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

std::string Snippet(const CudaSourceModel& model, std::string_view original, int line) {
  (void)model;
  std::vector<std::string_view> lines = SplitLines(original);
  if (line < 1 || line > static_cast<int>(lines.size())) return "";
  return Abbreviate(TrimWhitespace(lines[line - 1]), 100);
}

// ---------------------------------------------------------------------------
// Source rules. Each looks at one function body.

struct RuleContext {
  const CudaSourceModel& model;
  std::string_view original;
  const CudaFunction& function;
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

// One subscript of a pointer parameter in the function body: `token[...]`.
struct PointerSubscript {
  const SourceToken& pointer;
  size_t open = 0;     // offset of '['
  size_t close = 0;    // offset of the matching ']'
  bool store = false;  // followed by '=' (not '==')
};

// Calls `visit` for every subscript of a pointer parameter in the body.
template <typename Visit>
void ForEachPointerSubscript(const RuleContext& context, Visit visit) {
  std::string_view code = context.model.code;
  const CudaFunction& function = context.function;
  for (const SourceToken& token : SourceIdentifiers(code, function.body_begin, function.body_end)) {
    if (!function.pointer_parameters.count(token.text)) continue;
    size_t open = SkipSpace(code, token.offset + token.text.size());
    if (open >= function.body_end || code[open] != '[') continue;
    size_t close = MatchingBracket(code, open);
    if (close == std::string_view::npos) continue;
    size_t after = SkipSpace(code, close + 1);
    bool store = after < code.size() && code[after] == '=' && code[after + 1] != '=';
    visit(PointerSubscript{token, open, close, store});
  }
}

void StridedGlobalAccessRule(const RuleContext& context) {
  std::string_view code = context.model.code;
  const CudaFunction& function = context.function;
  ForEachPointerSubscript(context, [&](const PointerSubscript& access) {
    std::string strided;
    for (const SourceToken& index : SourceIdentifiers(code, access.open + 1, access.close)) {
      if (function.lane_varying.count(index.text) &&
          IsMultiplied(code, index.offset, index.text.size(), access.open + 1, access.close)) {
        strided = index.text;
      }
    }
    if (strided.empty()) return;
    int line = context.model.LineOf(access.pointer.offset);
    std::string reason = fmt::format(
        "{}: the index of {} multiplies the lane-varying '{}', so neighbouring lanes touch addresses a "
        "stride "
        "apart: {}",
        context.Where(line), access.pointer.text, strided, context.Code(line));
    context.collector.Add(access.store ? kStridedStores : kStridedLoads, context.kernel, line, reason);
  });
}

struct SharedArray {
  std::string name;
  std::vector<std::string> dimensions;
  int line = 0;
};

std::vector<SharedArray> SharedArrays(const CudaSourceModel& model, const CudaFunction& function) {
  std::vector<SharedArray> arrays;
  std::string_view code = model.code;
  std::vector<SourceToken> tokens = SourceIdentifiers(code, function.body_begin, function.body_end);
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
  const CudaFunction& function = context.function;
  for (const SharedArray& array : SharedArrays(context.model, function)) {
    if (array.dimensions.size() < 2) continue;
    std::optional<long long> row = EvaluateIntegerExpression(array.dimensions.back(), context.model.macros);
    if (!row || *row % 32 != 0) continue;  // unknown, or padded: rows start in different banks
    for (const SourceToken& token : SourceIdentifiers(code, function.body_begin, function.body_end)) {
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

bool CallFollows(std::string_view code, const SourceToken& token) {
  size_t after = SkipSpace(code, token.offset + token.text.size());
  return after < code.size() && code[after] == '(';
}

void AtomicRule(const RuleContext& context) {
  std::string_view code = context.model.code;
  const CudaFunction& function = context.function;
  for (const SourceToken& token : SourceIdentifiers(code, function.body_begin, function.body_end)) {
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
  while (i < limit && IsIdentifierChar(code[i])) ++i;
  return std::string(code.substr(begin, i - begin));
}

void DivisionRules(const RuleContext& context, const SassFunction* sass) {
  std::string_view code = context.model.code;
  const CudaFunction& function = context.function;
  static const std::set<std::string> kMufuFunctions = {
      "expf",  "exp",  "__expf", "exp2f",  "exp10f", "logf",   "log",  "__logf",
      "log2f", "sinf", "cosf",   "__sinf", "__cosf", "sin",    "cos",  "tanf",
      "tanhf", "powf", "pow",    "__powf", "sqrtf",  "rsqrtf", "erff", "sincosf"};
  int mufu = sass ? sass->Count(InstructionClass::kSpecialFunction) : -1;
  std::string mufu_text = mufu >= 0 ? fmt::format(" (SASS: {} MUFU instructions)", mufu) : "";
  for (const SourceToken& token : SourceIdentifiers(code, function.body_begin, function.body_end)) {
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
        (i == 0 || (!IsIdentifierChar(code[i - 1]) && code[i - 1] != '.'));
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
    bool suffixed = j < end && IsIdentifierChar(code[j]);  // 1.0f, 2.5F, 0x1p3...
    if (floating && !suffixed) offsets.push_back(i);
    i = j;
  }
  return offsets;
}

void Fp64Rule(const RuleContext& context, const SassFunction* sass) {
  std::string_view code = context.model.code;
  const CudaFunction& function = context.function;
  int fp64 = sass ? sass->Count(InstructionClass::kFp64) : -1;
  if (fp64 == 0) return;  // the compiler emitted none: nothing to predict
  std::string sass_text = fp64 > 0 ? fmt::format("; SASS has {} FP64 instructions", fp64) : "";
  for (const SourceToken& token : SourceIdentifiers(code, function.body_begin, function.body_end)) {
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
  for (const SourceToken& token :
       SourceIdentifiers(code, context.function.body_begin, context.function.body_end)) {
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
bool LaneSplittingCondition(std::string_view condition, const CudaFunction& function) {
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
  const CudaFunction& function = context.function;
  for (const SourceToken& token : SourceIdentifiers(code, function.body_begin, function.body_end)) {
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
  const CudaFunction& function = context.function;
  ForEachPointerSubscript(context, [&](const PointerSubscript& access) {
    bool contiguous = false;
    for (const SourceToken& index : SourceIdentifiers(code, access.open + 1, access.close)) {
      if (function.lane_varying.count(index.text) &&
          !IsMultiplied(code, index.offset, index.text.size(), access.open + 1, access.close))
        contiguous = true;
    }
    if (!contiguous || access.store) return;
    int line = context.model.LineOf(access.pointer.offset);
    context.collector.Add(
        kScalarLoads, context.kernel, line,
        fmt::format("{}: each thread loads one element of {} and the SASS has only {}-bit global "
                    "loads (no LDG.64/LDG.128), so few bytes are in flight per thread: {}",
                    context.Where(line), access.pointer.text, widest, context.Code(line)));
  });
}

// True when the text before `offset` ends a statement or a loop/if header.
bool StartsStatement(std::string_view code, size_t offset) {
  size_t before = offset;
  while (before > 0 && std::isspace(static_cast<unsigned char>(code[before - 1]))) --before;
  return before == 0 || std::string_view(";{})").find(code[before - 1]) != std::string_view::npos;
}

int LoopDepth(const CudaSourceModel& model, size_t offset) {
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
  const CudaFunction& function = context.function;
  std::string sass_text =
      sass ? fmt::format("; SASS: {} FFMA, no HMMA/HGMMA",
                         sass->opcode_counts.count("FFMA") ? sass->opcode_counts.at("FFMA") : 0)
           : "";
  for (const SourceToken& token : SourceIdentifiers(code, function.body_begin, function.body_end)) {
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

const SassFunction* SassFor(const HypothesisInputs& inputs, const std::string& name) {
  if (!inputs.sass) return nullptr;
  for (const SassFunction& function : inputs.sass->functions) {
    if (SourceNameOf(FunctionNameOf(function.demangled_name)) == name) return &function;
  }
  return nullptr;
}

}  // namespace

std::string_view HypothesisOriginName(HypothesisOrigin origin) {
  switch (origin) {
    case HypothesisOrigin::kStatic: return "static";
    case HypothesisOrigin::kLlm: return "llm";
  }
  return "static";
}

std::vector<Hypothesis> PredictStaticHypotheses(const HypothesisInputs& inputs) {
  HypothesisCollector collector(inputs.source_file);
  // A source beyond the parser's limits gets no source rules; the compiler facts still count.
  Result<CudaSourceModel> parsed = ParseCudaSource(inputs.source, inputs.source_file);
  CudaSourceModel model = parsed.ok() ? std::move(parsed).value() : CudaSourceModel{};
  std::set<std::string> kernels;
  for (const CudaFunction& function : model.functions) {
    std::string kernel = function.is_kernel ? function.name : "";
    if (function.is_kernel) kernels.insert(function.name);
    RuleContext context{model, inputs.source, function, collector, kernel, inputs.source_file};
    RunSourceRules(context, function.is_kernel ? SassFor(inputs, function.name) : nullptr);
  }
  // Compiler facts: for the source's kernels, or every function when there is no source.
  auto wanted = [&](const std::string& name) {
    return kernels.empty() || kernels.count(SourceNameOf(name)) > 0;
  };
  if (inputs.ptxas) {
    for (const PtxasFunctionReport& report : inputs.ptxas->functions) {
      std::string name = FunctionNameOf(report.demangled_name);
      if (wanted(name)) PtxasRules(report, kernels.empty() ? name : SourceNameOf(name), collector);
    }
  }
  if (inputs.sass) {
    for (const SassFunction& function : inputs.sass->functions) {
      std::string name = FunctionNameOf(function.demangled_name);
      if (wanted(name)) SassRules(function, kernels.empty() ? name : SourceNameOf(name), collector);
    }
  }
  return collector.Take();
}

std::vector<std::string> StaticRuleConfirmingFindingIds() {
  std::vector<std::string> ids;
  for (const RuleInfo* rule : kRules) ids.insert(ids.end(), rule->confirming.begin(), rule->confirming.end());
  return ids;
}

}  // namespace kopt::agents
