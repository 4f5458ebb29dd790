#include "analysis/metric_reader.h"

#include <algorithm>

namespace kopt {

void MetricReader::RecordMissing(std::string_view name) {
  if (std::find(missing_.begin(), missing_.end(), name) == missing_.end()) missing_.emplace_back(name);
}

std::optional<double> MetricReader::Get(std::string_view name) {
  auto value = launch_.Metric(name);
  if (!value) RecordMissing(name);
  return value;
}

std::optional<double> MetricReader::GetFirst(std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    if (auto value = launch_.Metric(name)) return value;
  }
  if (names.size() > 0) RecordMissing(*names.begin());
  return std::nullopt;
}

std::optional<double> MetricReader::SumOfPresent(std::initializer_list<std::string_view> names) {
  std::optional<double> total;
  for (std::string_view name : names) {
    if (auto value = launch_.Metric(name)) total = total.value_or(0) + *value;
  }
  if (!total) {
    for (std::string_view name : names) RecordMissing(name);
  }
  return total;
}

}  // namespace kopt
