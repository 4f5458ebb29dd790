// Placeholder until the source-page parser lands (issue 3, in progress).
#include "profile/ncu_source_page.h"

namespace kopt {

double SourcePage::TotalStallSamples() const {
  double total = 0;
  for (const SourcePageRow& row : rows) total += row.stall_samples.value_or(0);
  return total;
}

Result<std::vector<SourcePage>> ParseNcuSourcePage(std::string_view, std::string_view file_name) {
  return Unavailable(std::string(file_name) + ": source-page parsing is not implemented yet");
}

const SourcePage* FindSourcePage(const std::vector<SourcePage>&, std::string_view) { return nullptr; }

}  // namespace kopt
