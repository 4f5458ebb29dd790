// Fuzz target for task.toml (the task format of kopt bench): parsing,
// validation, shape resolution, size expressions and the JSON round trip.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "harness/task_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  kopt::Result<kopt::TaskSpec> task = kopt::ParseTaskToml(text, "fuzz.toml");
  if (!task.ok()) return 0;
  // A task that parsed is consistent: its JSON form reads back to the same JSON.
  nlohmann::json json = task->ToJson();
  kopt::Result<kopt::TaskSpec> back = kopt::TaskSpec::FromJson(json, "fuzz.json");
  if (!back.ok() || back->ToJson() != json) std::abort();
  (void)kopt::EntryPrototype(*task);
  (void)task->VariantsToJson();
  return 0;
}
