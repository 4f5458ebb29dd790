// Parsing a TOML document (toml++) into a table, with the parse error as
// data: InvalidInput "FILE:LINE:COLUMN: description". The one place kopt
// turns toml++'s exception into a Status; every TOML reader (task.toml,
// llm.toml, tool configs, scripted answers, tuning sidecars) starts here.
//
// Thread safety: a pure function.
#pragma once

#include <string_view>
#include <toml++/toml.h>

#include "core/status.h"

namespace kopt {

Result<toml::table> ParseTomlDocument(std::string_view text, std::string_view file_name);

// The 1-based line a node was read from (0 when unknown).
inline int TomlLine(const toml::node& node) { return static_cast<int>(node.source().begin.line); }

}  // namespace kopt
