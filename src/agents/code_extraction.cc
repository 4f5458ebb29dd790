#include "agents/code_extraction.h"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "core/text.h"

namespace kopt::agents {
namespace {

struct FencedBlock {
  std::string language;  // info string's first word, lowercased; empty for a bare fence
  std::string content;
  bool closed = false;
  size_t first_line = 0;  // 1-based line of the opening fence
};

struct Fence {
  char marker = 0;  // '`' or '~'
  size_t length = 0;
  std::string_view info;
};

// A fence line: optional indentation, then 3+ backticks or tildes.
std::optional<Fence> ParseFence(std::string_view line) {
  std::string_view trimmed = TrimWhitespace(line);
  if (trimmed.size() < 3 || (trimmed[0] != '`' && trimmed[0] != '~')) return std::nullopt;
  Fence fence;
  fence.marker = trimmed[0];
  while (fence.length < trimmed.size() && trimmed[fence.length] == fence.marker) ++fence.length;
  if (fence.length < 3) return std::nullopt;
  fence.info = TrimWhitespace(trimmed.substr(fence.length));
  return fence;
}

std::string LanguageOf(std::string_view info) {
  std::string language;
  for (char c : info) {
    if (c == ' ' || c == '\t' || c == '{') break;
    language.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c));
  }
  return language;
}

std::vector<FencedBlock> FindFencedBlocks(std::string_view answer) {
  std::vector<FencedBlock> blocks;
  std::optional<Fence> open;
  size_t line_number = 0;
  for (std::string_view line : SplitLines(answer)) {
    ++line_number;
    std::optional<Fence> fence = ParseFence(line);
    if (!open) {
      if (!fence) continue;
      open = fence;
      blocks.push_back(FencedBlock{LanguageOf(fence->info), "", false, line_number});
      continue;
    }
    bool closes =
        fence && fence->marker == open->marker && fence->length >= open->length && fence->info.empty();
    if (closes) {
      blocks.back().closed = true;
      open.reset();
      continue;
    }
    blocks.back().content.append(line);
    blocks.back().content.push_back('\n');
  }
  return blocks;
}

bool IsCodeLanguage(std::string_view language) {
  static constexpr std::array<std::string_view, 10> kCodeLanguages = {"",    "cuda", "cu",  "cpp", "c++",
                                                                      "cxx", "c",    "cuh", "cc",  "hpp"};
  return std::find(kCodeLanguages.begin(), kCodeLanguages.end(), language) != kCodeLanguages.end();
}

// Net '{' minus '}' outside comments, string and character literals.
int BraceBalance(std::string_view code) {
  int depth = 0;
  enum class State { kCode, kLineComment, kBlockComment, kString, kChar } state = State::kCode;
  for (size_t i = 0; i < code.size(); ++i) {
    char c = code[i];
    char next = i + 1 < code.size() ? code[i + 1] : '\0';
    switch (state) {
      case State::kCode:
        if (c == '/' && next == '/')
          state = State::kLineComment, ++i;
        else if (c == '/' && next == '*')
          state = State::kBlockComment, ++i;
        else if (c == '"')
          state = State::kString;
        else if (c == '\'')
          state = State::kChar;
        else if (c == '{')
          ++depth;
        else if (c == '}')
          --depth;
        break;
      case State::kLineComment:
        if (c == '\n') state = State::kCode;
        break;
      case State::kBlockComment:
        if (c == '*' && next == '/') state = State::kCode, ++i;
        break;
      case State::kString:
      case State::kChar:
        if (c == '\\')
          ++i;
        else if ((state == State::kString && c == '"') || (state == State::kChar && c == '\'') || c == '\n')
          state = State::kCode;
        break;
    }
  }
  return depth;
}

// Positions where `name` occurs as a whole identifier.
std::vector<size_t> IdentifierOccurrences(std::string_view code, std::string_view name) {
  std::vector<size_t> positions;
  if (name.empty()) return positions;
  for (size_t at = code.find(name); at != std::string_view::npos; at = code.find(name, at + 1)) {
    bool starts = at == 0 || !IsIdentifierChar(code[at - 1]);
    bool ends = at + name.size() >= code.size() || !IsIdentifierChar(code[at + name.size()]);
    if (starts && ends) positions.push_back(at);
  }
  return positions;
}

