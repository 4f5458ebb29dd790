// The programmer agent's source-search tool: search a source tree (the
// CUTLASS/CuTe tree of the nvidia-cutlass wheel: include/, examples/,
// tools/) by file name or by text, and read a bounded range of lines of one
// of its files — what the paper's programmer agent looks up for layouts and
// copy atoms. Offered to the LLM as two tools (SourceSearchToolDefinitions,
// docs/llm.md "Tools"):
//
//   search_source {query, kind: "name"|"text" (default "text"), max_results (default 20)}
//       name: files whose path relative to the root contains `query`
//             (case-insensitive); the file name matching exactly first, then
//             file names containing it, then other paths; each group by path.
//       text: lines containing `query` literally (case-sensitive), by path
//             then line number; each hit "path:line: excerpt".
//   read_source {path, first_line (default 1), line_count (default 100)}
//       the lines [first_line, first_line + line_count) of `path`, each
//       prefixed by its number, at most SourceSearchLimits::max_read_lines
//       lines and max_read_bytes bytes.
//
// The caller (the LLM) is hostile: a path is served only when it is one of
// the tree's indexed files (regular files found under the root without
// following symbolic links, so "..", absolute paths and links out of the
// tree are refused); every answer is bounded (limits below); every list is
// in a fixed order, so the same tree and the same call give the same bytes
// (a replayed transcript reproduces the run). Paths in answers are relative
// to the root (the same on any machine with the same tree).
//
// Errors: Open fails (NotFound / InvalidInput) when the root is not a
// readable directory. Everything a tool call does wrong (unknown tool,
// malformed arguments, a path outside the tree, an empty query) is an
// answer with is_error = true that says what is expected, never a Status.
//
// Thread safety: a SourceTree is immutable after Open; Search, Read and
// Execute may run on several threads at once (they read files, never write).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "llm/chat.h"

namespace kopt::agents {

struct SourceSearchLimits {
  int max_results = 50;             // hits per search (a larger max_results is clamped)
  size_t max_excerpt_bytes = 160;   // per hit line (cut at a UTF-8 boundary, marked "…")
  int max_read_lines = 200;         // lines per read
  size_t max_read_bytes = 16384;    // bytes per read answer
  size_t max_file_bytes = 4 << 20;  // larger files are listed by name search but not text-searched
  size_t max_files = 50000;         // files indexed (the rest is ignored, and the count says so)
};

enum class SourceSearchKind { kName, kText };

struct SourceSearchHit {
  std::string path;     // relative to the root, '/'-separated
  int line = 0;         // 1-based; 0 for a name hit
  std::string excerpt;  // text: the line, trimmed and bounded; name: "(N lines)"
};

struct SourceSearchResult {
  std::vector<SourceSearchHit> hits;
  bool truncated = false;  // more hits exist than were returned
  size_t files = 0;        // files the search looked at
};

class SourceTree {
 public:
  // Indexes the regular files under `root` (sorted by relative path).
  static Result<SourceTree> Open(const std::string& root, SourceSearchLimits limits = {});

  // InvalidInput for an empty query (the tool turns it into an error answer).
  Result<SourceSearchResult> Search(std::string_view query, SourceSearchKind kind, int max_results) const;
  // The numbered lines of `path` (relative). InvalidInput for a path that
  // is not an indexed file, a first_line past the end, a count < 1.
  Result<std::string> Read(std::string_view path, int first_line, int line_count) const;

  const std::string& root() const { return root_; }
  size_t file_count() const { return files_.size(); }
  bool index_truncated() const { return index_truncated_; }
  const SourceSearchLimits& limits() const { return limits_; }

 private:
  SourceTree() = default;
  std::string root_;  // absolute, canonical
  SourceSearchLimits limits_;
  std::vector<std::string> files_;  // relative paths, sorted
  bool index_truncated_ = false;
};

// The two tools' definitions (names, descriptions with the limits, JSON
// Schemas). `tree_description` says what the tree is ("CUTLASS 4.2 ...").
std::vector<llm::ToolDefinition> SourceSearchToolDefinitions(const SourceTree& tree,
                                                             const std::string& tree_description);

inline constexpr std::string_view kSearchSourceTool = "search_source";
inline constexpr std::string_view kReadSourceTool = "read_source";

struct ToolAnswer {
  std::string text;  // what the model is shown
  bool is_error = false;
};

// Runs one call of either tool against `tree`; anything else is an error answer.
ToolAnswer ExecuteSourceSearchTool(const SourceTree& tree, const llm::ToolCall& call);

}  // namespace kopt::agents
