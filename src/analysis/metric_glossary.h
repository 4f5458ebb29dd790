// What an Nsight Compute metric measures, in one sentence: the meaning of its
// base counter (a table written from NVIDIA's Kernel Profiling Guide, covering
// the counters kopt's tools cite as evidence) composed with the metric's
// roll-up (`.sum`, `.avg`, `.min`, `.max`: over which units) and sub-metric
// (`.pct_of_peak_sustained_active`, `.per_cycle_active`, `.ratio`, `.pct`, ...).
// A name whose base counter the table lacks, or whose suffix does not fit the
// counter (a roll-up on a launch attribute, an unknown sub-metric), has no
// description: kopt says nothing rather than guess. Quantities kopt derives
// and names in words ("stall share: barrier") are not metrics.
//
// Used by `kopt eval mcq` for its "metric meaning" questions
// (analysis/mcq_benchmark.h).
//
// Thread safety: pure functions over a constant table.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kopt {

// How a counter may be suffixed.
enum class MetricShape {
  kCounter,    // counted per unit: takes a roll-up and then an optional sub-metric
  kAttribute,  // one value of the launch or device (launch__*, *_pct): no suffix
  kRatio,      // a ratio counter: `.ratio` only
  kPercent,    // a rate counter: `.pct` only
};

struct MetricCounter {
  std::string_view name;  // the base name, "sm__warps_active"
  MetricShape shape;
  std::string_view meaning;  // one clause, no final period
};

// The counters the glossary describes, in table order.
const std::vector<MetricCounter>& MetricCounters();

// The sentence for `metric` ("sm__warps_active.avg.pct_of_peak_sustained_active"),
// ending in a period; nullopt when the glossary cannot describe it (above).
std::optional<std::string> DescribeMetric(std::string_view metric);

// `metric` split into its base counter and its suffix (".avg.pct_of_peak_sustained_active",
// "" for none): the other counters of the same shape take the same suffix, which
// is how a question finds distractors that differ only in the counter.
struct MetricNameParts {
  std::string base;
  std::string suffix;
};
MetricNameParts SplitMetricName(std::string_view metric);

}  // namespace kopt
