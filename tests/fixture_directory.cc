#include "fixture_directory.h"

namespace kopt_fixtures {
const char* FixtureDirectory() {
  return KOPT_FIXTURE_DIRECTORY_PATH;
}
}  // namespace kopt_fixtures
