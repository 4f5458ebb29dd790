// Fuzz target for GEMM recognition (harness/gemm_operation.h) over a
// task.toml text: the task parse, the [gemm] table or the shape detection,
// and the CUTLASS seed of what was recognised (agents/cutlass_gemm_seed.h).
// Invariant: a recognised operation's seed, when emitted, is a tunable
// candidate whose space builds (its restrictions parse and keep at least one
// configuration) and whose default materializes and reads back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "agents/cutlass_gemm_seed.h"
#include "harness/gemm_operation.h"
#include "harness/tuning_space.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  kopt::Result<kopt::TaskSpec> task = kopt::ParseTaskToml(text, "task.toml");
  if (!task.ok()) return 0;
  kopt::Result<std::optional<kopt::GemmOperation>> operation = kopt::RecognizeGemm(*task, text, "task.toml");
  if (!operation.ok() || !operation->has_value()) return 0;
  (void)(*operation)->Describe();
  kopt::Result<kopt::agents::CutlassGemmSeed> seed =
      kopt::agents::EmitCutlassGemmSeed(*task, **operation, kopt::agents::CutlassSeedOptions{});
  if (!seed.ok()) return 0;
  kopt::Result<kopt::TuningSpace> space =
      kopt::TuningSpace::FromSource(seed->source, seed->file_name, kopt::TaskScalarValues(*task), 1 << 12);
  if (!space.ok()) std::abort();
  kopt::Configuration configuration = space->Default();
  std::optional<kopt::MaterializedSource> back = kopt::ParseMaterialized(space->Materialize(configuration));
  if (!back || back->configuration != configuration) std::abort();
  return 0;
}
