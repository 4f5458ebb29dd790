#include "runner/event_sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace kopt::runner {

StdoutEventSink::StdoutEventSink(std::chrono::steady_clock::time_point started, std::string token)
    : started_(started), token_(std::move(token)) {
  std::fflush(stdout);
  int private_descriptor = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (private_descriptor >= 0) events_ = fdopen(private_descriptor, "w");
  if (events_ == nullptr || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    if (events_ != nullptr) std::fclose(events_);
    events_ = stdout;  // could not move: events share fd 1 (still correct)
  }
}

StdoutEventSink::~StdoutEventSink() {
  if (events_ != stdout) std::fclose(events_);
}

void StdoutEventSink::EmitJson(const nlohmann::json& event) {
  nlohmann::json stamped = event;
  stamped["elapsed_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  stamped["seq"] = sequence_++;
  if (!token_.empty()) stamped["token"] = token_;
  // Replace invalid UTF-8 (e.g. from a library path) instead of throwing.
  std::string line = stamped.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), events_);
  std::fflush(events_);
}

}  // namespace kopt::runner
