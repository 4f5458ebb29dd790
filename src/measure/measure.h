// The measurement engine: verifies and times CUDA candidates against a task's
// reference, and RETURNS DATA (measure/measurement_report.h); it renders
// nothing. `kopt bench` (app/bench.h) renders what Measure returns;
// `kopt optimize` drives a MeasureSession candidate by candidate.
// Contracts of the parts: docs/harness-protocol.md; behaviour: docs/bench.md.
//
// Flow of a session: load the task; compile the reference and every
// candidate in parallel (harness/compiler.h, cached); as soon as the
// reference and a candidate are built, run them on the GPU, each in its own
// kopt-runner child with a watchdog (measure/runner_client.h): the reference
// first, then each candidate, then (Finish) the reference again (drift;
// not for an imported KernelBench task, whose reference time is its PyTorch
// bridge's host copies: docs/kernelbench.md "Cost per candidate").
// Every event is stored in the workspace as it is read (store/workspace.h);
// a candidate already measured with the same source, GPU and harness
// settings is not run again but reported from the store (rerun forces). A
// failing candidate is data (an entry with status kFailed and a kind), never
// an error.
//
// Errors (Result / Status): InvalidInput / NotFound / Unavailable for bad
// input (task, settings, no GPU, no runner, device memory too small);
// Internal / workspace errors when kopt itself breaks. A failing reference
// is NOT an error of Measure: the report says so, and ReferenceVerdict turns
// it into the command's status.
//
// Ownership: the session owns its workspace handle, compiler and compile
// pool; the MeasureEnvironment's pointers are borrowed and must outlive it.
// Thread safety: a MeasureSession is used from one thread; its compile
// callbacks run on its own pool threads. Two sessions on one workspace
// directory may run at once (the workspace is SQLite with WAL) but share
// nothing else.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"
#include "harness/cutlass_tree.h"
#include "harness/input_distribution.h"
#include "harness/task_spec.h"
#include "hw/gpu_spec.h"
#include "measure/measurement_report.h"
#include "runner_protocol/runner_request.h"

