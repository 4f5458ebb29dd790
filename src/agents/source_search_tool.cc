#include "agents/source_search_tool.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <system_error>

#include "core/file_io.h"
#include "core/text.h"

namespace kopt::agents {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string Lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

// At most `limit` bytes of `text`, cut before a UTF-8 continuation byte,
// control characters as spaces; "…" marks a cut.
std::string Bounded(std::string_view text, size_t limit) {
  bool cut = text.size() > limit;
  if (cut) {
    size_t end = limit;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    text = text.substr(0, end);
  }
  std::string out(text);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return cut ? out + "…" : out;
}

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

size_t LineCount(std::string_view text) {
  if (text.empty()) return 0;
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + (text.back() == '\n' ? 0 : 1);
}

// Name search ranks: 0 the file name is the query, 1 the file name contains
// it, 2 only the directories do.
int NameRank(std::string_view path, const std::string& lower_query) {
  std::string base = Lower(BaseName(path));
  if (base == lower_query) return 0;
  return base.find(lower_query) != std::string::npos ? 1 : 2;
}

ToolAnswer Error(std::string text) {
  return {std::move(text), true};
}

// `text` as a JSON string literal (invalid UTF-8 replaced: the text is the model's).
std::string Quoted(std::string_view text) {
  return json(std::string(text)).dump(-1, ' ', false, json::error_handler_t::replace);
}

// An optional integer argument; nullopt plus an error text when mistyped.
bool IntegerArgument(const json& arguments, const char* name, int fallback, int& value, std::string& error) {
  auto found = arguments.find(name);
  if (found == arguments.end() || found->is_null()) {
    value = fallback;
    return true;
  }
  if (!found->is_number_integer()) {
    error = fmt::format("error: \"{}\" must be an integer", name);
    return false;
  }
  long long raw = found->get<long long>();
  value = static_cast<int>(std::clamp<long long>(raw, -1'000'000'000, 1'000'000'000));
  return true;
}

std::string StringArgument(const json& arguments, const char* name) {
  auto found = arguments.find(name);
  return found != arguments.end() && found->is_string() ? found->get<std::string>() : "";
}

std::string RenderSearch(const SourceSearchResult& result, std::string_view query, SourceSearchKind kind,
                         size_t file_count) {
  std::string text = fmt::format("{} {} for {} ({} search over {} files)\n", result.hits.size(),
                                 result.hits.size() == 1 ? "match" : "matches", Quoted(query),
                                 kind == SourceSearchKind::kName ? "name" : "text", file_count);
  for (const SourceSearchHit& hit : result.hits) {
    text += hit.line > 0 ? fmt::format("{}:{}: {}\n", hit.path, hit.line, hit.excerpt)
                         : fmt::format("{} {}\n", hit.path, hit.excerpt);
  }
  if (result.truncated) text += "(more matches not shown: narrow the query or raise max_results)\n";
  return text;
}

ToolAnswer RunSearch(const SourceTree& tree, const json& arguments) {
  std::string query = StringArgument(arguments, "query");
  if (query.empty()) return Error("error: search_source needs \"query\", a non-empty string");
  std::string kind_text = arguments.contains("kind") ? StringArgument(arguments, "kind") : "text";
  if (kind_text != "name" && kind_text != "text") {
    return Error("error: \"kind\" must be \"name\" (file paths) or \"text\" (file contents)");
  }
  SourceSearchKind kind = kind_text == "name" ? SourceSearchKind::kName : SourceSearchKind::kText;
  int max_results = 0;
  std::string error;
  if (!IntegerArgument(arguments, "max_results", 20, max_results, error)) return Error(error);
  Result<SourceSearchResult> result = tree.Search(query, kind, max_results);
  if (!result.ok()) return Error("error: " + result.status().message());
  return {RenderSearch(*result, query, kind, result->files), false};
}

ToolAnswer RunRead(const SourceTree& tree, const json& arguments) {
  std::string path = StringArgument(arguments, "path");
  if (path.empty()) return Error("error: read_source needs \"path\", a path relative to the tree's root");
  int first_line = 0, line_count = 0;
  std::string error;
  if (!IntegerArgument(arguments, "first_line", 1, first_line, error) ||
      !IntegerArgument(arguments, "line_count", 100, line_count, error)) {
    return Error(error);
  }
  Result<std::string> text = tree.Read(path, first_line, line_count);
  if (!text.ok()) return Error("error: " + text.status().message());
  return {*text, false};
}

}  // namespace

