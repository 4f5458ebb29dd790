#include "profile/ncu_progress.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <utility>

#include "core/interrupt.h"
#include "core/terminal_text.h"
#include "profile/kernel_launch.h"

namespace kopt {
namespace {

constexpr std::string_view kProfilingPrefix = "==PROF== Profiling \"";
constexpr size_t kMaxLineBytes = 64 * 1024;  // a longer line is the program's output, not ncu's
// The step's text is cut to this many columns, so that its seconds stay on a 100-column line.
constexpr size_t kProgressTextColumns = 86;

double ProgressClockSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

NcuProgressWatcher::NcuProgressWatcher(CollectionProgress report, long long expected_launches)
    : report_(std::move(report)), expected_launches_(expected_launches) {}

void NcuProgressWatcher::Feed(std::string_view piece) {
  while (!piece.empty()) {
    size_t newline = piece.find('\n');
    std::string_view part = piece.substr(0, newline);
    if (line_.size() + part.size() <= kMaxLineBytes) line_ += part;
    Inspect();
    if (newline == std::string_view::npos) return;
    line_.clear();
    line_reported_ = false;
    piece.remove_prefix(newline + 1);
  }
}

// `==PROF== Profiling "NAME" - ID: ` — reported once the ": " after the ID has arrived.
void NcuProgressWatcher::Inspect() {
  if (line_reported_ || !std::string_view(line_).starts_with(kProfilingPrefix)) return;
  std::string_view rest = std::string_view(line_).substr(kProfilingPrefix.size());
  size_t name_end = rest.rfind("\" - ");
  if (name_end == std::string_view::npos) return;
  std::string_view after = rest.substr(name_end + 4);
  size_t colon = after.find(':');
  if (colon == std::string_view::npos || colon == 0) return;
  std::string_view id = after.substr(0, colon);
  for (char c : id) {
    if (c < '0' || c > '9') return;
  }
  line_reported_ = true;
  ++launches_seen_;
  if (!report_) return;
  std::string name = ShortKernelName(FunctionNameOf(rest.substr(0, name_end)));
  std::string count = expected_launches_ > 0 && launches_seen_ <= expected_launches_
                          ? fmt::format("{} of {}", launches_seen_, expected_launches_)
                          : fmt::format("{}", launches_seen_);
  report_(
      fmt::format("profiling launch {}: {} (ncu launch ID {})", count, name.empty() ? "kernel" : name, id));
}

std::string FormatElapsedSeconds(double seconds) {
  long long whole = seconds > 0 ? static_cast<long long>(std::floor(seconds)) : 0;
  if (whole < 60) return fmt::format("{} s", whole);
  return fmt::format("{} min {:02} s", whole / 60, whole % 60);
}

CollectionProgressLine::CollectionProgressLine(CollectionProgress report, double refresh_seconds, Clock clock)
    : report_(std::move(report)),
      clock_(clock ? std::move(clock) : Clock(ProgressClockSeconds)),
      refresh_seconds_(refresh_seconds) {
  if (report_ && refresh_seconds_ > 0) ticker_ = std::thread([this] { Tick(); });
}

CollectionProgressLine::~CollectionProgressLine() {
  Stop();
}

void CollectionProgressLine::Step(std::string_view text) {
  if (!report_) return;
  double now = clock_();
  std::lock_guard lock(mutex_);
  if (stopped_) return;
  text_ = Truncate(text, kProgressTextColumns);
  step_start_ = now;
  DrawLocked(now);
}

void CollectionProgressLine::Update(std::string_view text) {
  if (!report_) return;
  double now = clock_();
  std::lock_guard lock(mutex_);
  if (stopped_) return;
  if (text_.empty()) step_start_ = now;  // no step yet: this one starts now
  text_ = Truncate(text, kProgressTextColumns);
  DrawLocked(now);
}

void CollectionProgressLine::Refresh() {
  if (!report_) return;
  double now = clock_();
  std::lock_guard lock(mutex_);
  if (stopped_ || text_.empty()) return;
  long long seconds = static_cast<long long>(std::floor(now - step_start_));
  if (seconds < 1 || seconds == drawn_seconds_) return;
  DrawLocked(now);
}

void CollectionProgressLine::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable() && ticker_.get_id() != std::this_thread::get_id()) ticker_.join();
}

// Under mutex_.
void CollectionProgressLine::DrawLocked(double now) {
  if (InterruptRequested()) return;
  double elapsed = now - step_start_;
  long long seconds = elapsed >= 1 ? static_cast<long long>(std::floor(elapsed)) : 0;
  drawn_seconds_ = seconds;
  report_(seconds >= 1 ? text_ + " · " + FormatElapsedSeconds(elapsed) : text_);
}

void CollectionProgressLine::Tick() {
  auto period = std::chrono::duration<double>(refresh_seconds_);
  while (true) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, period, [this] { return stopped_; });
      if (stopped_) return;
    }
    Refresh();
  }
}

}  // namespace kopt
