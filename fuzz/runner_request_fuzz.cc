// Fuzz target for the kopt-runner request parser (harness/runner_request.h).
// Besides "no crash", checks: a rejected request has a message naming its
// source; an accepted one round-trips (ToJson -> FromJson -> ToJson is
// stable) and has consistent tensors (positive dimensions, an output).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "runner_protocol/runner_request.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  kopt::Result<kopt::runner::RunnerRequest> request = kopt::runner::ParseRunnerRequest(text, "fuzz.json");
  if (!request.ok()) {
    Check(request.status().message().rfind("fuzz.json", 0) == 0);
    return 0;
  }
  bool any_written = false;
  for (const kopt::runner::TensorDecl& tensor : request->task.tensors) {
    for (int64_t dimension : tensor.shape) Check(dimension > 0);
    any_written = any_written || tensor.IsWritten();
  }
  Check(any_written);
  nlohmann::json written = kopt::runner::RunnerRequestToJson(*request);
  kopt::Result<kopt::runner::RunnerRequest> again = kopt::runner::RunnerRequestFromJson(written, "again");
  Check(again.ok());
  Check(kopt::runner::RunnerRequestToJson(*again) == written);
  return 0;
}
