// What a finished ncu profiling run's output says, as a Status or notes: a
// timeout, missing counter permission (ERR_NVGPUCTRPERM, with the fix), a
// missing program, a program that failed or was killed (with the signal ncu
// reports as an error code), no kernel profiled or matched (with the kernels
// the program launched), ncu's ==WARNING== lines. Internal to the collector
// (namespace kopt::collector).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"
#include "profile/collection_options.h"

namespace kopt::collector {

// Maps a finished ncu run of `command` (the program's command line, for
// messages) to a Status: OK when it profiled something.
// program_stopped_by_ncu: ncu ended the program itself (--kill yes): its exit
// status says nothing.
Status InterpretNcuRun(const CommandResult& result, const std::string& command,
                       const CollectionOptions& options, bool program_stopped_by_ncu);

// WorkFailed: no kernel of `command` was profiled, or none matched the
// user's kernel filter; names the kernels ncu listed in `output` as launched,
// ncu's errors and the program's last lines.
Status NoKernelProfiledStatus(const std::string& command, const CollectionOptions& options,
                              std::string_view output);

// Appends ncu's ==WARNING== lines worth showing to `notes` (not the
// unmodified-clocks one: kopt asks for unmodified clocks).
void AddWarningNotes(std::string_view output, std::vector<std::string>& notes);

}  // namespace kopt::collector
