// Fuzz target for the reader of kopt's KernelBench probe record
// (harness/kernelbench_task.h: what a problem file's get_inputs() and Model
// produced). Besides "no crash": every record it accepts must become task
// files the task parser reads (KernelBenchTaskFiles fails only with
// InvalidInput naming the problem), whose task.toml names every argument.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "harness/kernelbench_task.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  kopt::KernelBenchImportOptions options;
  if (size > 0 && data[0] % 2 == 1) options.inputs = "kernelbench";
  auto problem = kopt::ParseKernelBenchProbe(text, "level1/fuzz.py", options);
  if (!problem.ok()) {
    Check(problem.status().kind() == kopt::ErrorKind::kInvalidInput);
    Check(problem.status().message().rfind("level1/fuzz.py: ", 0) == 0);
    return 0;
  }
  auto files = kopt::KernelBenchTaskFiles(*problem, "", options);
  if (!files.ok()) {
    Check(files.status().kind() == kopt::ErrorKind::kInvalidInput);
    return 0;
  }
  Check(files->size() == 5);
  for (const auto& argument : problem->arguments)
    Check(files->front().second.find(argument.name) != std::string::npos);
  return 0;
}
