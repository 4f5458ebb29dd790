// Compiles candidates (and references) to shared objects with nvcc, through
// the generated wrapper, with a content-addressed cache
// (docs/harness-protocol.md §2).
//
// Outcomes are data: a candidate that does not compile, or lacks the entry
// point, is an OK Result whose CompileResult says so, with nvcc's output
// verbatim. A non-OK Status means the harness itself could not compile (nvcc
// missing or not startable, the cache directory not writable, the candidate
// file unreadable).
//
// Cache: <cache_directory>/<key>/{wrapper.cu, candidate.so,
// compiler_output.txt, result.json}; key = SHA-256 over (wrapper text,
// candidate text, flags (the candidate's kopt:nvcc flags included),
// `nvcc --version` output, architecture). Each compile
// runs in a fresh temporary directory beside the cache entries and is renamed
// into place, so a reader never sees a half-written entry. Failed compiles are
// cached too; a timed-out compile is not (it may have been load). Create
// removes temporary directories older than an hour (left by killed runs).
//
// Thread safety: Compiler::Compile may be called from several threads at once
// when the CommandRunner allows it (SystemCommandRunner does). Two threads
// compiling the same key both compile; the first rename wins.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/nvcc.h"  // FindNvcc, for the callers that find nvcc as Compiler::Create does
#include "core/status.h"
#include "core/subprocess.h"
#include "harness/task_spec.h"

namespace kopt {

enum class CompileOutcome { kOk, kCompileError, kMissingEntryPoint };
// "ok", "compile_error", "missing_entry_point" (the failure kinds of docs/harness-protocol.md §4).
std::string_view CompileOutcomeName(CompileOutcome outcome);

struct CompileResult {
  CompileOutcome outcome = CompileOutcome::kCompileError;
  std::string library_path;     // absolute path of candidate.so; "" unless outcome is kOk
  std::string compiler_output;  // nvcc's stdout then stderr, verbatim
  std::string message;          // one line for people (what failed, the expected prototype)
  std::string command_line;     // the nvcc command, for display
  double seconds = 0;           // wall time of this call (s): the compile, or the cache lookup on a hit
  double compile_seconds = 0;   // wall time of the nvcc run that produced the entry (s)
  std::string cache_key;        // 64 hex digits
  std::string cache_entry;      // <cache_directory>/<key>
  bool cache_hit = false;
  bool Ok() const { return outcome == CompileOutcome::kOk; }
};

struct CompilerOptions {
  std::string architecture;              // nvcc -arch value, e.g. "sm_90a" (required)
  std::vector<std::string> extra_flags;  // appended after the standard flags
  std::string cache_directory;           // required; created when missing
  double timeout_seconds = 300;          // per nvcc run
  std::string nvcc_path;                 // empty: FindNvcc
};

// "-I<dir>" for each directory, in order (CompilerOptions::extra_flags of a
// candidate that includes CUTLASS or other headers: --include-dir, --cutlass).
std::vector<std::string> IncludeFlags(const std::vector<std::string>& directories);

// True when failed compiler output says the entry point is missing or has
// another signature: a C-linkage conflict or incompatible declaration naming
// `entry`, or an undefined reference/symbol `entry` at link time.
bool OutputShowsMissingEntryPoint(std::string_view compiler_output, std::string_view entry);

class Compiler {
 public:
  // Finds nvcc (unless options.nvcc_path is set) and runs `nvcc --version`
  // once. `runner` must outlive the Compiler.
  static Result<std::unique_ptr<Compiler>> Create(CommandRunner& runner, CompilerOptions options);

  // Compiles the candidate at `candidate_path` (made absolute) for `task`,
  // with flags() and the candidate's own `// kopt:nvcc` flags
  // (harness/candidate_flags.h); a flag that is not accepted is an OK Result
  // with outcome kCompileError naming the line (nvcc is not run).
  Result<CompileResult> Compile(const TaskSpec& task, const std::string& candidate_path) const;

  // The nvcc flags (without -o and the input file): the standard ones of
  // §2, -arch=<architecture> (for an architecture-specific target such as
  // sm_90a: -gencode=arch=compute_90a,code=[sm_90a,compute_90a], its own
  // SASS and PTX only), then the extra flags.
  const std::vector<std::string>& flags() const { return flags_; }
  const std::string& nvcc_path() const { return nvcc_path_; }
  const std::string& nvcc_version() const { return nvcc_version_; }
  const CompilerOptions& options() const { return options_; }

 private:
  Compiler(CommandRunner& runner, CompilerOptions options, std::string nvcc_path, std::string nvcc_version);
  std::string CacheKey(const std::string& wrapper, const std::string& candidate,
                       const std::vector<std::string>& flags) const;
  Result<CompileResult> RunNvcc(const TaskSpec& task, const std::string& wrapper, const std::string& key,
                                const std::vector<std::string>& flags) const;

  CommandRunner& runner_;
  CompilerOptions options_;
  std::string nvcc_path_;
  std::string nvcc_version_;
  std::vector<std::string> flags_;
};

}  // namespace kopt
