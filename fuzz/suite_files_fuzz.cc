// Fuzz target for the files of a suite (suite/suite_state.h, suite/
// suite_results.h, harness/task_baselines.h): the manifest suite.json, the
// journal suite.journal and a problem's baselines.json (written by other tools or by hand). The first
// byte picks the parser; the rest is the file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "harness/task_baselines.h"
#include "suite/suite_results.h"
#include "suite/suite_state.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      (void)kopt::suite::ParseSuiteManifest(text, "suite.json");
      break;
    }
    case 1: {
      kopt::suite::SuiteState state;
      kopt::Status status = kopt::suite::ApplySuiteJournal(text, "suite.journal", state);
      // Whatever was applied is a consistent journal: every ended problem was started.
      if (status.ok()) {
        for (const auto& [key, problem] : state.journal) {
          if (problem.ended && problem.attempts < 1) std::abort();
        }
      }
      break;
    }
    default: {
      kopt::Result<kopt::TaskBaselines> parsed = kopt::ParseTaskBaselines(text, "baselines.json");
      if (parsed.ok()) {
        for (const kopt::TaskBaseline& baseline : parsed->baselines) {
          if (baseline.time_s && !(*baseline.time_s > 0)) std::abort();
          if (baseline.peak_memory_bytes && *baseline.peak_memory_bytes < 0) std::abort();
        }
      }
      kopt::Result<std::optional<kopt::TaskBaselines>> baselines =
          parsed.ok()
              ? kopt::Result<std::optional<kopt::TaskBaselines>>(std::optional<kopt::TaskBaselines>(*parsed))
              : kopt::Result<std::optional<kopt::TaskBaselines>>(parsed.status());
      kopt::suite::ProblemResult result =
          kopt::suite::MakeProblemResult({"p", "/t", "level1"}, nullptr, nullptr, baselines);
      if (result.baselines.size() != kopt::suite::kBaselineColumns.size()) std::abort();
      for (const kopt::suite::BaselineResult& baseline : result.baselines) {
        if (baseline.time_s && !(*baseline.time_s > 0)) std::abort();
        if (baseline.speedup) std::abort();  // no run: nothing is correct
      }
    }
  }
  return 0;
}
