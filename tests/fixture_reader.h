// Test support: the one reader of files for the unit tests. ReadFixture reads
// a file under tests/fixtures (KOPT_FIXTURE_DIR, defined for the test binary
// only); ReadTestFile any file (one a test wrote, a cache entry). Both return
// "" when the file cannot be read; the test's own assertions then fail on the
// empty text.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kopt {

inline std::string ReadTestFile(const std::filesystem::path& path) {
  std::ifstream stream(path, std::ios::binary);
  std::stringstream buffer;
  buffer << stream.rdbuf();
  return buffer.str();
}

inline std::filesystem::path FixtureDirectory() {
  return std::filesystem::path(KOPT_FIXTURE_DIR);
}

inline std::string ReadFixture(const std::string& relative_path) {
  return ReadTestFile(FixtureDirectory() / relative_path);
}

}  // namespace kopt
