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
// In the targeted collection ncu prints the raw page instead of a report
// (`--csv`), and then no `==PROF== Profiling` line at all (seen on the H200:
// only Connected/Disconnected), so the watcher has nothing to report for the
// whole run. CollectionProgressLine therefore redraws the current step about
// once a second with the seconds it has taken, on a ticker thread:
// "profiling python3 under ncu: 31 launches sampled of 20002 · 12 s", and the
// launch ncu profiles whenever it says so ("profiling launch 4 of 31: scale
// (ncu launch ID 3) · 12 s").
//
// Thread safety: a watcher is used by one thread (the one running ncu). A
// CollectionProgressLine may be used from any thread; it calls `report` under
// its lock, so the lines never interleave.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

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

// "12 s" under a minute, "1 min 05 s" from one on (whole seconds, rounded down).
std::string FormatElapsedSeconds(double seconds);

// The progress line of one live collection: the step in progress, drawn when it starts and redrawn with
// the whole seconds it has taken ("<text> · 12 s") each time that number changes, from one second on.
class CollectionProgressLine {
 public:
  // Seconds on a monotonic clock.
  using Clock = std::function<double()>;

  // `report` null: nothing is drawn and no thread starts. `refresh_seconds` > 0: a ticker thread looks at
  // the clock this often and redraws when the step's whole seconds changed; 0: no ticker (the seconds
  // are then only drawn with Step/Update/Refresh). `clock` null: std::chrono::steady_clock.
  CollectionProgressLine(CollectionProgress report, double refresh_seconds, Clock clock = nullptr);
  ~CollectionProgressLine();  // Stop()
  CollectionProgressLine(const CollectionProgressLine&) = delete;
  CollectionProgressLine& operator=(const CollectionProgressLine&) = delete;

  // A new step: drawn now; its seconds count from now.
  void Step(std::string_view text);
  // New text within the step (the launch ncu profiles): drawn now; the step's seconds go on.
  void Update(std::string_view text);
  // Redraws the line when the step's whole seconds (at least 1) changed since it was last drawn; what the
  // ticker calls. Draws nothing once Stop was called or while kopt is interrupted (core/interrupt.h:
  // the handler's message must stay the last line).
  void Refresh();
  // Ends the ticker: when Stop returns, the thread has ended and no line is drawn any more (Step and
  // Update included). Idempotent; the destructor calls it.
  void Stop();

 private:
  void DrawLocked(double now);
  void Tick();

  CollectionProgress report_;
  Clock clock_;
  double refresh_seconds_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string text_;  // the line without its seconds; empty before the first step
  double step_start_ = 0;
  long long drawn_seconds_ = -1;  // the whole seconds the line shows; -1: none
  bool stopped_ = false;
  std::thread ticker_;
};

}  // namespace kopt
