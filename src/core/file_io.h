// Reading and writing whole files with errors that name the file.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace kopt {

// The file's bytes. NotFound when it does not exist, InvalidInput when it is
// a directory or unreadable, and when larger than `max_bytes`.
Result<std::string> ReadWholeFile(const std::string& path, size_t max_bytes = size_t{4} << 30);

// Writes `contents` to a temporary file beside `path`, then renames it into
// place, so a reader never sees a half-written file. Safe to call from
// several threads and processes at once, also for the same path (the last
// rename wins).
Status WriteFileAtomically(const std::string& path, const std::string& contents);

// InvalidInput when `output_path` names the same file as one of `inputs`
// (the same path after normalization, or the same inode when both exist), so
// a report never overwrites what it was made from. Empty paths are ignored.
Status CheckOutputIsNotAnInput(const std::string& output_path, const std::vector<std::string>& inputs);

}  // namespace kopt
