#include "agents/prompt_template.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/text.h"

namespace kopt::agents {
namespace {

constexpr std::string_view kHeaderOpen = "<!-- kopt-prompt:";
constexpr std::string_view kHeaderClose = "-->";
constexpr size_t kMaxTemplateBytes = size_t{1} << 20;

bool IsPlaceholderStart(char c) {
  return c >= 'a' && c <= 'z';
}
bool IsPlaceholderChar(char c) {
  return IsPlaceholderStart(c) || (c >= '0' && c <= '9') || c == '_';
}

// 1-based line number of `offset` in `text`.
size_t LineOf(std::string_view text, size_t offset) {
  return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

// One piece of a template body: literal text or a placeholder name.
struct Piece {
  bool is_placeholder = false;
  std::string_view text;
};

// Splits a body into literal text and placeholders. `file_name` and
// `first_body_line` are for errors.
Result<std::vector<Piece>> SplitBody(std::string_view body, std::string_view file_name,
                                     size_t first_body_line) {
  std::vector<Piece> pieces;
  size_t position = 0;
  while (position < body.size()) {
    size_t open = body.find("{{", position);
    if (open == std::string_view::npos) {
      pieces.push_back({false, body.substr(position)});
      break;
    }
    if (open > position) pieces.push_back({false, body.substr(position, open - position)});
    size_t name_start = open + 2;
    size_t name_end = name_start;
    while (name_end < body.size() && IsPlaceholderChar(body[name_end])) ++name_end;
    bool well_formed =
        name_end > name_start && IsPlaceholderStart(body[name_start]) && body.substr(name_end, 2) == "}}";
    if (!well_formed) {
      return InvalidInput(std::string(file_name) + ":" +
                          std::to_string(first_body_line + LineOf(body, open) - 1) +
                          ": malformed placeholder; expected {{name}} with name matching [a-z][a-z0-9_]*");
    }
    pieces.push_back({true, body.substr(name_start, name_end - name_start)});
    position = name_end + 2;
  }
  return pieces;
}

struct Header {
  std::string id;
  int version = 0;
};

Result<Header> ParseHeader(std::string_view line, std::string_view file_name) {
  std::string expected = std::string(file_name) +
                         ":1: expected the header line <!-- kopt-prompt: id=<group>/<name> version=<N> -->";
  line = TrimWhitespace(line);
  if (!StartsWith(line, kHeaderOpen) || !EndsWith(line, kHeaderClose)) return InvalidInput(expected);
  std::string_view fields =
      line.substr(kHeaderOpen.size(), line.size() - kHeaderOpen.size() - kHeaderClose.size());
  std::istringstream stream{std::string(fields)};
  Header header;
  std::string field;
  while (stream >> field) {
    if (StartsWith(field, "id=")) {
      header.id = field.substr(3);
    } else if (StartsWith(field, "version=")) {
      std::optional<long long> version = ParseInteger(std::string_view(field).substr(8));
      if (!version || *version < 1 || *version > 1000000) {
        return InvalidInput(std::string(file_name) + ":1: version must be a positive integer, got '" +
                            field.substr(8) + "'");
      }
      header.version = static_cast<int>(*version);
    } else {
      return InvalidInput(std::string(file_name) + ":1: unknown header field '" + field +
                          "'; expected id=... and version=...");
    }
  }
  if (header.id.empty() || header.version == 0) return InvalidInput(expected);
  return header;
}

bool IsDirectory(const std::string& path) {
  std::error_code error;
  return !path.empty() && std::filesystem::is_directory(path, error);
}

Result<std::string> ReadTemplateFile(const std::string& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) return NotFound("cannot read prompt template " + path);
  std::ostringstream buffer;
  buffer << stream.rdbuf();
  std::string text = buffer.str();
  if (text.size() > kMaxTemplateBytes)
    return InvalidInput("prompt template " + path + " is larger than 1 MiB");
  return text;
}

}  // namespace

std::string Sha256Hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  // Cannot fail for SHA-256 over memory short of an allocation failure (a bug-level condition).
  EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xf]);
  }
  return hex;
}

Result<PromptTemplate> ParsePromptTemplate(std::string_view text, std::string_view file_name,
                                           std::string_view expected_id) {
  size_t newline = text.find('\n');
  std::string_view header_line = text.substr(0, newline);
  KOPT_ASSIGN_OR_RETURN(Header header, ParseHeader(header_line, file_name));
  if (!expected_id.empty() && header.id != expected_id) {
    return InvalidInput(std::string(file_name) + ":1: header id '" + header.id +
                        "' does not match the file's id '" + std::string(expected_id) + "'");
  }
  PromptTemplate result;
  result.id = header.id;
  result.version = header.version;
  result.file_name = std::string(file_name);
  result.body = newline == std::string_view::npos ? std::string() : std::string(text.substr(newline + 1));
  result.template_sha256 = Sha256Hex(text);
  KOPT_ASSIGN_OR_RETURN(std::vector<Piece> pieces, SplitBody(result.body, file_name, 2));
  std::set<std::string_view> seen;
  for (const Piece& piece : pieces) {
    if (piece.is_placeholder && seen.insert(piece.text).second) result.placeholders.emplace_back(piece.text);
  }
  return result;
}

