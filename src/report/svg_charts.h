// Inline SVG charts for the HTML report. Every string placed in the SVG (in
// <text> or attributes) is HTML-escaped; the output is a complete <svg>
// element with no external references and no script.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/diagnosis.h"

namespace kopt {

// A log-log roofline: x = arithmetic intensity (FLOP/byte), y = FLOP/s; one
// slope per memory level with a known peak (DRAM, L2, L1), one ceiling per
// precision in roofline.compute with a known peak, each labelled with its
// value; the kernel's point at its DRAM intensity (hollow markers at its L2
// and L1 intensities); decade ticks with units. `chart_id` must be unique in
// the page (it names the clip path). Returns a short <p> explaining why when
// no ceiling is known.
std::string RooflineSvg(const RooflineAnalysis& roofline, std::string_view chart_id);

// The roofline of `after` with `before`'s point (hollow, "before") and an
// arrow from it to after's point (the DRAM intensities); before may be
// nullptr (then this is RooflineSvg). Ceilings are after's.
std::string RooflineShiftSvg(const RooflineAnalysis* before, const RooflineAnalysis& after,
                             std::string_view chart_id);

// A line chart: one line per series over the same x parameter, points marked;
// a logarithmic x axis when `log_x` (values must be positive), linear y from 0.
// Labels are escaped.
struct LineSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), sorted by x
};
std::string LineChartSvg(std::string_view title, std::string_view x_label, std::string_view y_unit,
                         const std::vector<LineSeries>& series, bool log_x, std::optional<double> y_max);

// Horizontal bars of the stall reasons' shares of stall cycles, largest
// first, at most `max_bars` (all when 0), each labelled with its share and
// cycles per issued instruction. Empty string when there are no stalls.
std::string StallBarsSvg(const std::vector<StallReason>& stalls, size_t max_bars);

}  // namespace kopt
