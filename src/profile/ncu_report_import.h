// Reading an Nsight Compute report (.ncu-rep) through `ncu --import`: the
// raw page (--csv --page raw --print-units base) and the source page
// (--page source --print-source sass). Internal to the collector (namespace
// kopt::collector); ImportNcuReport (ncu_collector.h) is defined in
// ncu_report_import.cc on these.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"
#include "profile/ncu_collector.h"
#include "profile/profile.h"

namespace kopt::collector {

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

}  // namespace kopt::collector
