// Loading a profile from whatever the user points at, and selecting the
// launches to analyse (used by `kopt explain`, and by any layer that needs a
// profile: search, agents' tests).
//
// ProfileSources::target is one of:
//  - an `ncu --csv --page raw` export (any extension but .cu/.ncu-rep), or a
//    profile bundle directory holding raw.csv (+ sass.txt, ptxas.txt, source.csv);
//  - an Nsight Compute report (.ncu-rep), read through `ncu --import`;
//  - a CUDA source file (.cu): built, run and profiled on the local GPU;
//  - or, with program_argv set, a program and its arguments profiled under ncu.
// A CSV may be accompanied by a SASS listing, a ptxas report and an ncu
// source page: given explicitly (their errors are errors), or found beside it
// as sass.txt / ptxas.txt / source.csv (their errors become notes).
//
// Thread safety: pure functions apart from the CommandRunner's children and
// the files they read or write.
#pragma once

#include <string>
#include <vector>

#include "core/phase_timer.h"
#include "core/status.h"
#include "core/subprocess.h"
#include "profile/ncu_progress.h"
#include "profile/profile.h"

namespace kopt {

struct ProfileSources {
  std::string target;                     // path; empty when program_argv is set
  std::vector<std::string> program_argv;  // a program and its arguments to profile live
  std::string kernel_regex;      // ECMAScript regex searched in the demangled kernel name; empty: all
  long long launch_skip = 0;     // skip this many matching launches
  long long launch_count = 0;    // then keep this many; 0 = all
  std::string sass_path;         // optional cuobjdump -sass / nvdisasm listing
  std::string ptxas_path;        // optional nvcc -Xptxas -v output
  std::string source_page_path;  // optional ncu --page source --csv --print-source sass export
  // Optional CUPTI launch timeline (libkopt_timeline.so's JSON lines); empty:
  // the timeline*.jsonl files beside a CSV profile, when there are any.
  std::string timeline_path;
  // Live collection (a .cu target or program_argv): where the bundle goes;
  // empty: kopt-profile-<stem> in the current directory.
  std::string work_directory;
  std::string section_set = "full";  // live collection: ncu --set (unused when `metrics` is set)
  // Live collection: the targeted collection's metrics and sections
  // (CollectionOptions::metrics, ::sections); empty: the section set.
  std::vector<std::string> metrics;
  std::vector<std::string> sections;
  // Live collection of a program or .cu: the CUPTI injection library for the
  // launch timeline (empty: none) and the launches ncu profiles per launch
  // configuration (0: all; CollectionOptions::launches_per_configuration).
  std::string timeline_library;
  long long launches_per_configuration = 0;
  // Live collection of a .cu: kopt-launcher, to build it while ncu starts
  // (CollectionOptions::launcher); empty: nvcc, then ncu.
  std::string launcher;
  bool launcher_warmup = false;  // CollectionOptions::launcher_warmup
  // Live collection: false: ncu prints the raw page instead of writing a
  // report (CollectionOptions::write_report: faster, no source page).
  bool write_report = true;
  CollectionProgress progress;  // live collection: progress lines (profile/ncu_progress.h); null: none
  PhaseTimer* phases =
      nullptr;  // live collection: where the time goes (CollectionOptions::phases); null: none
};

// Attaches the launch timeline: `explicit_path` when given, else the
// timeline*.jsonl files in `directory`. A found timeline that cannot be read
// is a note ("no launch timeline: …"): the profile is complete without it. A
// named one (`--timeline`) that cannot be read is InvalidInput naming it.
Status AttachLaunchTrace(const std::string& explicit_path, const std::string& directory, Profile& profile,
                         std::vector<std::string>& notes);

// True when loading runs ncu live (a .cu target or a program): ncu then
// applies kernel_regex / launch_skip / launch_count itself.
bool IsLiveCollection(const ProfileSources& sources);

// Loads the profile `sources` names (see above), without filtering. Notes
// (ignored companion files, collection remarks) are appended to `notes`.
Result<Profile> LoadProfile(const ProfileSources& sources, CommandRunner& runner,
                            std::vector<std::string>& notes);

// Keeps the launches that match sources.kernel_regex (smart case: a pattern
// without upper-case letters ignores case), then applies
// launch_skip / launch_count; keeps every launch in profile.all_launches
// (left empty, meaning "the same as launches", when nothing is selected out).
// InvalidInput for a bad regex; NotFound listing the kernels the profile has
// when nothing matches or the skip leaves nothing.
Status SelectLaunches(const ProfileSources& sources, Profile& profile);

// The path of every file the profiles were read from (Profile::inputs, in
// order), for CheckOutputIsNotAnInput. The pointers are borrowed, not null.
std::vector<std::string> InputPathsOf(const std::vector<const Profile*>& profiles);

}  // namespace kopt
