// Test utility (include from *_test.cc only; src/layers.txt lets tests of
// every layer use it). FakeCommandRunner: a CommandRunner for tests that answers commands with
// canned results and records every command it was asked to run.
//
//  - Programs are known by their file name ("ncu" for "ncu" or
//    "/opt/nvidia/ncu"). A program is installed by AddProgram or by giving it
//    a response with OnCommand; RemoveProgram makes it missing, so that
//    FindProgram returns "" and Run returns NotFound, as the system runner does.
//  - A response matches a command when the program matches and every one of
//    its required arguments appears in argv (exact element match). The most
//    recently added matching response wins, so a test can override a default.
//  - A command with no matching response exits with code 127 and says so on
//    stderr, so that a test sees what it did not expect.
//  - A response's side effect runs when it is chosen: use it to write the
//    files that the real command would write (a report, a binary).
//
// Thread safety: Run and FindProgram may be called from several threads at
// once (a mutex guards them; a side effect runs under it); set the responses
// up from one thread before.
#pragma once

#include <algorithm>
#include <filesystem>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"

namespace kopt {

// A command that exited with `exit_code` after printing the given text.
inline CommandResult ExitedWith(int exit_code, std::string stdout_text, std::string stderr_text = "") {
  CommandResult result;
  result.exit_code = exit_code;
  result.stdout_text = std::move(stdout_text);
  result.stderr_text = std::move(stderr_text);
  return result;
}

// A command ended by `signal_number`.
inline CommandResult KilledBySignal(int signal_number, std::string stdout_text = "",
                                    std::string stderr_text = "") {
  CommandResult result;
  result.signaled = true;
  result.signal = signal_number;
  result.stdout_text = std::move(stdout_text);
  result.stderr_text = std::move(stderr_text);
  return result;
}

// A command stopped by the watchdog (SIGTERM).
inline CommandResult TimedOutResult(std::string stdout_text = "", std::string stderr_text = "") {
  CommandResult result = KilledBySignal(15, std::move(stdout_text), std::move(stderr_text));
  result.timed_out = true;
  return result;
}

class FakeCommandRunner : public CommandRunner {
 public:
  struct Response {
    CommandResult result;
    Status status;                                        // when not OK, Run returns it instead of `result`
    std::function<void(const CommandSpec&)> side_effect;  // may be empty
  };

  static std::string ProgramName(const std::string& program) {
    return std::filesystem::path(program).filename().string();
  }

  void AddProgram(const std::string& program) {
    missing_.erase(ProgramName(program));
    installed_.insert(ProgramName(program));
  }
  void RemoveProgram(const std::string& program) {
    installed_.erase(ProgramName(program));
    missing_.insert(ProgramName(program));
  }

  void OnCommand(const std::string& program, std::vector<std::string> required_arguments, Response response) {
    if (!missing_.count(ProgramName(program))) installed_.insert(ProgramName(program));
    rules_.push_back({ProgramName(program), std::move(required_arguments), std::move(response)});
  }
  void OnCommand(const std::string& program, std::vector<std::string> required_arguments,
                 CommandResult result, std::function<void(const CommandSpec&)> side_effect = nullptr) {
    OnCommand(program, std::move(required_arguments),
              Response{std::move(result), Status::Ok(), std::move(side_effect)});
  }

  Result<CommandResult> Run(const CommandSpec& spec) override {
    std::lock_guard<std::mutex> lock(mutex_);
    commands_.push_back(spec);
    if (spec.argv.empty()) return InvalidInput("cannot run an empty command line");
    std::string name = ProgramName(spec.argv[0]);
    if (!installed_.count(name)) return NotFound("program '" + spec.argv[0] + "' not found on PATH (fake)");
    for (auto rule = rules_.rbegin(); rule != rules_.rend(); ++rule) {
      if (rule->program != name || !HasAll(spec.argv, rule->required_arguments)) continue;
      if (rule->response.side_effect) rule->response.side_effect(spec);
      if (!rule->response.status.ok()) return rule->response.status;
      // As the system runner does, stdout reaches on_stdout before Run returns (here in one piece).
      if (spec.on_stdout && !rule->response.result.stdout_text.empty())
        spec.on_stdout(rule->response.result.stdout_text);
      return rule->response.result;
    }
    return ExitedWith(127, "",
                      "FakeCommandRunner: no canned response for: " + CommandLineForDisplay(spec.argv));
  }

  std::string FindProgram(const std::string& program) override {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string name = ProgramName(program);
    if (!installed_.count(name)) return "";
    return program.find('/') != std::string::npos ? program : "/fake/bin/" + name;
  }

  const std::vector<CommandSpec>& commands() const { return commands_; }

  // The recorded commands of `program` (matched by file name), in order.
  std::vector<CommandSpec> CommandsOf(const std::string& program) const {
    std::vector<CommandSpec> matching;
    for (const CommandSpec& spec : commands_) {
      if (!spec.argv.empty() && ProgramName(spec.argv[0]) == ProgramName(program)) matching.push_back(spec);
    }
    return matching;
  }

 private:
  struct Rule {
    std::string program;
    std::vector<std::string> required_arguments;
    Response response;
  };

  static bool HasAll(const std::vector<std::string>& argv, const std::vector<std::string>& required) {
    return std::all_of(required.begin(), required.end(), [&](const std::string& argument) {
      return std::find(argv.begin() + 1, argv.end(), argument) != argv.end();
    });
  }

  std::mutex mutex_;
  std::set<std::string> installed_;
  std::set<std::string> missing_;
  std::vector<Rule> rules_;
  std::vector<CommandSpec> commands_;
};

}  // namespace kopt
