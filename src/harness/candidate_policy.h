// The static policy of `kopt bench` (docs/harness-protocol.md "Policy"): the
// constructs a candidate may not use unless the user allows them, found in
// its source, in its compiled library's imported symbols and in its SASS.
// A candidate that uses one fails with the kind `policy_violation` before it
// runs; the message names the construct, where it was found and how to allow
// it (`--allow ID` on bench / optimize, `[policy] allow = ["ID"]` in
// task.toml).
//
// The policy is a screen, not the trust boundary: a construct hidden from
// all three views (built at run time, reached through a pointer the source
// does not name) is for the runtime sandbox to stop. It must never reject an
// honest candidate of the repository (policy_corpus_test enumerates them).
//
// Thread safety: values and pure functions over constants.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kopt {

// What the policy screens out. The ids (PolicyConstructName) are what
// `--allow` and `[policy] allow` take.
enum class PolicyConstruct {
  kThreads,            // "threads": pthread_create, std::thread, std::async
  kDynamicLoading,     // "dynamic_loading": dlopen, dlsym, driver entry points
  kMemoryProtection,   // "memory_protection": mprotect, PROT_EXEC
  kProcessControl,     // "process_control": fork, clone, ptrace, exec*, system, exit
  kProcFilesystem,     // "proc_filesystem": "/proc/..." paths
  kProcessMemory,      // "process_memory": process_vm_readv / process_vm_writev
  kFileDescriptors,    // "file_descriptors": open, fopen, write, dup2
  kEnvironment,        // "environment": getenv, environ
  kUnjoinedStream,     // "unjoined_stream": a stream created, never joined into the harness's
  kDeviceClock,        // "device_clock": clock64, %globaltimer, %clock in device code
  kHostClock,          // "host_clock": clock_gettime, std::chrono, cudaEventElapsedTime
  kHostWait,           // "host_wait": the host polling or blocking on device work
  kSignalHandler,      // "signal_handler": signal, sigaction
  kStaticConstructor,  // "static_constructor": __attribute__((constructor)), .init_array
};

// Where a construct was seen.
enum class PolicyEvidence { kSource, kImports, kInstructions };
// "source", "imports", "sass".
std::string_view PolicyEvidenceName(PolicyEvidence evidence);

// One row of the policy's table (`kopt rules --policy`).
struct PolicyRule {
  PolicyConstruct construct;
  std::string_view id;       // "threads"
  std::string_view matches;  // what the screen looks for, in each view
  std::string_view why;      // what a cheat gains with it
  std::string_view help;     // when it is honest, and what to do instead
};

// The table, in PolicyConstruct order.
const std::vector<PolicyRule>& PolicyRules();
const PolicyRule& PolicyRuleOf(PolicyConstruct construct);
std::string_view PolicyConstructName(PolicyConstruct construct);
// The construct with id `name`; nullopt for an unknown id.
std::optional<PolicyConstruct> ParsePolicyConstruct(std::string_view name);
// "threads, dynamic_loading, ..." (every id, for messages naming the choices).
std::string PolicyConstructList();

using PolicyAllowance = std::set<PolicyConstruct>;

// One use of a construct.
struct PolicyViolation {
  PolicyConstruct construct;
  PolicyEvidence evidence;
  std::string file;     // the candidate's source, or its compiled library
  int line = 0;         // 1-based line of the source; 0 for imports and SASS
  std::string matched;  // the text that matched ("std::thread", "dlsym", "CS2R R4, SR_CLOCKLO")
};

// The constructs `source` uses, at most one violation per construct (its
// first line), none for allowed ones. Comments are ignored; string literals
// count only for paths and inline-asm operands. A stream created with
// cudaStreamCreate* must be joined back: a cudaStreamWaitEvent on a stream
// that is not one of the created ones (the harness's, also under a helper's
// parameter name), or a graph launch. `entry_point` (the task's entry) names
// the harness's stream in the message.
std::vector<PolicyViolation> ScreenSource(std::string_view source, std::string_view file_name,
                                          std::string_view entry_point, const PolicyAllowance& allowed);

// The constructs among a library's imported symbols
// (core/elf_symbols.h), at most one per construct.
std::vector<PolicyViolation> ScreenImports(const std::vector<std::string>& symbols,
                                           std::string_view file_name, const PolicyAllowance& allowed);

// The device-clock reads of a SASS listing (cuobjdump -sass text).
std::vector<PolicyViolation> ScreenSass(std::string_view sass, std::string_view file_name,
                                        const PolicyAllowance& allowed);

// `violations` with a later one dropped when an earlier one names the same
// construct (source first, then imports, then SASS: pass them in that order).
std::vector<PolicyViolation> FirstViolationPerConstruct(std::vector<PolicyViolation> violations);

// One line for people: "uses threads (std::thread) at k.cu:12: candidates may
// not start threads ...; if this is honest, allow it: --allow threads or
// [policy] allow = [\"threads\"] in task.toml".
std::string PolicyViolationMessage(const PolicyViolation& violation);

}  // namespace kopt
