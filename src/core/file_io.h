// Reading and writing whole files with errors that name the file.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace kopt {

// The file's bytes; "-" reads standard input to its end. NotFound when it
// does not exist; InvalidInput when it is a directory, a device (/dev/zero
// would never end) or a socket, unreadable, or larger than `max_bytes` (a
// FIFO or stdin is read until then, never further).
Result<std::string> ReadWholeFile(const std::string& path, size_t max_bytes = size_t{4} << 30);

// Writes `contents` to `path`. A regular file, or a name that does not exist
// yet, is written to a temporary file beside it and renamed into place, so a
// reader never sees a half-written file; safe to call from several threads and
// processes at once, also for the same path (the last rename wins). Anything
// else is never replaced: a device (/dev/null, /dev/full), a FIFO or a socket
// is opened and written in place (a FIFO blocks until it has a reader); a
// symbolic link stays and what it names is written by these rules. A directory
// is InvalidInput; so is every open or write error (ENOSPC of /dev/full too),
// with the path and the system's reason.
Status WriteFileAtomically(const std::string& path, const std::string& contents);

// InvalidInput when `output_path` names the same file as one of `inputs`
// (the same path after normalization, or the same inode when both exist), so
// a report never overwrites what it was made from. Empty paths are ignored.
Status CheckOutputIsNotAnInput(const std::string& output_path, const std::vector<std::string>& inputs);

}  // namespace kopt
