// `kopt completion bash|zsh`: its options and its action, the declare function of its row in
// CommandTable() (command_table.h).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "cli/command_table.h"
#include "cli/help_documents.h"

namespace kopt::cli {

CommandAction DeclareCompletion(CLI::App& command, const std::vector<std::string>&) {
  auto shell = std::make_shared<std::string>();
  command.add_option("shell", *shell, "The shell: bash or zsh")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));
  command.footer(
      "cmake --install puts both scripts where bash-completion and zsh look. By hand:\n"
      "  kopt completion bash > ~/.local/share/bash-completion/completions/kopt\n"
      "  kopt completion zsh > ~/.zfunc/_kopt   # a directory on $fpath");
  return [shell, &command]() {
    const CLI::App& app = *command.get_parent();
    std::cout << (*shell == "zsh" ? ZshCompletionScript(app) : BashCompletionScript(app));
    return Status::Ok();
  };
}

}  // namespace kopt::cli
