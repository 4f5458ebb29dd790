// Test support: reads a file under tests/fixtures (KOPT_FIXTURE_DIR, defined
// for the test binary only). Returns "" when the file cannot be read; the
// test's own assertions then fail on the empty text.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace kopt {

inline std::string ReadFixture(const std::string& relative_path) {
  std::ifstream stream(std::string(KOPT_FIXTURE_DIR) + "/" + relative_path, std::ios::binary);
  std::stringstream buffer;
  buffer << stream.rdbuf();
  return buffer.str();
}

}  // namespace kopt
