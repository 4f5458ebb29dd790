// Runs one kopt-runner child for `kopt bench` (docs/harness-protocol.md §3):
// writes the request into the workspace, starts the runner with a watchdog,
// reads its JSON-lines stdout, stores every event and the parent's verdict
// in the workspace, and keeps the child's stdout/stderr as artifacts.
//
// CommandRunner returns a child's output when it ends, so events are parsed
// and stored then, in arrival order, before anything else happens: a child
// that crashes midway still leaves every event it printed.
//
// Thread safety: one RunnerClient per thread (the workspace is thread-safe).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/channel_memory.h"
#include "core/status.h"
#include "core/subprocess.h"
#include "measure/child_outcome.h"
#include "measure/measurement_report.h"
#include "runner_protocol/output_frames.h"
#include "runner_protocol/runner_events_parser.h"
#include "runner_protocol/runner_request.h"
#include "store/workspace.h"

namespace kopt {

struct ChildRun {
  RunnerEvents events;  // `checks` are the parent's own comparisons (bench_verdict.h)
  ChildOutcome outcome;
  std::string end;           // how the process ended, for logs: "exit code 3", "signal 11 (SIGSEGV)"
  double seconds = 0;        // wall time of the child, start to exit (0 in results stored before it was kept)
  OutputFrames frames;       // the raw outputs it sent (a reference child's are the run's expected outputs)
  bool below_floor = false;  // ok, but timed below ChildExpectations::floor_seconds (not yet final)
  std::optional<ParentPhases> phases;  // measured now (not rebuilt from the store)
  // The channel was to be pulled (set_channel_pull) and the kernel refused
  // the parent's reads: the child ran again with the pipe (why: the message).
  bool pull_refused = false;
  std::string pull_refused_message;
};

class RunnerClient {
 public:
  // `runner_program`: path of kopt-runner; `timeout_seconds`: the watchdog.
  // Makes this process non-dumpable (core/process_sandbox.h): a child of the
  // same user can then neither open /proc/<kopt>/mem (the expected outputs)
  // nor /proc/<kopt>/fd/* (the next child's channel), nor ptrace kopt.
  RunnerClient(CommandRunner& command_runner, std::string runner_program, Workspace& workspace,
               int64_t run_id, double timeout_seconds);

  // Runs one child on `request` (measure_plan.h BuildRunnerRequest) with this client's output channel
  // set in it (output_fd, output_channel); the request file is its JSON. `artifact_stem` names the files
  // under runs/<id>/
  // ("saxpy_vec4.candidate"). `key.gpu` may be empty: it is then taken from
  // the child's device event (and stays empty when none came). Errors: the
  // runner could not be started (NotFound/Unavailable), or the workspace
  // failed; a candidate's failure is an OK result.
  //
  // The verdict is the parent's (docs/harness-protocol.md §3, the trust
  // boundary): the child gets a fresh run token (KOPT_RUN_TOKEN) and an output
  // channel (descriptor 3); its events must carry the token in sequence, and
  // its output frames are judged against `expected_frames` (the reference
  // child's; null: the child's own, for a reference child) by JudgeOutputs,
  // its timing by CheckTimingClaims and the floor. The parent's check events
  // are stored with the child's.
  Result<ChildRun> Run(const runner::RunnerRequest& request, const std::string& artifact_stem,
                       MeasurementKey& key, const ChildExpectations& expected,
                       const OutputFrames* expected_frames);

  // Memory the next children receive their output channel into
  // (CommandSpec::channel_storage; borrowed; null: new memory each time).
  void set_channel_storage(std::string* storage) { channel_storage_ = storage; }
  // The next children's channel is pulled (core/channel_pull.h) into that
  // storage; where the kernel refuses it, the child runs again with the pipe
  // (ChildRun::pull_refused). A pulled channel that breaks otherwise (the
  // child named memory it does not have, a bad record) is a protocol_violation.
  void set_channel_pull(bool pull) { channel_pull_ = pull; }
  // Channel memory for the next child (core/channel_memory.h): the child
  // writes its frames there instead of a pipe, and the parent seals it after
  // the child ended and judges the frames in place; a child whose memory
  // cannot be sealed (a process kept a writable mapping of it) fails with
  // protocol_violation. Used by one Run, then gone; without it: the pipe.
  // `prepare_seconds`: how long the caller waited for it (reported).
  void set_channel_memory(ChannelMemory memory, double prepare_seconds = 0) {
    channel_memory_ = std::move(memory);
    prepare_seconds_ = prepare_seconds;
  }

 private:
  // The channel the next child gets: `memory` when it holds any, else pulled unless refused, else the pipe.
  runner::OutputChannelKind ChannelFor(const ChannelMemory& memory) const;
  // The command that starts kopt-runner on `request_path` with the run token and `request`'s channel.
  CommandSpec ChildCommand(const runner::RunnerRequest& request, const std::string& request_path,
                           const std::string& token, const ChannelMemory& memory,
                           const ChildExpectations& expected) const;

  CommandRunner& command_runner_;
  std::string runner_program_;
  Workspace& workspace_;
  int64_t run_id_;
  double timeout_seconds_;
  std::string* channel_storage_ = nullptr;
  bool channel_pull_ = false;
  bool pull_refused_once_ = false;  // this client's pulls were refused: the pipe from then on
  ChannelMemory channel_memory_;
  double prepare_seconds_ = 0;
};

// The parent's verdict as stored in the workspace (phase "outcome"); `seconds`:
// the child's wall time.
nlohmann::json OutcomeToJson(const ChildOutcome& outcome, const std::string& end, double seconds);

// Rebuilds a child run from stored events (the outcome last), for resuming.
// InvalidInput when the stored outcome is not one this kopt wrote.
Result<ChildRun> ChildRunFromStored(const std::vector<StoredEvent>& events);

}  // namespace kopt
