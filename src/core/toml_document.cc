#include "core/toml_document.h"

#include <fmt/format.h>

namespace kopt {

Result<toml::table> ParseTomlDocument(std::string_view text, std::string_view file_name) {
  try {
    return toml::parse(text, file_name);
  } catch (const toml::parse_error& error) {
    return InvalidInput(fmt::format("{}:{}:{}: {}", file_name, error.source().begin.line,
                                    error.source().begin.column, error.description()));
  }
}

}  // namespace kopt
