#include "runner/event_sink.h"

#include <cstdio>
#include <string>

namespace kopt::runner {

void StdoutEventSink::EmitJson(const nlohmann::json& event) {
  // Replace invalid UTF-8 (e.g. from a library path) instead of throwing.
  std::string line = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}

}  // namespace kopt::runner