namespace kopt {

// The harness settings of a session: everything that decides a measurement
// (the parts that matter are hashed into the resume key, see
// MeasurementReport::settings).
struct MeasureSettings {
  std::string workspace = ".kopt";  // the workspace directory (store/workspace.h)
  int seeds = 0;                    // correctness seeds per child; 0: the task's check_seeds
  std::optional<uint64_t> seed;     // derive the seeds from this (reproduce a run); else random
  bool time = true;                 // false: correctness only
  bool energy = false;              // NVML joules per launch (needs time)
  int jobs = 0;                     // parallel compiles; 0: all cores
  double timeout_seconds = 120;     // wall-clock watchdog per kopt-runner child (s)
  double max_noise = 0.005;         // timing stops at this relative stdev (fraction)
  int min_samples = 10;             // timing samples at least
  double timing_seconds = 5;        // timing stops after this much GPU time per child (s)
  bool warm = false;                // no L2 flush between samples
  std::string arch;                 // "sm_90a"; empty: from the GPU `device`
  bool rerun = false;               // measure again what the workspace already has
  int device = 0;                   // CUDA device ordinal
  bool compile_only = false;        // compile, report compile results, run nothing
  // The command that measures, as its messages name it; only kopt bench has --compile-only, so only
  // its no-GPU error suggests it.
  std::string command = "kopt bench";
  // Extra header directories for every compile (-I, in order; --include-dir),
  // part of the compiler flags and so of the resume key and compile cache.
  std::vector<std::string> include_directories;
  // A CUTLASS/CuTe tree to compile with (--cutlass: kCutlassFromPip, the
  // nvidia-cutlass wheel; --cutlass-dir DIR): "" none. ResolveIncludeDirectories
  // turns it into include directories (MeasureSession::Open does when the
  // command has not).
  std::string cutlass;
  // The reference-output cache (measure/reference_cache.h; docs/kernelbench.md
  // "Cost per candidate"). Off by default: the cached expected outputs sit in
  // the workspace, where a hostile candidate (same user, no sandbox) could
  // find and copy them, and its seeds repeat across candidates; only a user
  // who trusts the candidates turns it on. kAuto uses it for tasks whose reference is a
  // PyTorch bridge (an imported KernelBench task: kernelbench.json in the task
  // directory), kOn for every task, kOff never (neither read nor written).
  // With it, a run whose key has an entry takes that entry's seeds, expected
  // outputs and reference timing instead of running the reference child (and
  // does not re-time the reference at the end); a run without an entry runs
  // the reference and writes one. --rerun still re-measures the candidates.
  enum class ReferenceCache { kAuto, kOn, kOff };
  ReferenceCache reference_cache = ReferenceCache::kOff;
  // How candidate children send their outputs (docs/harness-protocol.md §3,
  // "Output frames"): kPull (the default): see below; kPipe: the pipe, the child lending its pieces
  // (vmsplice) and the parent reading them into memory reused from
  // child to child; kMemory: channel memory the parent seals after the child
  // ended (core/channel_memory.h), fresh for every child, prepared while the
  // previous one runs, where the kernel has memfd sealing (else the pipe);
  // kPull: the parent copies each piece from the child's memory itself
  // (core/channel_pull.h), on several threads, into memory reused from child
  // to child (the pipe again where the kernel refuses those reads).
  // Every check is the same either way; not part of the settings hash. One enum from the command
  // line to the runner: the request's (runner_protocol/runner_request.h, RunnerRequest::output_channel).
  using OutputChannel = runner::OutputChannelKind;
  OutputChannel output_channel = OutputChannel::kPull;
  // Constructs candidates may use besides the task's [policy] allow
  // (harness/candidate_policy.h; --allow ID). A candidate using any other
  // screened construct fails with policy_violation before it runs; the
  // reference is not screened.
  PolicyAllowance policy_allow;
  // The inputs' distribution (--input-scale, --input-shape): the task's own
  // by default. Changes the task's initialisers, so the resume key too.
  InputDistribution inputs;
};

// Makes settings.include_directories absolute (InvalidInput naming
// --include-dir when one is not a directory), resolves settings.cutlass
// (harness/cutlass_tree.h) and appends its include directories, then clears
// settings.cutlass (so a second call does nothing more). Returns the tree,
// or nullopt when none was asked for.
Result<std::optional<CutlassTree>> ResolveIncludeDirectories(MeasureSettings& settings,
                                                             CommandRunner& command_runner);

// Where a session stands, for a progress display (app/ draws it).
struct MeasureProgress {
  size_t done = 0;   // candidates finished
  size_t total = 0;  // candidates known to the session
  std::string text;  // "measuring saxpy_vec4"
};

// The outside world a session touches, replaceable in tests.
struct MeasureEnvironment {
  CommandRunner* command_runner = nullptr;  // nvcc and kopt-runner children (borrowed, required)
  // The GPUs of this machine (QueryLiveGpus); Unavailable when none. Empty: none known.
  std::function<Result<std::vector<GpuSpec>>()> query_gpus;
  std::string runner_program;  // kopt-runner; empty: FindRunnerProgram()
  // Called on the session's thread before each child; may be empty.
  std::function<void(const MeasureProgress&)> progress;
};

// The default environment: `command_runner` (borrowed), the live GPU query,
// no progress.
MeasureEnvironment DefaultMeasureEnvironment(CommandRunner& command_runner);

// Checks the settings' ranges; InvalidInput naming the option otherwise.
Status ValidateMeasureSettings(const MeasureSettings& settings);

// The task of a session.
struct MeasureTask {
  std::string directory;  // as given (the report's task_directory)
  TaskSpec spec;          // as LoadTask read it
};

// NotFound when `task_directory` does not exist, else LoadTask's result.
Result<MeasureTask> LoadMeasureTask(const std::string& task_directory);

// One source to measure.
struct CandidateSource {
  std::string name;    // unique within the session ("saxpy_vec4"); names runs/<id>/<name>.candidate.*
  std::string path;    // the file it came from (compiled in place); "" : compiled from the workspace's copy
  std::string source;  // the CUDA text (also what is hashed and stored)
};

// A measurement session against one task: one compiled reference and one
// reference timing reused by every candidate measured in it.
class MeasureSession {
 public:
  // Validates `settings`, resolves the device and architecture (query_gpus,
  // settings.arch; InvalidInput when the task's tensors do not fit in device
  // memory), the runner program (not with compile_only), the seeds; opens the
  // workspace, begins a run record and starts compiling the reference.
  // `settings` and `environment` are copied; environment.command_runner is
  // borrowed and must outlive the session.
  static Result<std::unique_ptr<MeasureSession>> Open(const MeasureSettings& settings,
                                                      const MeasureEnvironment& environment,
                                                      MeasureTask task);
  ~MeasureSession();
  MeasureSession(const MeasureSession&) = delete;
  MeasureSession& operator=(const MeasureSession&) = delete;

