// Progress of a live collection, for a person watching a terminal: the steps
// of CollectFromCudaSource / CollectFromProgram (profile/ncu_collector.h) as
// short lines, and the launches ncu profiles as it profiles them.
//
// ncu prints `==PROF== Profiling "scale(float *)" - 3: 0%....50%....100% - 37 passes`
// on stdout while it replays launch 3 (the line grows as the passes run);
// NcuProgressWatcher reads that output piece by piece (CommandSpec::on_stdout)
// and reports "profiling launch 4 of 15: scale (ncu launch ID 3)" (the
// kernel's ShortKernelName) when a line's launch ID has arrived, once per launch.
//
// Thread safety: a watcher is used by one thread (the one running ncu).
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace kopt {

// Receives one line of progress text (plain, no newline); may be null.
using CollectionProgress = std::function<void(std::string_view)>;

class NcuProgressWatcher {
 public:
  // `expected_launches`: how many launches ncu will profile (its -c), 0 when unknown.
  NcuProgressWatcher(CollectionProgress report, long long expected_launches);

  // A piece of ncu's stdout, as it arrived.
  void Feed(std::string_view piece);

  long long LaunchesSeen() const { return launches_seen_; }

 private:
  void Inspect();

  CollectionProgress report_;
  long long expected_launches_;
  long long launches_seen_ = 0;
  std::string line_;            // the current, unfinished line
  bool line_reported_ = false;  // its launch was reported
};

}  // namespace kopt
