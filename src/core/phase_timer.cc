// Phase timings of one command. See phase_timer.h.
#include "core/phase_timer.h"

#include <fmt/format.h>

#include <algorithm>

namespace kopt {

void PhaseTimer::Add(std::string name, Clock::time_point start, Clock::time_point end) {
  PhaseTiming phase;
  phase.name = std::move(name);
  phase.start_seconds = std::chrono::duration<double>(start - origin_).count();
  phase.seconds = std::max(0.0, std::chrono::duration<double>(end - start).count());
  std::lock_guard<std::mutex> lock(mutex_);
  phases_.push_back(std::move(phase));
}

std::vector<PhaseTiming> PhaseTimer::Phases() const {
  std::vector<PhaseTiming> phases;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    phases = phases_;
  }
  std::stable_sort(phases.begin(), phases.end(), [](const PhaseTiming& a, const PhaseTiming& b) {
    return a.start_seconds < b.start_seconds;
  });
  return phases;
}

PhaseTimer::Scope::Scope(PhaseTimer* timer, std::string name)
    : timer_(timer), name_(std::move(name)), start_(Clock::now()) {}

void PhaseTimer::Scope::Stop() {
  if (!timer_) return;
  timer_->Add(std::move(name_), start_, Clock::now());
  timer_ = nullptr;
}

std::vector<std::string> DescribePhases(const std::vector<PhaseTiming>& phases) {
  std::vector<std::string> lines;
  double end = 0;
  for (const PhaseTiming& phase : phases) {
    lines.push_back(fmt::format("{:6.2f}–{:<6.2f} s {:6.2f} s  {}", phase.start_seconds,
                                phase.start_seconds + phase.seconds, phase.seconds, phase.name));
    end = std::max(end, phase.start_seconds + phase.seconds);
  }
  if (!phases.empty()) lines.push_back(fmt::format("{:6.2f} s in all, from the start of the command", end));
  return lines;
}

}  // namespace kopt
