#include "core/companion_file.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/scoped_environment_test_util.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

fs::path CompanionTestExecutableDirectory() {
  return fs::read_symlink("/proc/self/exe").parent_path();
}

TEST(CompanionFileTest, TheEnvironmentNamesItOrSwitchesItOff) {
  {
    ScopedEnvironment set("KOPT_TEST_COMPANION", "/opt/kopt/bin/thing");
    EXPECT_EQ(FindCompanionFile("KOPT_TEST_COMPANION", {"thing"}), "/opt/kopt/bin/thing");
  }
  ScopedEnvironment off("KOPT_TEST_COMPANION", "none");
  EXPECT_EQ(FindCompanionFile("KOPT_TEST_COMPANION", {"thing"}), "");
}

TEST(CompanionFileTest, TheFirstExistingPathBesideTheExecutableWinsNormalised) {
  ScopedEnvironment unset("KOPT_TEST_COMPANION", nullptr);
  fs::path lib = CompanionTestExecutableDirectory().parent_path() / "kopt_companion_test_lib";
  fs::create_directories(lib);
  std::ofstream(lib / "companion.so") << "x";
  std::string found = FindCompanionFile("KOPT_TEST_COMPANION",
                                        {"no_such_companion.so", "../kopt_companion_test_lib/companion.so"});
  EXPECT_EQ(found, (lib / "companion.so").lexically_normal().string());
  EXPECT_EQ(FindCompanionFile("KOPT_TEST_COMPANION", {"no_such_companion.so"}), "");
  fs::remove_all(lib);
}

}  // namespace
}  // namespace kopt
