// Live collection's first step: the program run once under kopt's CUPTI
// injection library (libkopt_timeline.so, src/timeline_injection/), which
// writes the launch timeline (profile/launch_trace.h) into the work
// directory as timeline.<pid>.jsonl, one file per process.
//
// FindTimelineLibrary: $KOPT_TIMELINE_LIBRARY when set ("none" switches the
// timeline off: returns ""), else libkopt_timeline.so beside the running kopt
// binary, else ../lib/libkopt_timeline.so from it; "" when none exists (a
// build without CUPTI).
//
// CollectLaunchTrace never fails the collection: a program that fails, a
// library CUDA does not load, an unreadable timeline are notes, and the
// result is then empty (the profile is explained without a timeline).
//
// Thread safety: runs a child through the CommandRunner; otherwise pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/phase_timer.h"
#include "core/subprocess.h"
#include "profile/launch_trace.h"

namespace kopt {

std::string FindTimelineLibrary();

// Runs `program_argv` with CUDA_INJECTION64_PATH=library and
// KOPT_TIMELINE_OUT=<work_directory>/timeline.%p.jsonl (old timeline files
// there are removed first), and reads what it wrote. `phases` (may be null)
// receives "timeline run" and "reading the timeline".
std::optional<LaunchTrace> CollectLaunchTrace(const std::vector<std::string>& program_argv,
                                              const std::string& library, const std::string& work_directory,
                                              double timeout_seconds, CommandRunner& runner,
                                              std::vector<std::string>& notes, PhaseTimer* phases = nullptr);

}  // namespace kopt
