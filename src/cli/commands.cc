#include "cli/commands.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command_table.h"
#include "core/interrupt.h"
#include "core/terminal_text.h"
#include "core/text.h"

namespace kopt {
namespace cli {

const std::vector<Command>& CommandTable() {
  static const std::vector<Command> kCommands = {
      {"explain", "Explain what limits a kernel, from a profile, a report, a .cu file or a program",
       DeclareExplain},
      {"gpus", "List the GPU specification table and the GPUs of this machine", DeclareGpus},
      {"rules", "List the micro-profiling tools: inputs, thresholds, triggers", DeclareRules},
      {"bench", "Verify and time candidate kernels against a task's reference", DeclareBench},
      {"optimize", "Search for a faster kernel: generate, verify, time, profile, diagnose, repeat",
       DeclareOptimize},
      {"report", "Render a stored kopt optimize run", DeclareReport},
      {"suite", "Optimize a set of tasks (a KernelBench level, a list, a glob): resumable, fast_p table",
       DeclareSuite},
      {"task", "Task tools: import-kernelbench (KernelBench problems as kopt tasks)", DeclareTask},
      {"diff", "Explain what changed between two profiles: time attributed to its causes, findings",
       DeclareDiff},
      {"ask", "Ask a question about a profile (or two); an LLM answers from the evidence, numbers checked",
       DeclareAsk},
      {"eval", "Evaluations: eval mcq (multiple-choice benchmark over labelled profiles, per context)",
       DeclareEval},
      {"plan", "Plan a program's (or programs') optimization: where the time goes, findings by time saved",
       DeclarePlan},
      {"calibrate", "Measure this GPU's achievable ceilings (bandwidth and FLOP rate by size) for explain",
       DeclareCalibrate},
      {"completion", "Print the bash or zsh completion script", DeclareCompletion},
      {"man", "Print the man page (roff): kopt man | man -l -", DeclareMan},
  };
  return kCommands;
}

}  // namespace cli

using cli::Command;
using cli::CommandTable;

namespace {

// Whether the command line asks for JSON (-f json, -fjson, --format json, --format=json, or without a
// format -o FILE.json): its error then goes to stderr as one JSON object, for the program reading it.
bool JsonRequested(const std::vector<std::string>& arguments) {
  std::optional<std::string> format;
  std::optional<std::string> output;
  for (size_t index = 0; index < arguments.size(); ++index) {
    const std::string& argument = arguments[index];
    std::string next = index + 1 < arguments.size() ? arguments[index + 1] : "";
    if (argument == "-f" || argument == "--format") {
      format = next;
    } else if (StartsWith(argument, "--format=")) {
      format = argument.substr(9);
    } else if (StartsWith(argument, "-f") && argument.size() > 2) {
      format = argument.substr(2);
    } else if (argument == "-o" || argument == "--output") {
      output = next;
    } else if (StartsWith(argument, "--output=")) {
      output = argument.substr(9);
    }
  }
  if (format) return ToLowerAscii(*format) == "json";
  return output && EndsWith(ToLowerAscii(*output), ".json");
}

// The kind as machine-readable errors name it (docs/json-schema.md, "Errors").
const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kOk: return "ok";
    case ErrorKind::kInvalidInput: return "invalid_input";
    case ErrorKind::kNotFound: return "not_found";
    case ErrorKind::kUnavailable: return "unavailable";
    case ErrorKind::kPermission: return "permission";
    case ErrorKind::kWorkFailed: return "work_failed";
    case ErrorKind::kInternal: return "internal";
  }
  return "internal";
}

// The one place errors are printed: "kopt: error: MESSAGE" (sanitized: messages quote input files,
// compilers and servers), or under JSON {"tool": "kopt", "error": {"kind", "exit_code", "message"}}.
void PrintError(const Status& status, bool json) {
  if (!json) {
    std::cerr << "kopt: error: " << SanitizeLinesForTerminal(status.message()) << "\n";
    return;
  }
  nlohmann::ordered_json error;
  error["kind"] = ErrorKindName(status.kind());
  error["exit_code"] = ExitCodeFor(status);
  error["message"] = status.message();
  nlohmann::ordered_json document;
  document["tool"] = "kopt";
  document["error"] = std::move(error);
  std::cerr << document.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

}  // namespace

int RunCommandLine(int argc, char** argv) {
  CLI::App app{"kopt: explains and optimizes CUDA kernels", "kopt"};
  app.set_version_flag("--version",
                       std::string("kopt ") + KOPT_VERSION + " (commit " + KOPT_GIT_COMMIT + ")");
  app.require_subcommand(1);
  // Everything after `--` is a program to profile; CLI11 never sees it.
  std::vector<std::string> arguments(argv + 1, argv + argc);
  std::vector<std::string> program_argv;
  if (auto dashes = std::find(arguments.begin(), arguments.end(), "--"); dashes != arguments.end()) {
    program_argv.assign(dashes + 1, arguments.end());
    arguments.erase(dashes, arguments.end());
  }
  // An unknown command is named as such (CLI11 would only say "A subcommand is required").
  const bool json_errors = JsonRequested(arguments);
  if (!arguments.empty() && !arguments.front().empty() && arguments.front()[0] != '-') {
    const std::vector<Command>& table = CommandTable();
    bool known = std::any_of(table.begin(), table.end(),
                             [&](const Command& command) { return arguments.front() == command.name; });
    if (!known) {
      std::string names;
      for (const Command& command : table) names += (names.empty() ? "" : ", ") + std::string(command.name);
      std::vector<std::string_view> command_names;
      for (const Command& command : table) command_names.push_back(command.name);
      Status unknown = InvalidInput("unknown command \"" + arguments.front() + "\"" +
                                    DidYouMean(arguments.front(), command_names) + "; the commands are " +
                                    names + " (kopt --help describes them)");
      PrintError(unknown, json_errors);
      return ExitCodeFor(unknown);
    }
  }
  std::function<Status()> action;
  for (const Command& command : CommandTable()) {
    CLI::App* subcommand = app.add_subcommand(command.name, command.summary);
    auto run = command.declare(*subcommand, program_argv);
    subcommand->callback([&action, run]() { action = run; });
  }
  try {
    std::reverse(arguments.begin(), arguments.end());  // CLI11 takes the arguments reversed
    app.parse(arguments);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() != 0 && json_errors) {
      Status usage = InvalidInput(error.what());
      PrintError(usage, true);
      return ExitCodeFor(usage);
    }
    int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }
  Status status = action ? action() : Internal("no command selected");
  // After Ctrl-C the command may end early because its children were killed: what it would print is
  // not true; the interrupt handler prints what happened and exits (core/interrupt.h).
  AwaitInterruptExit();
  // A report that did not reach stdout (`> /dev/full`, a closed pipe) is a failed command.
  if (!std::cout.flush() && status.ok()) {
    status = InvalidInput("standard output: write failed: " + std::string(std::strerror(errno)));
  }
  if (!status.ok()) PrintError(status, json_errors);
  return ExitCodeFor(status);
}

}  // namespace kopt