Result<RenderedPrompt> RenderPrompt(const PromptTemplate& prompt_template,
                                    const std::map<std::string, std::string>& values) {
  std::string context = "prompt template " + prompt_template.id + " (" + prompt_template.file_name + ")";
  for (const auto& [name, value] : values) {
    if (std::find(prompt_template.placeholders.begin(), prompt_template.placeholders.end(), name) ==
        prompt_template.placeholders.end()) {
      return InvalidInput(context + ": value given for unknown placeholder {{" + name + "}}");
    }
  }
  KOPT_ASSIGN_OR_RETURN(std::vector<Piece> pieces,
                        SplitBody(prompt_template.body, prompt_template.file_name, 2));
  RenderedPrompt rendered;
  for (const Piece& piece : pieces) {
    if (!piece.is_placeholder) {
      rendered.text.append(piece.text);
      continue;
    }
    auto found = values.find(std::string(piece.text));
    if (found == values.end()) {
      return InvalidInput(context + ": placeholder {{" + std::string(piece.text) + "}} has no value");
    }
    rendered.text.append(found->second);
  }
  rendered.record = PromptRecord{prompt_template.id, prompt_template.version, prompt_template.template_sha256,
                                 Sha256Hex(rendered.text)};
  return rendered;
}

PromptDirectoryCandidates DefaultPromptDirectoryCandidates() {
  PromptDirectoryCandidates candidates;
  if (const char* value = std::getenv("KOPT_PROMPT_DIR")) candidates.environment_value = value;
  std::error_code error;
  std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) candidates.executable_path = executable.string();
#ifdef KOPT_SOURCE_PROMPT_DIR
  candidates.source_directory = KOPT_SOURCE_PROMPT_DIR;
#endif
  return candidates;
}

Result<std::string> FindPromptDirectory(const PromptDirectoryCandidates& candidates) {
  if (!candidates.environment_value.empty()) {
    if (IsDirectory(candidates.environment_value)) return candidates.environment_value;
    return NotFound("KOPT_PROMPT_DIR=" + candidates.environment_value + " is not a directory");
  }
  std::vector<std::string> tried;
  if (!candidates.executable_path.empty()) {
    std::filesystem::path installed =
        std::filesystem::path(candidates.executable_path).parent_path() / ".." / "share" / "kopt" / "prompts";
    std::string path = installed.lexically_normal().string();
    if (IsDirectory(path)) return path;
    tried.push_back(path);
  }
  if (!candidates.source_directory.empty()) {
    if (IsDirectory(candidates.source_directory)) return candidates.source_directory;
    tried.push_back(candidates.source_directory);
  }
  std::string message = "no prompt directory found; set KOPT_PROMPT_DIR";
  if (!tried.empty()) {
    message += " (tried";
    for (const std::string& path : tried) message += " " + path;
    message += ")";
  }
  return NotFound(message);
}

Result<std::string> FindPromptDirectory() {
  return FindPromptDirectory(DefaultPromptDirectoryCandidates());
}

Result<PromptTemplate> LoadPromptTemplate(const std::string& directory, std::string_view id) {
  bool valid_id = !id.empty() && id.find("..") == std::string_view::npos && id.front() != '/';
  if (!valid_id) return InvalidInput("invalid prompt id '" + std::string(id) + "'; expected <group>/<name>");
  std::string path = (std::filesystem::path(directory) / (std::string(id) + ".md")).string();
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadTemplateFile(path));
  return ParsePromptTemplate(text, path, id);
}

Result<std::vector<PromptTemplate>> ListPromptTemplates(const std::string& directory) {
  if (!IsDirectory(directory)) return NotFound("prompt directory " + directory + " does not exist");
  std::vector<PromptTemplate> templates;
  std::error_code error;
  for (auto iterator = std::filesystem::recursive_directory_iterator(directory, error);
       !error && iterator != std::filesystem::recursive_directory_iterator(); iterator.increment(error)) {
    const std::filesystem::path& path = iterator->path();
    if (!iterator->is_regular_file() || path.extension() != ".md") continue;
    std::string id = path.lexically_relative(directory).replace_extension().generic_string();
    KOPT_ASSIGN_OR_RETURN(std::string text, ReadTemplateFile(path.string()));
    KOPT_ASSIGN_OR_RETURN(PromptTemplate parsed, ParsePromptTemplate(text, path.string(), id));
    templates.push_back(std::move(parsed));
  }
  if (error) return NotFound("cannot list prompt directory " + directory + ": " + error.message());
  std::sort(templates.begin(), templates.end(),
            [](const PromptTemplate& a, const PromptTemplate& b) { return a.id < b.id; });
  return templates;
}

}  // namespace kopt::agents
