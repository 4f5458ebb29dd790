// Fuzz target for the tunable declarations of a candidate (kopt:tune /
// kopt:restrict comment lines) and the tuning space built from them:
// parsing, source checks, enumeration, materialization round trip.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "harness/tuning_space.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  kopt::ScalarValues scalars{{"n", 4096}, {"rows", 1024}};
  kopt::Result<kopt::TunableDeclarations> declarations =
      kopt::ParseTunableDeclarations(text, "fuzz.cu", scalars);
  if (!declarations.ok()) return 0;
  (void)kopt::CheckDeclarationsAgainstSource(*declarations, text);
  kopt::Result<kopt::TuningSpace> space = kopt::TuningSpace::FromSource(text, "fuzz.cu", scalars, 1 << 12);
  if (!space.ok()) return 0;
  // A space that was made has a valid default whose materialized source reads back.
  kopt::Configuration configuration = space->Default();
  std::optional<kopt::MaterializedSource> back = kopt::ParseMaterialized(space->Materialize(configuration));
  if (!back || back->configuration != configuration || back->seed_source != text) std::abort();
  kopt::Result<kopt::Configuration> key = space->ParseKey(space->Key(configuration));
  if (!key.ok() || *key != configuration) std::abort();
  (void)space->Enumerate(64);
  return 0;
}
