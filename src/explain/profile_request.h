// What a profile is loaded from, and how a live one is collected: the one
// request type of `kopt explain`, `kopt diff`, versions and sweeps. Resolved
// into the profile layer's ProfileSources here and nowhere else, so every
// command collects a .cu or a program with the same settings (the targeted
// set, the launch timeline and kopt-launcher unless told otherwise).
//
// Thread safety: pure functions apart from the CommandRunner's children, the
// files they read or write, and the environment read to find
// libkopt_timeline.so and kopt-launcher.
#pragma once

#include <string>
#include <vector>

#include "analysis/collection_settings.h"
#include "core/phase_timer.h"
#include "core/status.h"
#include "core/subprocess.h"
#include "profile/ncu_progress.h"
#include "profile/profile.h"
#include "profile/profile_loader.h"

namespace kopt {

struct ProfileRequest {
  // A CSV export, a bundle directory, an .ncu-rep report or a .cu file
  // (profile/profile_loader.h); empty when program_argv is set.
  std::string target;
  std::vector<std::string> program_argv;  // a program and its arguments, profiled live
  std::string kernel_regex;               // ECMAScript regex searched in the demangled kernel name
  long long launch_skip = 0;              // skip this many matching launches
  long long launch_count = 0;             // then keep this many; 0 = all
  // Companion files of one CSV profile (default: sass.txt, ptxas.txt,
  // source.csv beside it).
  std::string sass_path;
  std::string ptxas_path;
  std::string source_page_path;
  // A CSV profile's launch timeline (default: timeline*.jsonl beside it);
  // unused by a live collection (collection.timeline says whether it takes one).
  std::string timeline_path;
  // Live collection: where the bundle goes (default: kopt-profile-<stem>).
  std::string work_directory;
  CollectionSettings collection;
};

// A request for `target` with the kernel regex, every other field its default.
ProfileRequest RequestFor(const std::string& target, const std::string& kernel_regex);

// True when loading the request collects live (a .cu target or a program).
bool IsLiveRequest(const ProfileRequest& request);

// InvalidInput naming them when `request` carries options of live collection (--set,
// --launches-per-kernel, --work-dir) but is not live (IsLiveRequest): they would be
// silently ignored. The caller decides when the request is a profile that is read.
Status CheckCollectionOptionsApply(const ProfileRequest& request);

// The request as the profile loader takes it (collection settings applied).
ProfileSources ResolveProfileSources(const ProfileRequest& request);

// `request` for another target of the same command (a diff's side, a
// version, a sweep point): the selection and the collection settings kept;
// the companion files and the timeline file, which name one profile's
// files, dropped; a named work directory gets one subdirectory per target
// (named by the target's stem) so that live collections do not share one.
ProfileRequest RequestForTarget(const ProfileRequest& request, const std::string& target);

// Who watches a live collection (both may be null).
struct CollectionObservers {
  CollectionProgress progress;   // the collection's steps (profile/ncu_progress.h)
  PhaseTimer* phases = nullptr;  // where the seconds go
};

// Loads the profile and selects its launches (a live collection's ncu has
// applied launch_skip / launch_count already). Notes are appended to `notes`.
Result<Profile> LoadSelectedProfile(const ProfileRequest& request, CommandRunner& runner,
                                    std::vector<std::string>& notes,
                                    const CollectionObservers& observers = {});

}  // namespace kopt