size_t SkipSpaces(std::string_view code, size_t at) {
  while (at < code.size() && (code[at] == ' ' || code[at] == '\t' || code[at] == '\n' || code[at] == '\r'))
    ++at;
  return at;
}

// True when `name(...)` is followed by a body '{' somewhere in `code`.
bool DefinesFunction(std::string_view code, std::string_view name) {
  for (size_t at : IdentifierOccurrences(code, name)) {
    size_t open = SkipSpaces(code, at + name.size());
    if (open >= code.size() || code[open] != '(') continue;
    int depth = 0;
    size_t close = open;
    for (; close < code.size(); ++close) {
      if (code[close] == '(') ++depth;
      if (code[close] == ')' && --depth == 0) break;
    }
    if (close >= code.size()) continue;
    size_t body = SkipSpaces(code, close + 1);
    if (body < code.size() && code[body] == '{') return true;
  }
  return false;
}

bool MentionsIdentifier(std::string_view code, std::string_view name) {
  return name.empty() || !IdentifierOccurrences(code, name).empty();
}

bool LooksLikeCodeStart(std::string_view text) {
  for (std::string_view line : SplitLines(text)) {
    std::string_view trimmed = TrimWhitespace(line);
    if (trimmed.empty()) continue;
    static constexpr std::array<std::string_view, 15> kCodeStarts = {
        "#include", "#pragma",   "#define", "#if",     "extern \"C\"", "template", "__global__", "__device__",
        "__host__", "namespace", "using ",  "typedef", "struct ",      "//",       "/*"};
    return std::any_of(kCodeStarts.begin(), kCodeStarts.end(),
                       [&](std::string_view start) { return StartsWith(trimmed, start); });
  }
  return false;
}

std::string BlockName(const FencedBlock& block, int index) {
  return "block " + std::to_string(index + 1) + " (```" + block.language + ", line " +
         std::to_string(block.first_line) + ")";
}

ExtractedCode Outcome(ExtractionOutcome outcome, std::string source, std::string message) {
  ExtractedCode result;
  result.outcome = outcome;
  result.source = std::move(source);
  result.message = std::move(message);
  return result;
}

// Final checks on the code chosen from a block or from unfenced text:
// truncation first, then the entry point.
ExtractedCode Finish(ExtractedCode chosen, bool fenced_and_closed, std::string_view finish_reason,
                     std::string_view entry_point) {
  int balance = BraceBalance(chosen.source);
  std::string cut;
  if (!fenced_and_closed && finish_reason == "length")
    cut = "the answer hit the token limit (finish_reason length)";
  if (chosen.chosen_block >= 0 && !fenced_and_closed) cut = "the code block's fence is never closed";
  if (balance != 0) {
    cut += std::string(cut.empty() ? "" : "; ") + "braces are unbalanced (" + std::to_string(balance) +
           (balance > 0 ? " unclosed '{')" : " extra '}')");
  }
  if (!cut.empty()) {
    chosen.message = "truncated code: " + cut + (finish_reason == "length" ? " (finish_reason length)" : "");
    chosen.outcome = ExtractionOutcome::kTruncated;
    return chosen;
  }
  if (!MentionsIdentifier(chosen.source, entry_point)) {
    chosen.message = "the extracted code never mentions the entry point '" + std::string(entry_point) + "'";
    chosen.outcome = ExtractionOutcome::kMissingEntryPoint;
    return chosen;
  }
  if (finish_reason == "length") chosen.message += " (the answer was cut off after the complete code block)";
  return chosen;
}

ExtractedCode ExtractUnfenced(std::string_view answer, std::string_view finish_reason,
                              std::string_view entry_point) {
  if (TrimWhitespace(answer).empty()) {
    std::string why = finish_reason.empty() ? "" : " (finish_reason " + std::string(finish_reason) + ")";
    return Outcome(ExtractionOutcome::kNoCodeBlock, "", "no code block: the answer is empty" + why);
  }
  if (!LooksLikeCodeStart(answer)) {
    std::string why = finish_reason == "refusal" || finish_reason == "content_filter"
                          ? " (the model refused: finish_reason " + std::string(finish_reason) + ")"
                          : "";
    return Outcome(ExtractionOutcome::kNoCodeBlock, "",
                   "no code block: the answer has no fenced block and does not start with code" + why);
  }
  ExtractedCode chosen = Outcome(ExtractionOutcome::kUnfencedCode, std::string(answer),
                                 "no fences: the whole answer is taken as code");
  return Finish(std::move(chosen), false, finish_reason, entry_point);
}

