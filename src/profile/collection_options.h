// How live collection runs (ncu_collector.h and its parts): what ncu
// collects, the launches it profiles, the timeline, the tools' names, the
// work directory, the time limit, the progress display.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/phase_timer.h"
#include "core/status.h"
#include "hw/gpu_spec.h"
#include "profile/ncu_progress.h"

namespace kopt {

struct CollectionOptions {
  std::string kernel_regex;          // ncu -k regex:...; empty: every kernel
  long long launch_skip = 0;         // ncu -s: matching launches to skip first
  long long launch_count = 0;        // ncu -c: launches to profile; 0 = all
  std::string section_set = "full";  // ncu --set
  // When not empty: only these metrics (ncu --metrics) and `sections`
  // instead of the section set (the targeted collection,
  // analysis/collection_metrics.h).
  std::vector<std::string> metrics;
  // The sections collected beside `metrics` (ncu --section each); empty:
  // LaunchStats alone (the launch's shape). Unused without `metrics`.
  std::vector<std::string> sections;
  // libkopt_timeline.so (profile/launch_trace_collection.h): when set, the
  // program first runs once under it for the launch timeline, and ncu then
  // profiles only a sample of the launches (launches_per_configuration).
  std::string timeline_library;
  // With a timeline and no launch selection of the user's (launch_skip,
  // launch_count): ncu profiles the first this many launches of each launch
  // configuration (profile/launch_sampling.h); 0: every launch.
  long long launches_per_configuration = 0;
  // true: ncu writes profile.ncu-rep and kopt exports its raw and source
  // pages (--import); false: ncu prints the raw page while profiling (one ncu
  // process instead of three, about 1.5 s less on the H200; no report and no
  // source page in the bundle).
  bool write_report = true;
  // Run independent commands at once, on a second thread: a .cu's
  // disassembly (cuobjdump) while ncu profiles, and the raw and source page
  // exports of a report together. The CommandRunner must then be thread-safe
  // (the system one is).
  bool parallel_commands = false;
  std::string cache_control =
      "all";  // ncu --cache-control: "all" flushes caches before each pass, "none" keeps them
  // kopt-launcher (profile/program_launcher.h, FindProgramLauncher()): when set, with
  // parallel_commands, a .cu is built as a shared object while ncu already runs this launcher, which
  // waits for the build (ncu's start and the context creation overlap nvcc); empty: nvcc, then ncu.
  std::string launcher;
  // With `launcher`: it also launches its warm-up kernel (profile/program_launcher.h) for ncu to set
  // its profiling up during the build; only with `metrics` (the targeted collection: a section set
  // profiles the warm-up longer than the build hides it) and without a launch selection of the
  // user's (ncu would count it). The warm-up's row is dropped from the profile.
  bool launcher_warmup = false;
  // Added to the environment of the ncu profiling run (the program inherits it).
  std::vector<std::pair<std::string, std::string>> ncu_environment;
  std::string ncu = "ncu";
  std::string nvcc = "nvcc";
  std::string cuobjdump = "cuobjdump";
  std::string architecture;  // "sm_90a"; empty: detect from the local GPU
  std::vector<std::string> extra_nvcc_flags;
  std::string work_directory;    // required: where the bundle's files are written
  double timeout_seconds = 900;  // per external command
  // Progress lines for a terminal (profile/ncu_progress.h): "building app.cu (nvcc)", "running app once
  // for the launch timeline", "profiling app under ncu: 31 launches sampled of 20002", each launch ncu
  // profiles when it names them, "exporting the raw page (ncu --import)" or "reading the raw page ncu
  // printed", "exporting the source page", "disassembling (cuobjdump -sass)" (not with
  // parallel_commands: the line stays on ncu's step, and on the raw page's export); while a step runs its
  // line is redrawn with the seconds it has taken ("… · 12 s", CollectionProgressLine, on a ticker thread
  // that ends before the collection returns). Called from one thread at a time. Null: none.
  CollectionProgress progress;
  // How often the ticker looks at the clock (0: no ticker), and the clock (seconds on a monotonic clock;
  // null: std::chrono::steady_clock; tests pass a fake).
  double progress_refresh_seconds = 0.25;
  std::function<double()> progress_clock;
  // Where the wall time goes (core/phase_timer.h): the GPU query, nvcc, the
  // disassembly, the timeline run, ncu, the exports and reading the pages, each
  // recorded as a phase. Null: nothing recorded.
  PhaseTimer* phases = nullptr;
  // The CUDA driver's answer to which GPUs this machine has: the fallback of the GPU query
  // (cuda_build.h DetectLocalArchitecture). Null: QueryLiveGpus (hw/gpu_spec.h); tests pass a fake.
  std::function<Result<std::vector<GpuSpec>>()> query_gpus;
};

}  // namespace kopt
