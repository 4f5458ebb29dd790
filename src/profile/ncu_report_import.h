// Reading an Nsight Compute report (.ncu-rep) through `ncu --import`: the
// raw page (--csv --page raw --print-units base) and the source page
// (--page source --print-source sass). ImportNcuReport is for any caller;
// the rest (namespace kopt::collector) is the collector's own.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"
#include "profile/collection_options.h"
#include "profile/profile.h"

namespace kopt {

// Reads an .ncu-rep through `ncu --import … --csv --page raw`: the launches,
// with the report as the profile's source. No ncu on PATH: Unavailable, with
// how to export the raw page on a machine that has it.
Result<Profile> ImportNcuReport(const std::string& report_path, const CollectionOptions& options,
                                CommandRunner& runner);

namespace collector {

// `text` without ncu's own message lines ("==PROF== …", "==WARNING== …")
// that share stdout with the CSV.
std::string StripNcuMessages(std::string_view text);

// Exports the report's raw page and parses it: the launches, the report as
// the profile's source and input. When `bundle_directory` is set, the CSV is
// kept there as raw.csv. ncu failing to read the report is InvalidInput
// (with ncu's words); a report with no launch is WorkFailed.
Result<Profile> ReadReport(const std::string& report_path, const CollectionOptions& options,
                           CommandRunner& runner,
                           const std::optional<std::filesystem::path>& bundle_directory);

// Exports the report's source page (per-SASS-instruction stall samples and
// sectors) to work_directory/source.csv and attaches it to `profile`; any
// failure is a note.
void AttachSourcePage(const std::string& report_path, const std::filesystem::path& work_directory,
                      const CollectionOptions& options, CommandRunner& runner, Profile& profile,
                      std::vector<std::string>& notes);

}  // namespace collector
}  // namespace kopt