// Several code blocks: the one defining the entry point; if several do, the
// last complete one.
ExtractedCode ChooseAmong(const std::vector<FencedBlock>& blocks, const std::vector<int>& candidates,
                          std::string_view finish_reason, std::string_view entry_point) {
  std::vector<int> defining;
  for (int index : candidates) {
    if (DefinesFunction(blocks[index].content, entry_point)) defining.push_back(index);
  }
  auto complete = [&](int index) { return blocks[index].closed && BraceBalance(blocks[index].content) == 0; };
  std::string count = std::to_string(candidates.size()) + " code blocks";
  if (defining.empty()) {
    bool any_mention = std::any_of(candidates.begin(), candidates.end(), [&](int index) {
      return MentionsIdentifier(blocks[index].content, entry_point);
    });
    ExtractionOutcome outcome =
        any_mention ? ExtractionOutcome::kAmbiguous : ExtractionOutcome::kMissingEntryPoint;
    return Outcome(outcome, "",
                   count + ", none defines the entry point '" + std::string(entry_point) +
                       "'; not guessing which to use");
  }
  int chosen = defining.back();
  std::string why = "the only one defining '" + std::string(entry_point) + "'";
  if (defining.size() > 1) {
    auto last_complete = std::find_if(defining.rbegin(), defining.rend(), complete);
    if (last_complete != defining.rend()) chosen = *last_complete;
    why = "the last complete one of " + std::to_string(defining.size()) + " defining '" +
          std::string(entry_point) + "'";
  }
  ExtractedCode result = Outcome(ExtractionOutcome::kChosenBlock, blocks[chosen].content,
                                 count + ": chose " + BlockName(blocks[chosen], chosen) + ", " + why);
  result.chosen_block = chosen;
  return Finish(std::move(result), blocks[chosen].closed, finish_reason, entry_point);
}

}  // namespace

std::string_view ExtractionOutcomeName(ExtractionOutcome outcome) {
  switch (outcome) {
    case ExtractionOutcome::kSingleBlock: return "single_block";
    case ExtractionOutcome::kChosenBlock: return "chosen_block";
    case ExtractionOutcome::kUnfencedCode: return "unfenced_code";
    case ExtractionOutcome::kTruncated: return "truncated";
    case ExtractionOutcome::kNoCodeBlock: return "no_code_block";
    case ExtractionOutcome::kMissingEntryPoint: return "missing_entry_point";
    case ExtractionOutcome::kAmbiguous: return "ambiguous";
  }
  return "unknown";
}

ExtractedCode ExtractCode(std::string_view answer, std::string_view finish_reason,
                          std::string_view entry_point) {
  std::vector<FencedBlock> blocks = FindFencedBlocks(answer);
  std::vector<int> candidates;
  for (int index = 0; index < static_cast<int>(blocks.size()); ++index) {
    if (IsCodeLanguage(blocks[index].language)) candidates.push_back(index);
  }
  ExtractedCode result;
  if (blocks.empty()) {
    result = ExtractUnfenced(answer, finish_reason, entry_point);
  } else if (candidates.empty()) {
    std::string languages;
    for (const FencedBlock& block : blocks) languages += (languages.empty() ? "" : ", ") + block.language;
    result = Outcome(ExtractionOutcome::kNoCodeBlock, "",
                     "no code block: the answer's fenced blocks are not C/C++/CUDA (" + languages + ")");
  } else if (candidates.size() == 1) {
    const FencedBlock& block = blocks[candidates.front()];
    result = Outcome(ExtractionOutcome::kSingleBlock, block.content,
                     "one code block: " + BlockName(block, candidates.front()));
    result.chosen_block = candidates.front();
    result = Finish(std::move(result), block.closed, finish_reason, entry_point);
  } else {
    result = ChooseAmong(blocks, candidates, finish_reason, entry_point);
  }
  result.block_count = static_cast<int>(blocks.size());
  return result;
}

}  // namespace kopt::agents
