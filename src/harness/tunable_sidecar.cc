#include "harness/tunable_sidecar.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <map>
#include <vector>

#include "core/file_io.h"
#include "core/text.h"
#include "core/toml_document.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

Status SidecarError(std::string_view file, const toml::node& node, std::string_view message) {
  return InvalidInput(fmt::format("{}:{}: {}", file, TomlLine(node), message));
}

// "key=value" words for one [[parameter]] or [[flag]] table.
Result<std::string> DirectiveOfTable(const toml::table& table, std::string_view kind, std::string_view file) {
  const bool flag = kind == "flag";
  std::string name;
  std::vector<std::string> words;
  for (const auto& [key, node] : table) {
    std::string_view k = key.str();
    if (k == "name" || k == "role" || k == "range" || k == "step" || (flag && k == "option")) {
      std::optional<std::string> text = node.value<std::string>();
      if (!text) return SidecarError(file, node, fmt::format("[[{}]] {}: expected a string", kind, k));
      if (k == "name") {
        name = *text;
      } else {
        words.push_back(fmt::format("{}={}", k, *text));
      }
    } else if (k == "default") {
      std::optional<int64_t> value = node.value<int64_t>();
      if (!value) return SidecarError(file, node, fmt::format("[[{}]] default: expected an integer", kind));
      words.push_back(fmt::format("default={}", *value));
    } else if (k == "values") {
      const toml::array* values = node.as_array();
      std::vector<std::string> items;
      if (values != nullptr) {
        for (const toml::node& item : *values) {
          std::optional<int64_t> value = item.value<int64_t>();
          if (!value) break;
          items.push_back(std::to_string(*value));
        }
      }
      if (values == nullptr || items.size() != values->size() || items.empty()) {
        return SidecarError(file, node, fmt::format("[[{}]] values: expected an array of integers", kind));
      }
      words.push_back(fmt::format("values={}", fmt::join(items, ",")));
    } else if (k == "restrict") {
      return SidecarError(file, node,
                          "restrict goes at the top of the file, before the first [[parameter]] or [[flag]] "
                          "(TOML reads a key after a table header as that table's)");
    } else {
      return SidecarError(file, node,
                          fmt::format("[[{}]]: unknown key \"{}\"; expected name, {}values, range, step, role, "
                                      "default",
                                      kind, k, flag ? "option, " : ""));
    }
  }
  if (name.empty()) return SidecarError(file, table, fmt::format("[[{}]] needs a name", kind));
  return fmt::format("// kopt:{} {} {}", flag ? "flag" : "tune", name, fmt::join(words, " "));
}

}  // namespace

std::string SidecarPathFor(std::string_view candidate_path) {
  fs::path path(candidate_path);
  path.replace_extension(".tune.toml");
  return path.string();
}

Result<std::string> SidecarDirectives(std::string_view toml_text, std::string_view sidecar_file) {
  KOPT_ASSIGN_OR_RETURN(toml::table root, ParseTomlDocument(toml_text, sidecar_file));
  std::map<int, std::string> lines;  // sidecar line → directive
  for (const auto& [key, node] : root) {
    std::string_view k = key.str();
    if (k == "parameter" || k == "flag") {
      const toml::array* tables = node.as_array();
      if (tables == nullptr) return SidecarError(sidecar_file, node, fmt::format("write [[{}]] tables", k));
      for (const toml::node& entry : *tables) {
        const toml::table* table = entry.as_table();
        if (table == nullptr) return SidecarError(sidecar_file, entry, fmt::format("write [[{}]] tables", k));
        KOPT_ASSIGN_OR_RETURN(std::string directive, DirectiveOfTable(*table, k, sidecar_file));
        lines[TomlLine(*table)] += directive;
      }
    } else if (k == "restrict") {
      const toml::array* restrictions = node.as_array();
      if (restrictions == nullptr) {
        return SidecarError(sidecar_file, node, "restrict: expected an array of strings");
      }
      for (const toml::node& item : *restrictions) {
        std::optional<std::string> text = item.value<std::string>();
        if (!text) return SidecarError(sidecar_file, item, "restrict: expected an array of strings");
        // Several restrictions on one line of the sidecar: later ones go on the next free line.
        int line = TomlLine(item);
        while (lines.contains(line)) ++line;
        lines[line] = "// kopt:restrict " + *text;
      }
    } else {
      return SidecarError(sidecar_file, node,
                          fmt::format("unknown key \"{}\"; expected [[parameter]], [[flag]] and restrict", k));
    }
  }
  std::string text;
  int current = 1;
  for (const auto& [line, directive] : lines) {
    for (; current < line; ++current) text += '\n';
    text += directive + '\n';
    ++current;
  }
  return text;
}

Result<std::string> LoadTunableSource(const std::string& candidate_path, const ScalarValues& scalars) {
  KOPT_ASSIGN_OR_RETURN(std::string source, ReadWholeFile(candidate_path));
  std::string sidecar = SidecarPathFor(candidate_path);
  std::error_code error;
  if (!fs::exists(sidecar, error)) return source;
  KOPT_ASSIGN_OR_RETURN(TunableDeclarations own, ParseTunableDeclarations(source, candidate_path, scalars));
  if (!own.empty()) {
    return InvalidInput(fmt::format("{}: declares tunable parameters itself and has a sidecar {}: declare "
                                    "them in one place",
                                    candidate_path, sidecar));
  }
  KOPT_ASSIGN_OR_RETURN(std::string toml_text, ReadWholeFile(sidecar));
  KOPT_ASSIGN_OR_RETURN(std::string directives, SidecarDirectives(toml_text, sidecar));
  KOPT_ASSIGN_OR_RETURN(TunableDeclarations declared, ParseTunableDeclarations(directives, sidecar, scalars));
  declared.file = sidecar;
  KOPT_RETURN_IF_ERROR(CheckDeclarationsAgainstSource(declared, source));
  // Only the directive lines travel with the source (blank lines dropped).
  std::string compact;
  for (std::string_view line : SplitLines(directives)) {
    if (!line.empty()) compact += std::string(line) + '\n';
  }
  return compact + "#line 1\n" + source;
}

}  // namespace kopt
