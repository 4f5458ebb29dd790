// What the live collector's files (ncu_collector.cc, cuda_build.cc,
// ncu_run.cc, ncu_run_messages.cc, ncu_report_import.cc) share: reading a
// tool's output, writing the bundle's files, and running a tool the
// collector's way. Internal to the collector (namespace kopt::collector);
// the entry points are in ncu_collector.h.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"
#include "profile/collection_options.h"

namespace kopt::collector {

// How many lines of a tool's output an error message quotes.
inline constexpr size_t kOutputTailLines = 20;

// stdout, then stderr (on a line of its own).
std::string CombinedOutput(const CommandResult& result);

// The last `count` non-blank lines of `text`, joined with newlines.
std::string LastLines(std::string_view text, size_t count);

// The lines carrying ncu's `marker` ("==ERROR==", "==WARNING=="), verbatim.
std::vector<std::string> MarkedLines(std::string_view text, std::string_view marker);

std::string JoinLines(const std::vector<std::string>& lines);

// "\n<label>:\n<lines>" when there are lines, else "".
std::string Section(std::string_view label, std::string_view lines);

// Section "ncu reported" with ncu's ==ERROR== lines of `output`.
std::string ErrorLinesSection(std::string_view output);

size_t NonBlankLineCount(std::string_view text);

// Writes `text` to `path` (truncating); WorkFailed naming the path when it cannot.
Status WriteTextFile(const std::filesystem::path& path, std::string_view text);

// options.work_directory, created; InvalidInput when none is given, WorkFailed when it cannot be made.
Result<std::filesystem::path> PrepareWorkDirectory(const CollectionOptions& options);

// Shows a progress step when options has a progress callback.
void Progress(const CollectionOptions& options, std::string_view step);

// `argv` with LC_ALL=C (ncu prints locale-dependent numbers otherwise) and options.timeout_seconds.
CommandSpec ToolCommand(std::vector<std::string> argv, const CollectionOptions& options);

// Where Nsight Compute comes from and where to put it, for messages.
std::string NcuInstallAdvice();

// OK when options.ncu is on PATH; Unavailable saying `purpose` needs it otherwise.
Status RequireNcu(CommandRunner& runner, const CollectionOptions& options, std::string_view purpose);

}  // namespace kopt::collector
