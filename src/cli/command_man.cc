// `kopt man`: its options and its action, the declare function of its row in
// CommandTable() (command_table.h).
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/command_table.h"
#include "cli/help_documents.h"

namespace kopt::cli {

CommandAction DeclareMan(CLI::App& command, const std::vector<std::string>&) {
  command.footer("cmake --install puts it in share/man/man1/kopt.1. Without installing: kopt man | man -l -");
  return [&command]() {
    std::cout << ManPage(*command.get_parent(), KOPT_VERSION);
    return Status::Ok();
  };
}

}  // namespace kopt::cli
