// Profiling a program under ncu: the launch selection checked, the program
// found on PATH, the launch timeline taken before or after ncu, a sample of
// the launches planned (launch_sampling.h), ncu run (stopping the program
// after the sample when it can, else once more to the program's end), the
// printed raw page or the report's pages read. CollectFromProgram is for any
// caller; the rest (namespace kopt::collector) is the collector's own.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"
#include "profile/collection_options.h"
#include "profile/ncu_progress.h"
#include "profile/profile.h"

namespace kopt {

// Profiles any program (argv) under ncu; `notes` (the overload with them) as
// CollectFromCudaSource's (ncu_collector.h).
Result<Profile> CollectFromProgram(const std::vector<std::string>& program_argv,
                                   const CollectionOptions& options, CommandRunner& runner);
Result<Profile> CollectFromProgram(const std::vector<std::string>& program_argv,
                                   const CollectionOptions& options, CommandRunner& runner,
                                   std::vector<std::string>& notes);

namespace collector {

// InvalidInput when options.launch_skip or launch_count is negative.
Status CheckLaunchSelection(const CollectionOptions& options);

// `options` with its progress steps drawn on `line` (none when it has no
// progress callback).
CollectionOptions WithProgressLine(const CollectionOptions& options, CollectionProgressLine& line);

// When the launch timeline is taken (see CollectUnderNcu).
enum class TimelineOrder {
  // First, so that ncu profiles the planned sample, stopping the program after
  // it when the sample
  // is the program's first launches (programs: applications launch many
  // kernels).
  kBeforeNcu,
  // After ncu, and only when ncu may not have profiled every launch (.cu files:
  // test programs that
  // launch each kernel a few times; their timeline cannot change the
  // diagnosis).
  kAfterNcu,
};

// The program profiled under ncu, with the launch timeline when there is a
// library for it (taken before or after ncu: `order`), a sample of the
// launches (launches_per_configuration) unless the user selected launches.
// Files go to options.work_directory; ncu's output to ncu.log there.
Result<Profile> CollectUnderNcu(const std::vector<std::string>& program_argv,
                                const CollectionOptions& options, CommandRunner& runner,
                                std::vector<std::string>& notes, TimelineOrder order,
                                CollectionProgressLine& line);

}  // namespace collector
}  // namespace kopt
