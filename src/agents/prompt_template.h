// Prompt templates: versioned text files in the repository under
// prompts/<group>/<name>.md (docs/prompts.md).
//
// A template's first line is its header,
//   <!-- kopt-prompt: id=programmer/optimize version=1 -->
// where `id` must equal the file's path below the prompt directory without
// ".md", and `version` is a positive integer bumped whenever the wording
// changes. The body is everything after that line. It may contain
// placeholders `{{name}}` (name: [a-z][a-z0-9_]*), substituted in one pass:
// substituted values are never rescanned, so a value may itself contain "{{".
// Rendering fails, naming the template and placeholder, when a placeholder has
// no value or a value names no placeholder of the template.
//
// The rendered prompt carries its id, version, the SHA-256 of the template
// file and of the rendered text: what the run record lists.
//
// Thread safety: pure functions over values, except the file reads of
// LoadPromptTemplate / ListPromptTemplates and the environment read of
// DefaultPromptDirectoryCandidates.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kopt::agents {

struct PromptTemplate {
  std::string id;                         // "programmer/optimize"
  int version = 0;                        // >= 1
  std::string file_name;                  // path it was read from (errors, records)
  std::string body;                       // text after the header line
  std::string template_sha256;            // lowercase hex of the whole file's bytes
  std::vector<std::string> placeholders;  // distinct names, in order of first use
};

// What the run record keeps about one prompt used.
struct PromptRecord {
  std::string id;
  int version = 0;
  std::string template_sha256;  // lowercase hex, 64 characters
  std::string text_sha256;      // of the rendered text; empty in a listing
};

struct RenderedPrompt {
  PromptRecord record;
  std::string text;
};

// Lowercase hex SHA-256 of `bytes` (OpenSSL EVP).
std::string Sha256Hex(std::string_view bytes);

// Parses a template's text. `file_name` is used in errors; `expected_id`, when
// not empty, must equal the header's id.
Result<PromptTemplate> ParsePromptTemplate(std::string_view text, std::string_view file_name,
                                           std::string_view expected_id = {});

// Substitutes `values` into the template (see the file comment for the rules).
Result<RenderedPrompt> RenderPrompt(const PromptTemplate& prompt_template,
                                    const std::map<std::string, std::string>& values);

// Where to look for the prompt directory, in order of preference.
struct PromptDirectoryCandidates {
  std::string environment_value;  // $KOPT_PROMPT_DIR; empty when unset
  std::string executable_path;    // the running program; empty when unknown
  std::string source_directory;   // the repository's prompts/ (compile-time); may be empty
};

// Reads $KOPT_PROMPT_DIR, /proc/self/exe and the compile-time source path.
PromptDirectoryCandidates DefaultPromptDirectoryCandidates();

// The first existing directory of: the environment value (if set it must
// exist, else an error naming KOPT_PROMPT_DIR), <dir of executable>/../share/kopt/prompts,
// the source directory. NotFound listing the places tried when none exists.
Result<std::string> FindPromptDirectory(const PromptDirectoryCandidates& candidates);
Result<std::string> FindPromptDirectory();  // with DefaultPromptDirectoryCandidates()

// Reads and parses <directory>/<id>.md; the header's id must equal `id`.
Result<PromptTemplate> LoadPromptTemplate(const std::string& directory, std::string_view id);

// Every template under `directory` (recursively, *.md files), sorted by id.
// A file whose header is missing or malformed is an error naming it.
Result<std::vector<PromptTemplate>> ListPromptTemplates(const std::string& directory);

}  // namespace kopt::agents
