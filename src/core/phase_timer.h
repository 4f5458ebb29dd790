// Where the wall time of one command goes: named phases with their start
// (seconds since the timer was made) and duration, recorded as they happen,
// possibly from several threads (a disassembly running beside ncu).
//
// Live `kopt explain` records its collection phases (GPU query, nvcc, the
// timeline run, ncu, exports, disassembly, reading) and the analysis, and the
// report shows them (terminal --verbose, JSON `collection_phases`;
// docs/live-collection.md): the breakdown that tells where the seconds go.
//
// Thread safety: every member may be called from any thread.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

namespace kopt {

struct PhaseTiming {
  std::string name;
  double start_seconds = 0;  // since the timer's origin
  double seconds = 0;        // wall time of the phase
};

class PhaseTimer {
 public:
  using Clock = std::chrono::steady_clock;

  PhaseTimer() : origin_(Clock::now()) {}
  explicit PhaseTimer(Clock::time_point origin) : origin_(origin) {}
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

  // Records `name` from `start` to `end` (end before start records 0 s).
  void Add(std::string name, Clock::time_point start, Clock::time_point end);

  // Records a phase from its creation until it is destroyed (or Stop()).
  class Scope {
   public:
    Scope(PhaseTimer* timer, std::string name);  // null timer: records nothing
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope() { Stop(); }
    void Stop();  // records now; later calls do nothing

   private:
    PhaseTimer* timer_;
    std::string name_;
    Clock::time_point start_;
  };

  Clock::time_point Origin() const { return origin_; }
  // Every phase recorded so far, by start time (ties: in recording order).
  std::vector<PhaseTiming> Phases() const;

 private:
  Clock::time_point origin_;
  mutable std::mutex mutex_;
  std::vector<PhaseTiming> phases_;
};

// One line per phase for a person: "  1.23–3.45 s  2.22 s  ncu run" (start, end, duration, name),
// and a last line with the wall time from the origin to the end of the last phase.
std::vector<std::string> DescribePhases(const std::vector<PhaseTiming>& phases);

}  // namespace kopt
