#include "profile/ncu_progress.h"

#include <fmt/format.h>

#include <utility>

#include "profile/kernel_launch.h"

namespace kopt {
namespace {

constexpr std::string_view kProfilingPrefix = "==PROF== Profiling \"";
constexpr size_t kMaxLineBytes = 64 * 1024;  // a longer line is the program's output, not ncu's

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

}  // namespace kopt