Result<SourceTree> SourceTree::Open(const std::string& root, SourceSearchLimits limits) {
  std::error_code error;
  fs::path canonical = fs::canonical(root, error);
  if (error) return NotFound(fmt::format("{}: the source tree does not exist ({})", root, error.message()));
  if (!fs::is_directory(canonical, error)) {
    return InvalidInput(fmt::format("{}: the source tree must be a directory", root));
  }
  SourceTree tree;
  tree.root_ = canonical.string();
  tree.limits_ = limits;
  fs::recursive_directory_iterator it(canonical, fs::directory_options::skip_permission_denied, error);
  if (error)
    return InvalidInput(fmt::format("{}: the source tree cannot be read: {}", root, error.message()));
  for (fs::recursive_directory_iterator end; it != end; it.increment(error)) {
    if (error) break;
    const fs::directory_entry& entry = *it;
    std::string name = entry.path().filename().string();
    if (entry.is_symlink(error)) continue;  // never followed: a link may point out of the tree
    if (entry.is_directory(error)) {
      if (!name.empty() && name[0] == '.') it.disable_recursion_pending();  // .git, caches
      continue;
    }
    if (!entry.is_regular_file(error)) continue;
    if (tree.files_.size() >= limits.max_files) {
      tree.index_truncated_ = true;
      break;
    }
    tree.files_.push_back(fs::relative(entry.path(), canonical, error).generic_string());
  }
  std::sort(tree.files_.begin(), tree.files_.end());
  return tree;
}

Result<SourceSearchResult> SourceTree::Search(std::string_view query, SourceSearchKind kind,
                                              int max_results) const {
  if (query.empty()) return InvalidInput("the query is empty");
  size_t limit = static_cast<size_t>(std::clamp(max_results, 1, limits_.max_results));
  SourceSearchResult result;
  result.files = files_.size();
  if (kind == SourceSearchKind::kName) {
    std::string lower_query = Lower(query);
    std::vector<std::pair<int, const std::string*>> matches;
    for (const std::string& path : files_) {
      if (Lower(path).find(lower_query) != std::string::npos)
        matches.push_back({NameRank(path, lower_query), &path});
    }
    std::stable_sort(matches.begin(), matches.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    result.truncated = matches.size() > limit;
    if (result.truncated) matches.resize(limit);
    for (const auto& [rank, path] : matches) {
      Result<std::string> text = ReadWholeFile(root_ + "/" + *path, limits_.max_file_bytes);
      std::string lines = text.ok() ? fmt::format("({} lines)", LineCount(*text)) : "(large file)";
      result.hits.push_back({*path, 0, std::move(lines)});
    }
    return result;
  }
  for (const std::string& path : files_) {
    Result<std::string> text = ReadWholeFile(root_ + "/" + path, limits_.max_file_bytes);
    if (!text.ok() || LooksBinary(*text)) continue;
    Status stop = ForEachLine(*text, [&](std::string_view line, size_t number) -> Status {
      if (line.find(query) == std::string_view::npos) return Status::Ok();
      if (result.hits.size() == limit) {
        result.truncated = true;
        return WorkFailed("enough hits");  // stops the walk
      }
      result.hits.push_back(
          {path, static_cast<int>(number), Bounded(TrimWhitespace(line), limits_.max_excerpt_bytes)});
      return Status::Ok();
    });
    if (!stop.ok()) break;
  }
  return result;
}

Result<std::string> SourceTree::Read(std::string_view path, int first_line, int line_count) const {
  std::string relative(path);
  while (StartsWith(relative, "./")) relative.erase(0, 2);
  if (!std::binary_search(files_.begin(), files_.end(), relative)) {
    return InvalidInput(fmt::format(
        "{} is not a file of the source tree (give a path relative to its root, as search_source prints it)",
        Quoted(path)));
  }
  if (line_count < 1) return InvalidInput("line_count must be at least 1");
  if (first_line < 1) first_line = 1;
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(root_ + "/" + relative, limits_.max_file_bytes));
  if (LooksBinary(text)) return InvalidInput(fmt::format("{} is a binary file", relative));
  std::vector<std::string_view> lines = SplitLines(text);
  if (static_cast<size_t>(first_line) > lines.size()) {
    return InvalidInput(
        fmt::format("{} has {} lines; first_line {} is past its end", relative, lines.size(), first_line));
  }
  int count = std::min(line_count, limits_.max_read_lines);
  size_t last = std::min(lines.size(), static_cast<size_t>(first_line) + static_cast<size_t>(count) - 1);
  std::string body;
  size_t shown_last = static_cast<size_t>(first_line) - 1;
  for (size_t number = static_cast<size_t>(first_line); number <= last; ++number) {
    std::string numbered = fmt::format("{}: {}\n", number, lines[number - 1]);
    if (body.size() + numbered.size() > limits_.max_read_bytes) break;
    body += numbered;
    shown_last = number;
  }
  if (shown_last < static_cast<size_t>(first_line)) {
    body = fmt::format("{}: {}\n", first_line, Bounded(lines[first_line - 1], limits_.max_read_bytes / 2));
    shown_last = static_cast<size_t>(first_line);
  }
  std::string text_out =
      fmt::format("{} lines {}-{} of {}\n{}", relative, first_line, shown_last, lines.size(), body);
  if (shown_last < lines.size() && shown_last < static_cast<size_t>(first_line) + line_count - 1) {
    text_out += fmt::format("(stopped at the read limit; continue with first_line {})\n", shown_last + 1);
  }
  return text_out;
}

