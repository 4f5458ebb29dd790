// The reference-output cache: the reference child's output frames
// and seeds of one run, kept on disk so that a later `kopt bench` of the same
// task, settings and GPU judges its candidates against them without starting
// the reference again. Meant for references that are expensive to start (an
// imported KernelBench task's PyTorch bridge: a Python child and `import
// torch`, seconds, before the first call).
//
// Layout: WORKSPACE/reference-cache/<key>/{entry.json, frames.bin}, the
// directory 0700, written in a temporary directory and renamed into place.
// entry.json: {"schema": "kopt.reference_cache/1", "key", "run_id", "seeds"};
// frames.bin: the frames in the output-channel encoding
// (runner_protocol/output_frames.h). The events (timing, checks) are the
// stored measurement of run_id in the workspace database.
//
// The key (ReferenceCacheKey) covers the resume key's settings hash (the
// resolved task with its distributions, the reference's source, compiler,
// timing and check settings, kopt's version), the GPU's name, the SHA-256 of
// every regular file in the task directory (problem.py, kernelbench.json, the
// PyTorch child), the Python interpreter the bridge starts (KOPT_PYTHON or
// python3 and its file's size and time), and --seed when given. What it does
// not see: a PyTorch upgrade inside the same interpreter (delete
// WORKSPACE/reference-cache, or run with --reference-cache off).
//
// What it costs (docs/kernelbench.md "Cost per candidate"): the seeds are the
// cached run's, so every candidate judged against one entry sees the same
// seeds (still a different seed per check round, and drawn at random when
// the entry was made); and the expected outputs are in a file that a
// candidate's process, which runs as the same user without a sandbox, could
// read if it looked for it (docs/harness-protocol.md §3).
//
// Thread safety: free functions; concurrent writers of one key each rename a
// complete directory, the last one wins (readers see one complete entry).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "runner_protocol/output_frames.h"

namespace kopt {

struct CachedReference {
  int64_t run_id = 0;           // the run whose reference measurement holds the events
  std::vector<uint64_t> seeds;  // that run's check seeds (timing and fresh seeds derive from them)
  OutputFrames frames;          // the reference child's frames
};

// The cache key (hex SHA-256) for a task directory, the resume settings hash,
// the GPU name and an explicit --seed. Unavailable when a file of the task
// directory cannot be read.
Result<std::string> ReferenceCacheKey(const std::string& task_directory, const std::string& settings_hash,
                                      const std::string& gpu, std::optional<uint64_t> seed);

// The entry for `key` under `workspace_directory`, or nullopt when there is
// none or it is unreadable (an incomplete or foreign entry is a miss).
std::optional<CachedReference> LoadCachedReference(const std::string& workspace_directory,
                                                   const std::string& key);

// Writes the entry for `key` (replacing one there).
Status StoreCachedReference(const std::string& workspace_directory, const std::string& key, int64_t run_id,
                            const std::vector<uint64_t>& seeds, const OutputFrames& frames);

}  // namespace kopt
