// The phases of one kopt-runner run, in protocol order
// (docs/harness-protocol.md §3): device, libraries, correctness rounds,
// timing (+ side-stream decision, then the stale-output round), energy, done.
//
// Exit codes: 0 every requested phase ran and passed; 3 the candidate failed
// (a `failure` event says how); 4 not the candidate's fault: no usable device
// (device_unavailable), or the reference library failed to load or run (a
// `failure` event says which). Exit 2 (bad request) is decided before this.
// After a sticky CUDA error the process ends at once with std::_Exit, after
// flushing its events: the context must not be touched again.
//
// Thread safety: call once, from main.
#pragma once

#include "runner/event_sink.h"
#include "runner/sandbox_stages.h"
#include "runner_protocol/runner_request.h"

namespace kopt::runner {

inline constexpr int kExitPassed = 0;
inline constexpr int kExitBadRequest = 2;
inline constexpr int kExitCandidateFailed = 3;
inline constexpr int kExitNotCandidate = 4;

// Runs the request, emitting events; returns the exit code. `sandbox`: the
// stages of runner/sandbox_stages.h around loading the library.
int RunRequest(const RunnerRequest& request, EventSink& events, SandboxMode sandbox);

}  // namespace kopt::runner
