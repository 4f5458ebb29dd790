// `kopt ask TARGET [TARGET2] "QUESTION"`: an LLM agent answers a question
// about a profile (or two: before and after, or a kernel source profiled
// live; with --plan, any number of programs and their `kopt plan`) from the evidence, reading it through
// tools (agents/ask_agent.h, agents/evidence_tools.h), every number of the answer checked against what it
// read; `--interactive` keeps the conversation for follow-up questions read from standard input, one per
// line, until an empty line or end of input. Transcripts: --llm-record / --llm-replay (llm/transcript.h).
//
// Output: term (question, answer, the tool calls, the check), md, or JSON
// `kopt.ask/1` (docs/ask.md). Errors: no question, a target that cannot be
// read (InvalidInput / NotFound naming it); no LLM configured or an endpoint
// error (Unavailable, with the reason).
#pragma once

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"

namespace kopt {

struct AskCommandOptions {
  // The profiles (one or two; a .cu is profiled live) and, last, the question
  // (may be absent with `interactive`).
  std::vector<std::string> arguments;
  bool interactive = false;
  // The targets are programs as `kopt plan` reads them (explain/program_set.h; any number), and the
  // agent can also read their plan (read_plan).
  bool plan = false;
  std::string source_path;      // the kernel source the tools may read; empty: TARGET when it is a .cu
  std::string format = "term";  // term | md | json
  std::string output_path;      // empty: `out`
  std::string kernel_regex;     // only kernels whose demangled name matches
  std::string gpu;              // spec-table key or device name overriding the profiles' device
  int max_tool_rounds = 8;      // tool rounds per question
  bool verbose = false;         // log every LLM call to `log`
  std::string llm_config_path;
  std::string llm_record_path;
  std::string llm_replay_path;
};

// `in`: the follow-up questions of --interactive; `log`: prompts and --verbose lines.
Status RunAsk(const AskCommandOptions& options, CommandRunner& runner, std::istream& in, std::ostream& out,
              std::ostream& log);

}  // namespace kopt
