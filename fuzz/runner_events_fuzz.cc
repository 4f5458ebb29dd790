// Fuzz target for the parent's reader of kopt-runner's stdout (the child ran
// untrusted candidate code, so its output may be anything), and for the
// classification of how the child ended.
#include <cstddef>
#include <cstdint>
#include <string>

#include "measure/child_outcome.h"
#include "runner_protocol/runner_events_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  kopt::RunnerEvents events = kopt::ParseRunnerEvents(text);
  kopt::CommandResult result;
  result.exit_code = size > 0 ? data[0] % 5 : 0;
  result.stdout_text = text;
  kopt::ChildExpectations expected;
  expected.check_rounds = 3;
  expected.timing = true;
  kopt::ChildOutcome outcome = kopt::ClassifyChildEnd(result, events, expected);
  (void)outcome.KindName();
  for (const auto& event : events.events) (void)event.dump();
  return 0;
}
