// The command table: every kopt command as one row (commands.cc), each row's
// declare function in the command's own file, command_<name>.cc. A declare
// function adds the command's options (and its subcommands) to the CLI11
// subcommand it is given and returns the command's action, which runs once
// the whole command line parsed; `program_argv` is everything after a `--`.
// The table builds the parser, `kopt --help`, the completion scripts and the
// man page (help_documents.h walks the parser), and names the commands in
// the error for an unknown one. Adding a command: its app/<command>.{h,cc},
// its command_<command>.cc with its declare function, declared here, and one
// row of CommandTable().
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"

namespace kopt::cli {

using CommandAction = std::function<Status()>;
using DeclareCommand = CommandAction (*)(CLI::App& command, const std::vector<std::string>& program_argv);

struct Command {
  const char* name;     // the command word
  const char* summary;  // one line: `kopt --help` and the man page list it
  DeclareCommand declare;
};

// Every command once, in the order `kopt --help` lists them.
const std::vector<Command>& CommandTable();

CommandAction DeclareExplain(CLI::App& command, const std::vector<std::string>& program_argv);
CommandAction DeclareGpus(CLI::App& command, const std::vector<std::string>& program_argv);
CommandAction DeclareRules(CLI::App& command, const std::vector<std::string>& program_argv);
CommandAction DeclareBench(CLI::App& command, const std::vector<std::string>& program_argv);
CommandAction DeclareOptimize(CLI::App& command, const std::vector<std::string>& program_argv);
CommandAction DeclareReport(CLI::App& command, const std::vector<std::string>& program_argv);
// `program_argv`: the flags every problem's kopt optimize gets.
CommandAction DeclareSuite(CLI::App& command, const std::vector<std::string>& program_argv);
CommandAction DeclareTask(CLI::App& command, const std::vector<std::string>& program_argv);
CommandAction DeclareDiff(CLI::App& command, const std::vector<std::string>& program_argv);
CommandAction DeclareAsk(CLI::App& command, const std::vector<std::string>& program_argv);
CommandAction DeclareEval(CLI::App& command, const std::vector<std::string>& program_argv);
CommandAction DeclarePlan(CLI::App& command, const std::vector<std::string>& program_argv);
CommandAction DeclareCalibrate(CLI::App& command, const std::vector<std::string>& program_argv);
CommandAction DeclareCompletion(CLI::App& command, const std::vector<std::string>& program_argv);
CommandAction DeclareMan(CLI::App& command, const std::vector<std::string>& program_argv);

}  // namespace kopt::cli