  const TaskSpec& task() const;
  const std::string& architecture() const;
  int64_t run_id() const;

  // Queues candidates for compilation (in parallel, settings.jobs threads) and
  // stores their sources in the workspace; nothing runs on the GPU yet.
  // Names must be unique within the session and usable in a file name (no
  // '/'); InvalidInput otherwise, and then none of `candidates` is added.
  Status AddCandidates(const std::vector<CandidateSource>& candidates);

  // Compiles (waiting for it) and measures the reference, once: later calls
  // return the same entry. An error when the reference could not be compiled
  // at all (a harness error: nvcc missing, cache unwritable). The stored
  // reference result is reused only when every candidate added so far has a
  // stored result too (so add a batch first). The entry's status says whether
  // it passed: a failing reference is an OK Result whose entry has status
  // kFailed / kHarnessError, after which candidates are reported kSkipped.
  Result<MeasurementEntry> MeasureReference();

  // Measures every added candidate not measured yet, in the order their
  // compiles finish (the GPU never waits on a slow compile); measures the
  // reference first if needed. Returns those candidates' entries in the order
  // they were added, with speedup and suspect flag set. With compile_only:
  // compiled, nothing run.
  Result<std::vector<MeasurementEntry>> MeasurePending();

  // AddCandidates({candidate}) then MeasurePending(): one candidate's entry
  // (the compile error text in `detail`, the kind in `failure`).
  Result<MeasurementEntry> MeasureCandidate(const CandidateSource& candidate);
  Result<MeasurementEntry> MeasureCandidate(const std::string& source, const std::string& name);
  // Compiles `sources` into the compile cache on the session's pool, ahead
  // of their measurement (agents GeneratedCandidate::compile_ahead): each is
  // written as the workspace's content-addressed copy (no database row), the path a later
  // MeasureCandidate of the same source compiles, so its compile is a cache
  // hit. Nothing is measured or recorded; a source already sent is skipped,
  // and at most one fewer than the pool has threads run at once (the rest
  // are dropped, not queued: a real candidate never waits behind a guess).
  void CompileAhead(const std::vector<std::string>& sources);

  // Ends the session: measures what is pending, re-times the reference when
  // some candidate was measured now (timing on; not a PyTorch bridge
  // reference, not one from the reference cache), sets the drift, the floor,
  // the notes, closes the run record, and returns the report of every entry.
  // Call once; the session is finished after it.
  Result<MeasurementReport> Finish();

 private:
  class Impl;
  explicit MeasureSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The one-shot session of `kopt bench`: Open, AddCandidates(candidates),
// MeasurePending, Finish. Candidates are reported in the order given.
Result<MeasurementReport> Measure(const MeasureSettings& settings, const MeasureEnvironment& environment,
                                  MeasureTask task, const std::vector<CandidateSource>& candidates);

// The command's status for a finished report: OK unless the reference failed
// (with compile_only: unless it did not compile). InvalidInput when nvcc
// rejected the architecture itself, Unavailable when its device was
// unavailable, else WorkFailed, saying why.
Status ReferenceVerdict(const MeasurementReport& report);

// The kopt-runner to start: $KOPT_RUNNER when set, else kopt-runner in the
// directory of this executable (/proc/self/exe). NotFound naming both when
// the file is missing.
Result<std::string> FindRunnerProgram();

// The seeds of one run: `count` values from `seed` when given (reproducible),
// else from std::random_device.
std::vector<uint64_t> DrawSeeds(int count, std::optional<uint64_t> seed);

}  // namespace kopt