std::vector<llm::ToolDefinition> SourceSearchToolDefinitions(const SourceTree& tree,
                                                             const std::string& tree_description) {
  const SourceSearchLimits& limits = tree.limits();
  llm::ToolDefinition search{
      std::string(kSearchSourceTool),
      fmt::format("Search {} ({} files) by file name (kind \"name\": paths containing the query, "
                  "case-insensitive) or by text (kind \"text\": lines containing the query literally, "
                  "case-sensitive). Returns up to {} hits as path:line: excerpt.",
                  tree_description, tree.file_count(), limits.max_results),
      R"json({"type":"object","properties":{"query":{"type":"string","description":"the text or file-name fragment"},)json"
      R"json("kind":{"type":"string","enum":["name","text"],"description":"name or text (default text)"},)json"
      R"json("max_results":{"type":"integer","description":"hits to return (default 20)"}},"required":["query"]})json"};
  llm::ToolDefinition read{
      std::string(kReadSourceTool),
      fmt::format("Read lines of one file of {} (a path as search_source prints it). Returns at most {} "
                  "numbered lines and {} bytes.",
                  tree_description, limits.max_read_lines, limits.max_read_bytes),
      R"json({"type":"object","properties":{"path":{"type":"string","description":"path relative to the tree's root"},)json"
      R"json("first_line":{"type":"integer","description":"1-based first line (default 1)"},)json"
      R"json("line_count":{"type":"integer","description":"lines to read (default 100)"}},"required":["path"]})json"};
  return {std::move(search), std::move(read)};
}

ToolAnswer ExecuteSourceSearchTool(const SourceTree& tree, const llm::ToolCall& call) {
  if (call.name != kSearchSourceTool && call.name != kReadSourceTool) {
    return Error(fmt::format("error: unknown tool {}; the tools are search_source and read_source",
                             Quoted(call.name)));
  }
  json arguments = json::parse(call.arguments.empty() ? "{}" : call.arguments, nullptr, false);
  if (!arguments.is_object()) {
    return Error(fmt::format("error: the arguments of {} must be a JSON object", call.name));
  }
  return call.name == kSearchSourceTool ? RunSearch(tree, arguments) : RunRead(tree, arguments);
}

}  // namespace kopt::agents
