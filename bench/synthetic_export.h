// A synthetic ncu raw-page export made of real rows (bench programs only):
// the header and units rows of `fixture` (an `ncu --csv --page raw` export
// whose kernel is "scale(float *, float, int)", e.g.
// tests/fixtures/exports/raw_44_launches_of_one_kernel.csv), then `launches`
// of its data rows cycled, each with a fresh ID and one of `kernels` kernel
// names ("step_<k>(float *, float, int)"), as a long training loop produces.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace kopt::bench {

inline std::string BuildSyntheticExport(const std::string& fixture, int kernels, long long launches) {
  std::vector<std::string> lines;
  std::istringstream stream(fixture);
  for (std::string line; std::getline(stream, line);) {
    if (!line.empty() && line[0] == '"') lines.push_back(line);
  }
  std::string text = lines.at(0) + "\n" + lines.at(1) + "\n";
  text.reserve(static_cast<size_t>(launches) * (lines.at(2).size() + 8));
  const std::string kernel_column = "\"scale(float *, float, int)\"";
  for (long long i = 0; i < launches; ++i) {
    const std::string& row = lines.at(2 + i % (lines.size() - 2));
    size_t id_end = row.find(',');
    size_t name = row.find(kernel_column);
    text += "\"" + std::to_string(i) + "\"" + row.substr(id_end, name - id_end) + "\"step_" +
            std::to_string(i % kernels) + "(float *, float, int)\"" +
            row.substr(name + kernel_column.size()) + "\n";
  }
  return text;
}

}  // namespace kopt::bench
