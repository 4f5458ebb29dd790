// Parser for Nsight Compute's details page exported as CSV: what `ncu --csv`
// writes unless told another page (also `--page details`), in base or auto
// units.
//
// Format (ncu 2025.3.1, seen on the H200): a header of 20 columns, the 11 fixed
// columns of the raw page ("ID" … "CC") then "Section Name", "Metric Name",
// "Metric Unit", "Metric Value", "Rule Name", "Rule Type", "Rule Description",
// "Estimated Speedup Type", "Estimated Speedup". One row per section metric
// (ncu leaves off the five empty rule fields: 16 fields) or per rule result
// (20 fields, the metric fields empty). Rows of one launch share its "ID".
//
// Each launch becomes a KernelLaunch whose metrics carry the raw-page names
// that kopt's analysis reads (kDetailsMetricNames: every pair checked against
// the raw page of the same H200 capture); a section metric without a raw
// counterpart keeps the name "<Section>: <Metric Name>". The DRAM bytes the
// roofline needs are derived: dram__bytes.sum = Memory Throughput (byte/s) ×
// Duration. Rule results become KernelLaunch::ncu_rules.
//
// What the details page lacks against the raw page (kDetailsPageLosses): the
// FLOP counts per precision, the traffic of L1 and L2, the warp-stall
// reasons, the per-pipe utilizations and the device name; the tools that need
// them are skipped and say so.
//
// A program's stdout inside the export (before the header, between rows) is
// skipped. Input is untrusted (fuzzed: fuzz/ncu_details_page_fuzz.cc); errors
// name the file, the line and the field.
//
// Thread safety: pure function.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "profile/kernel_launch.h"

namespace kopt {

Result<std::vector<KernelLaunch>> ParseNcuDetailsCsv(std::string_view text, std::string_view file_name);

// (section, metric name) on the details page → the raw-page metric name.
struct DetailsMetricName {
  std::string_view section;
  std::string_view metric;
  std::string_view raw_name;
};
extern const std::vector<DetailsMetricName> kDetailsMetricNames;

// One sentence: what a details page lacks against the raw page, and the command for the raw page.
extern const std::string_view kDetailsPageLosses;

}  // namespace kopt
