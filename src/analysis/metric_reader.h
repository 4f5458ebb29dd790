// Reads metrics of one launch for an analysis, remembering which wanted
// metrics were absent so the report can say what collection would add them.
//
// Not thread-safe (it records into its missing list); one per analysis call.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profile/kernel_launch.h"

namespace kopt {

class MetricReader {
 public:
  explicit MetricReader(const KernelLaunch& launch) : launch_(launch) {}

  // The value, or nullopt (recorded as missing).
  std::optional<double> Get(std::string_view name);
  // The first of `names` that is present; when none is, the first name is recorded as missing.
  std::optional<double> GetFirst(std::initializer_list<std::string_view> names);
  // The value, or nullopt without recording it as missing (optional refinements).
  std::optional<double> Peek(std::string_view name) const { return launch_.Metric(name); }
  // Sum of the present metrics among `names`; nullopt when none is present
  // (then every name is recorded as missing).
  std::optional<double> SumOfPresent(std::initializer_list<std::string_view> names);

  const std::vector<std::string>& missing() const { return missing_; }
  const KernelLaunch& launch() const { return launch_; }

 private:
  void RecordMissing(std::string_view name);
  const KernelLaunch& launch_;
  std::vector<std::string> missing_;
};

}  // namespace kopt
