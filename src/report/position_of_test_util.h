// Test helper of the renderer tests: where a piece of text stands in a rendered report.
#ifndef KOPT_REPORT_POSITION_OF_TEST_UTIL_H_
#define KOPT_REPORT_POSITION_OF_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>

namespace kopt {

// The position of `needle` in `text`; a failed expectation naming the needle (and the text) when
// it is missing (then std::string::npos).
inline size_t PositionOf(const std::string& text, const std::string& needle) {
  size_t position = text.find(needle);
  EXPECT_NE(position, std::string::npos) << "missing: " << needle << "\n" << text;
  return position;
}

}  // namespace kopt

#endif  // KOPT_REPORT_POSITION_OF_TEST_UTIL_H_
