// What the command table says about itself in other forms than --help: the
// bash and zsh completion scripts (`kopt completion bash|zsh`), the man page
// (`kopt man`, installed as share/man/man1/kopt.1) and the environment
// variables kopt reads (the man page's ENVIRONMENT; docs/environment.md says
// the same, checked by tests/environment/run_environment_check.sh).
//
// Every generator walks the CLI11 parser the command table built, so a new
// command or option appears in all of them without another list to keep.
// Thread safety: pure functions of the parser.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace kopt {

// One environment variable kopt or its companion programs read.
struct EnvironmentVariable {
  std::string_view name;
  std::string_view meaning;
  bool internal = false;  // set by kopt for its own children; listed so nobody wonders, never set it
};

// Every environment variable a user may set, then the internal ones.
const std::vector<EnvironmentVariable>& EnvironmentVariables();

// A bash completion script for `kopt`: commands, subcommands, each command's
// options, the values of --color and --format, file names elsewhere.
std::string BashCompletionScript(const CLI::App& app);

// The same for zsh, through its bash completion compatibility (bashcompinit).
std::string ZshCompletionScript(const CLI::App& app);

// The man page (roff, man(7) macros): NAME, SYNOPSIS, DESCRIPTION, one
// subsection per command with its options, EXIT STATUS, ENVIRONMENT, FILES,
// SEE ALSO. `version` goes in the title line.
std::string ManPage(const CLI::App& app, std::string_view version);

}  // namespace kopt
