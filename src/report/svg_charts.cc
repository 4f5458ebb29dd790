#include "report/svg_charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <optional>

#include "core/quantity_format.h"
#include "core/terminal_text.h"
#include "report/markup_escape.h"
#include "report/summary.h"

namespace kopt {
namespace {

constexpr double kWidth = 760, kHeight = 470;
constexpr double kLeft = 112, kRight = 24, kTop = 24, kBottom = 58;
constexpr std::string_view kFont = "font-family=\"DejaVu Sans, Arial, sans-serif\"";
// A white outline behind text, so labels stay readable where lines cross them.
constexpr std::string_view kHalo =
    "stroke=\"#fff\" stroke-width=\"4\" stroke-linejoin=\"round\" paint-order=\"stroke\"";

// A logarithmic axis from 10^low_exponent to 10^high_exponent mapped onto a
// pixel interval; ticks go at the whole decades inside it.
struct LogAxis {
  double low_exponent = 0, high_exponent = 1;
  double pixel_start = 0, pixel_end = 1;  // pixel of 10^low_exponent, of 10^high_exponent

  double Map(double value) const {
    double fraction = (std::log10(value) - low_exponent) / (high_exponent - low_exponent);
    return pixel_start + fraction * (pixel_end - pixel_start);
  }
  double Low() const { return std::pow(10.0, low_exponent); }
  double High() const { return std::pow(10.0, high_exponent); }
};

struct Slope {
  std::string label;
  double bytes_per_second;
  std::string color;
  bool primary;
};

struct Ceiling {
  std::string label;  // "FP32 66.8 TFLOP/s"
  std::string name;   // "FP32"
  std::string value;  // "66.8 TFLOP/s"
  double per_second;
  std::string color;
  bool primary;
};

struct KernelPoint {
  std::string level;
  double intensity;
  double rate;
};

std::string Number(double value) {
  return fmt::format("{:.1f}", value);
}

std::vector<Slope> SlopesOf(const RooflineAnalysis& roofline) {
  static const std::vector<std::string> kColors = {"#1d4ed8", "#0891b2", "#7c3aed", "#64748b"};
  std::vector<Slope> slopes;
  for (const MemoryTraffic& traffic : roofline.memory) {
    if (!(traffic.peak_bytes_per_second > 0) || !std::isfinite(traffic.peak_bytes_per_second)) continue;
    std::string color = kColors[std::min(slopes.size(), kColors.size() - 1)];
    slopes.push_back({MemoryLevelLabel(traffic.level) + " " +
                          FormatBandwidth(traffic.peak_bytes_per_second, QuantityStyle::kTrimmed),
                      traffic.peak_bytes_per_second, color, traffic.level == "dram"});
  }
  return slopes;
}

std::vector<Ceiling> CeilingsOf(const RooflineAnalysis& roofline) {
  static const std::vector<std::string> kColors = {"#b91c1c", "#c2410c", "#a16207", "#be185d", "#4d7c0f"};
  std::vector<Ceiling> ceilings;
  for (const ComputeWork& work : roofline.compute) {
    if (!(work.peak_per_second > 0) || !std::isfinite(work.peak_per_second)) continue;
    std::string unit(OperationUnit(work.precision));
    std::string color = kColors[std::min(ceilings.size(), kColors.size() - 1)];
    std::string name = PrecisionLabel(work.precision);
    std::string value = FormatScaled(work.peak_per_second, unit + "/s", QuantityStyle::kTrimmed);
    ceilings.push_back({name + " " + value, name, value, work.peak_per_second, color,
                        work.precision == roofline.dominant_precision});
  }
  std::stable_sort(ceilings.begin(), ceilings.end(), [](const Ceiling& left, const Ceiling& right) {
    return left.per_second > right.per_second;
  });
  return ceilings;
}

// The kernel at its intensity against each memory level (DRAM first).
std::vector<KernelPoint> PointsOf(const RooflineAnalysis& roofline) {
  std::vector<KernelPoint> points;
  if (!(roofline.total_flops > 0) || !(roofline.duration_ns > 0)) return points;
  double rate = roofline.total_flops / (roofline.duration_ns * 1e-9);
  for (const MemoryTraffic& traffic : roofline.memory) {
    if (!(traffic.bytes > 0)) continue;
    double intensity = traffic.level == "dram" && roofline.arithmetic_intensity > 0
                           ? roofline.arithmetic_intensity
                           : roofline.total_flops / traffic.bytes;
    points.push_back({traffic.level, intensity, rate});
  }
  std::stable_partition(points.begin(), points.end(),
                        [](const KernelPoint& point) { return point.level == "dram"; });
  return points;
}

// Decade-aligned axes covering every ridge point, ceiling and kernel point.
std::pair<LogAxis, LogAxis> MakeAxes(const std::vector<Slope>& slopes, const std::vector<Ceiling>& ceilings,
                                     const std::vector<KernelPoint>& points) {
  std::vector<double> intensities, rates;
  for (const KernelPoint& point : points) intensities.push_back(point.intensity), rates.push_back(point.rate);
  for (const Ceiling& ceiling : ceilings) {
    rates.push_back(ceiling.per_second);
    for (const Slope& slope : slopes) intensities.push_back(ceiling.per_second / slope.bytes_per_second);
  }
  LogAxis x{-2, 3, kLeft, kWidth - kRight};
  if (!intensities.empty()) {
    auto [low, high] = std::minmax_element(intensities.begin(), intensities.end());
    x.high_exponent = std::ceil(std::log10(*high) + 0.5);
    x.low_exponent = std::max(std::floor(std::log10(*low) - 0.5), x.high_exponent - 9);
  }
  if (rates.empty()) {
    for (const Slope& slope : slopes) rates.push_back(slope.bytes_per_second * x.High());
  }
  LogAxis y{9, 15, kHeight - kBottom, kTop};
  if (!rates.empty()) {
    auto [low, high] = std::minmax_element(rates.begin(), rates.end());
    // Headroom above the highest ceiling for its label, without a wasted decade.
    y.high_exponent = std::log10(*high) + 0.25;
    y.low_exponent = std::floor(std::log10(*low) - 0.5);
    y.low_exponent =
        std::clamp(y.low_exponent, std::floor(y.high_exponent) - 8, std::floor(y.high_exponent) - 3);
  }
  return {x, y};
}

std::string TickLabel(double value, std::string_view unit) {
  return unit.empty() ? FormatNumber(value, QuantityStyle::kTrimmed)
                      : FormatScaled(value, unit, QuantityStyle::kTrimmed);
}

std::string GridAndTicks(const LogAxis& x, const LogAxis& y) {
  std::string svg = "<g class=\"grid\" stroke=\"#e5e7eb\" stroke-width=\"1\">";
  std::string labels = fmt::format("<g fill=\"#374151\" font-size=\"12\" {}>", kFont);
  for (int exponent = static_cast<int>(std::ceil(x.low_exponent)); exponent <= x.high_exponent; ++exponent) {
    double pixel = x.Map(std::pow(10.0, exponent));
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", Number(pixel), Number(kTop),
                       Number(kHeight - kBottom));
    labels +=
        fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", Number(pixel),
                    Number(kHeight - kBottom + 18), EscapeHtml(TickLabel(std::pow(10.0, exponent), "")));
  }
  for (int exponent = static_cast<int>(std::ceil(y.low_exponent)); exponent <= y.high_exponent; ++exponent) {
    double pixel = y.Map(std::pow(10.0, exponent));
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>", Number(kLeft), Number(pixel),
                       Number(kWidth - kRight));
    labels += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", Number(kLeft - 8),
                          Number(pixel + 4), EscapeHtml(TickLabel(std::pow(10.0, exponent), "FLOP/s")));
  }
  svg += "</g>" + labels;
  svg += fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"13\">arithmetic intensity "
      "(FLOP/byte, log scale)</text>",
      Number((kLeft + kWidth - kRight) / 2), Number(kHeight - 14));
  svg += fmt::format(
      "<text transform=\"translate(16,{}) rotate(-90)\" text-anchor=\"middle\" "
      "font-size=\"13\">performance (FLOP/s, log scale)</text></g>",
      Number((kTop + kHeight - kBottom) / 2));
  svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#9ca3af\"/>",
                     Number(kLeft), Number(kTop), Number(kWidth - kLeft - kRight),
                     Number(kHeight - kTop - kBottom));
  return svg;
}

std::string SlopeLines(const std::vector<Slope>& slopes, double top_ceiling, const LogAxis& x,
                       const LogAxis& y, std::string_view clip_id) {
  std::string svg = fmt::format("<g clip-path=\"url(#{})\" fill=\"none\">", clip_id);
  for (const Slope& slope : slopes) {
    double end = top_ceiling > 0 ? top_ceiling / slope.bytes_per_second : x.High();
    end = std::min(end, x.High());
    svg += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"/>",
                       Number(x.Map(x.Low())), Number(y.Map(slope.bytes_per_second * x.Low())),
                       Number(x.Map(end)), Number(y.Map(slope.bytes_per_second * end)), slope.color,
                       slope.primary ? 3 : 1.5);
  }
  return svg + "</g>";
}

// A label's or marker's outline in pixels: a rectangle, turned when the label follows a slope.
struct Quad {
  std::array<std::pair<double, double>, 4> corners;

  static Quad Axis(double left, double top, double right, double bottom) {
    return {{{{left, top}, {right, top}, {right, bottom}, {left, bottom}}}};
  }
  // The rectangle left..right x top..bottom of a frame turned by `degrees` (clockwise, as SVG's rotate)
  // about (x, y).
  static Quad Turned(double x, double y, double degrees, double left, double top, double right,
                     double bottom) {
    double radians = degrees * std::numbers::pi / 180, c = std::cos(radians), s = std::sin(radians);
    auto at = [&](double u, double v) {
      return std::pair<double, double>{x + u * c - v * s, y + u * s + v * c};
    };
    return {{{at(left, top), at(right, top), at(right, bottom), at(left, bottom)}}};
  }
  // Separating-axis test of two convex quadrilaterals (touching is not overlapping).
  bool Overlaps(const Quad& other) const {
    for (const Quad* quad : {this, &other}) {
      for (size_t i = 0; i < 4; ++i) {
        auto [x1, y1] = quad->corners[i];
        auto [x2, y2] = quad->corners[(i + 1) % 4];
        double axis_x = y1 - y2, axis_y = x2 - x1;
        auto project = [&](const Quad& q) {
          double low = 1e300, high = -1e300;
          for (auto [px, py] : q.corners) {
            low = std::min(low, px * axis_x + py * axis_y), high = std::max(high, px * axis_x + py * axis_y);
          }
          return std::pair<double, double>{low, high};
        };
        auto [low_a, high_a] = project(*this);
        auto [low_b, high_b] = project(other);
        if (high_a <= low_b || high_b <= low_a) return false;
      }
    }
    return true;
  }
  bool InsidePlot() const {
    return std::all_of(corners.begin(), corners.end(), [](const std::pair<double, double>& corner) {
      return corner.first >= kLeft + 2 && corner.first <= kWidth - kRight - 2 && corner.second >= kTop + 2 &&
             corner.second <= kHeight - kBottom - 2;
    });
  }
  double Top() const {
    double top = 1e300;
    for (auto corner : corners) top = std::min(top, corner.second);
    return top;
  }
  double Bottom() const {
    double bottom = -1e300;
    for (auto corner : corners) bottom = std::max(bottom, corner.second);
    return bottom;
  }
};

// What is already drawn where: every label and marker placed so far; a new label goes where it overlaps none.
struct Placement {
  std::vector<Quad> taken;
  bool Clear(const Quad& quad) const {
    return std::none_of(taken.begin(), taken.end(), [&](const Quad& other) { return quad.Overlaps(other); });
  }
  size_t Conflicts(const Quad& quad) const {
    return static_cast<size_t>(
        std::count_if(taken.begin(), taken.end(), [&](const Quad& other) { return quad.Overlaps(other); }));
  }
};

// Pixel width of a 12 px label (DejaVu Sans runs about 6.6 px a character, bold about 7.2: rounded up).
double LabelWidth(std::string_view text, bool bold = false) {
  return static_cast<double>(DisplayWidth(text)) * (bold ? 7.6 : 7.0) + 4;
}

// The box of a circle marker of `radius` at (x, y), with a little room around it.
Quad MarkerBox(double x, double y, double radius) {
  return Quad::Axis(x - radius - 2, y - radius - 2, x + radius + 2, y + radius + 2);
}

// Labels along each slope, rotated to the line's angle (the primary slope first), each at the first
// place along its visible part that stays inside the plot and clear of everything placed (markers, the
// ceilings' labels, the other slopes' labels); failing that, where it overlaps least.
std::string SlopeLabels(const std::vector<Slope>& slopes, double top_ceiling, const LogAxis& x,
                        const LogAxis& y, Placement& placement) {
  double pixels_per_decade_x = (x.pixel_end - x.pixel_start) / (x.high_exponent - x.low_exponent);
  double pixels_per_decade_y = (y.pixel_start - y.pixel_end) / (y.high_exponent - y.low_exponent);
  double angle = -std::atan2(pixels_per_decade_y, pixels_per_decade_x) * 180 / std::numbers::pi;
  std::vector<const Slope*> order;
  for (const Slope& slope : slopes) order.push_back(&slope);
  std::stable_partition(order.begin(), order.end(), [](const Slope* slope) { return slope->primary; });
  std::string svg = fmt::format("<g font-size=\"12\" {} {}>", kFont, kHalo);
  for (const Slope* slope : order) {
    double start = std::max(x.Low(), y.Low() / slope->bytes_per_second);
    double end = std::min({x.High(), y.High() / slope->bytes_per_second,
                           top_ceiling > 0 ? top_ceiling / slope->bytes_per_second : x.High()});
    if (!(end > start)) continue;
    double width = LabelWidth(slope->label, slope->primary);
    std::optional<Quad> best;
    double best_x = 0, best_y = 0;
    size_t best_conflicts = SIZE_MAX;
    for (double fraction : {0.3, 0.2, 0.4, 0.1, 0.5, 0.6, 0.7, 0.8, 0.9, 0.05, 0.95}) {
      double at = std::pow(10.0, std::log10(start) + fraction * (std::log10(end) - std::log10(start)));
      double px = x.Map(at), py = y.Map(slope->bytes_per_second * at);
      // The text sits 6 px above its anchor (y="-6"): about 11 px of ascent, 3 of descent.
      Quad quad = Quad::Turned(px, py, angle, -width / 2, -18, width / 2, -2);
      if (!quad.InsidePlot()) continue;
      size_t conflicts = placement.Conflicts(quad);
      if (conflicts < best_conflicts) best = quad, best_x = px, best_y = py, best_conflicts = conflicts;
      if (conflicts == 0) break;
    }
    if (!best) {  // too short a visible part for the whole label: its middle
      double at = std::pow(10.0, (std::log10(start) + std::log10(end)) / 2);
      best_x = x.Map(at), best_y = y.Map(slope->bytes_per_second * at);
      best = Quad::Turned(best_x, best_y, angle, -width / 2, -18, width / 2, -2);
    }
    placement.taken.push_back(*best);
    svg += fmt::format(
        "<text transform=\"translate({},{}) rotate({})\" y=\"-6\" text-anchor=\"middle\" "
        "fill=\"{}\"{}>{}</text>",
        Number(best_x), Number(best_y), Number(angle), slope->color,
        slope->primary ? " font-weight=\"bold\"" : "", EscapeHtml(slope->label));
  }
  return svg + "</g>";
}

// Ceilings from where they meet the fastest slope to the right edge; labels at the right end, above
// their line where that is clear of the other labels and lines, else below it. Ceilings that fall on the
// same pixel row share one label ("FP32, FP16 66.8 TFLOP/s").
std::string CeilingLines(const std::vector<Ceiling>& ceilings, double fastest_slope, const LogAxis& x,
                         const LogAxis& y, Placement& placement) {
  std::string lines = "<g fill=\"none\">";
  std::string labels = fmt::format("<g font-size=\"12\" text-anchor=\"end\" {} {}>", kFont, kHalo);
  struct Row {
    std::string text, color;
    double pixel;
    bool primary;
  };
  std::vector<Row> rows;
  std::vector<const Ceiling*> in_row;        // the first ceiling of the newest row
  for (const Ceiling& ceiling : ceilings) {  // highest first: top of the chart first
    double start = fastest_slope > 0 ? std::max(x.Low(), ceiling.per_second / fastest_slope) : x.Low();
    double pixel = y.Map(ceiling.per_second);
    lines += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"{4}\"{5}/>",
        Number(x.Map(start)), Number(pixel), Number(kWidth - kRight), ceiling.color,
        ceiling.primary ? 3 : 1.5, ceiling.primary ? "" : " stroke-dasharray=\"6 4\"");
    if (!rows.empty() && std::abs(rows.back().pixel - pixel) < 4) {
      const Ceiling& first = *in_row.back();
      rows.back().text = first.value == ceiling.value && rows.back().text.ends_with(first.value)
                             ? rows.back().text.substr(0, rows.back().text.size() - first.value.size() - 1) +
                                   ", " + ceiling.label
                             : rows.back().text + " · " + ceiling.label;
      rows.back().primary = rows.back().primary || ceiling.primary;
      if (ceiling.primary) rows.back().color = ceiling.color;
      continue;
    }
    rows.push_back({ceiling.label, ceiling.color, pixel, ceiling.primary});
    in_row.push_back(&ceiling);
  }
  auto crossed = [&rows](const Quad& quad) {
    return std::any_of(rows.begin(), rows.end(),
                       [&](const Row& row) { return row.pixel > quad.Top() && row.pixel < quad.Bottom(); });
  };
  double right = kWidth - kRight - 6, previous = -1e9;
  for (const Row& row : rows) {
    double width = LabelWidth(row.text, row.primary);
    auto box = [&](double baseline) {
      return Quad::Axis(right - width, baseline - 12, right + 2, baseline + 3);
    };
    double baseline = std::max(row.pixel - 6, previous + 15);  // fallback: under the previous label
    for (double candidate : {row.pixel - 6, row.pixel + 15}) {
      Quad quad = box(candidate);
      if (quad.InsidePlot() && placement.Clear(quad) && !crossed(quad)) {
        baseline = candidate;
        break;
      }
    }
    previous = baseline;
    placement.taken.push_back(box(baseline));
    labels += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\"{}>{}</text>", Number(right), Number(baseline),
                          row.color, row.primary ? " font-weight=\"bold\"" : "", EscapeHtml(row.text));
  }
  return lines + "</g>" + labels + "</g>";
}

std::pair<double, double> PointPixel(const KernelPoint& point, const LogAxis& x, const LogAxis& y) {
  return {x.Map(std::clamp(point.intensity, x.Low(), x.High())),
          y.Map(std::clamp(point.rate, y.Low(), y.High()))};
}

// True when the box crosses a slope (a line of constant bytes/s on the log axes) or a ceiling's line.
bool CrossesALine(const Quad& box, const std::vector<Slope>& slopes, const std::vector<Ceiling>& ceilings,
                  const LogAxis& x, const LogAxis& y) {
  double left = box.corners[0].first, right = box.corners[1].first, top = box.Top(), bottom = box.Bottom();
  for (const Ceiling& ceiling : ceilings) {
    double pixel = y.Map(ceiling.per_second);
    if (pixel > top && pixel < bottom) return true;
  }
  // Slopes are drawn up to the highest ceiling only.
  double roof = ceilings.empty() ? -1e300 : y.Map(ceilings.front().per_second);
  for (const Slope& slope : slopes) {
    for (double px = left; px <= right; px += 4) {
      double intensity =
          std::pow(10.0, x.low_exponent + (px - x.pixel_start) / (x.pixel_end - x.pixel_start) *
                                              (x.high_exponent - x.low_exponent));
      double py = y.Map(slope.bytes_per_second * intensity);
      if (py > top && py < bottom && py >= roof) return true;
    }
  }
  return false;
}

// The hollow markers of the kernel's L2 and L1 intensities: levels whose points fall within a marker of
// each other share one marker and one label ("L1, L2"); levels on the kernel's own point get a ring
// around it instead.
struct MarkerGroup {
  double x = 0, y = 0, radius = 5;
  std::string label;
};

std::vector<MarkerGroup> GroupMarkers(const std::vector<KernelPoint>& points, const KernelPoint* dram,
                                      const LogAxis& x, const LogAxis& y) {
  std::vector<MarkerGroup> groups;
  std::optional<std::pair<double, double>> kernel;
  if (dram) kernel = PointPixel(*dram, x, y);
  for (const KernelPoint& point : points) {
    if (&point == dram) continue;
    auto [px, py] = PointPixel(point, x, y);
    std::string level = MemoryLevelLabel(point.level);
    bool on_kernel = kernel && std::hypot(kernel->first - px, kernel->second - py) < 16;
    double cx = on_kernel ? kernel->first : px, cy = on_kernel ? kernel->second : py;
    auto same = std::find_if(groups.begin(), groups.end(), [&](const MarkerGroup& group) {
      return on_kernel ? group.radius > 5 : group.radius == 5 && std::hypot(group.x - px, group.y - py) < 16;
    });
    if (same != groups.end()) {
      same->label += ", " + level;
      continue;
    }
    groups.push_back({cx, cy, on_kernel ? 12.0 : 5.0, level});
  }
  return groups;
}

// A label of `width` next to a marker of `radius` at (x, y): above, right, left, below, then the
// diagonals, the first clear of everything placed; the first inside the plot when none is. Returns the
// text's anchor (middle, baseline) and takes its box.
std::pair<double, double> PlaceMarkerLabel(double x, double y, double radius, double width,
                                           Placement& placement) {
  double side = radius + 4 + width / 2;
  const std::pair<double, double> spots[] = {{0, -radius - 5},    {side, 4},           {-side, 4},
                                             {0, radius + 14},    {side, -radius - 5}, {-side, -radius - 5},
                                             {side, radius + 14}, {-side, radius + 14}};
  std::optional<std::pair<double, double>> fallback;
  for (const auto& [dx, dy] : spots) {
    Quad box = Quad::Axis(x + dx - width / 2, y + dy - 12, x + dx + width / 2, y + dy + 3);
    if (!box.InsidePlot()) continue;
    if (!fallback) fallback = {x + dx, y + dy};
    if (!placement.Clear(box)) continue;
    placement.taken.push_back(box);
    return {x + dx, y + dy};
  }
  auto [lx, ly] = fallback.value_or(std::pair<double, double>{x, y - radius - 5});
  placement.taken.push_back(Quad::Axis(lx - width / 2, ly - 12, lx + width / 2, ly + 3));
  return {lx, ly};
}

// The kernel's label: beside its point where it crosses no slope or ceiling line and overlaps nothing
// placed, else where it overlaps nothing, else the first place inside the plot.
std::string KernelLabel(const KernelPoint& dram, const LogAxis& x, const LogAxis& y,
                        const std::vector<Slope>& slopes, const std::vector<Ceiling>& ceilings,
                        Placement& placement) {
  auto [px, py] = PointPixel(dram, x, y);
  std::string label = "this kernel: " + FormatIntensity(dram.intensity, QuantityStyle::kTrimmed) + ", " +
                      FormatRate(dram.rate, QuantityStyle::kTrimmed);
  double width = LabelWidth(label, true) + 4;
  struct Place {
    double dx, dy;
    bool left;
  };
  const Place places[] = {{10, 24, false},  {-10, 24, true}, {10, -16, false}, {-10, -16, true},
                          {10, 42, false},  {-10, 42, true}, {10, -34, false}, {-10, -34, true},
                          {18, 5, false},   {-18, 5, true},  {10, 60, false},  {-10, 60, true},
                          {10, -52, false}, {-10, -52, true}};
  auto box_at = [&](const Place& place) {
    double lx = px + place.dx, ly = py + place.dy;
    return Quad::Axis(place.left ? lx - width + 4 : lx - 4, ly - 13, place.left ? lx + 4 : lx - 4 + width,
                      ly + 5);
  };
  const Place* chosen = nullptr;
  for (int pass = 0; pass < 3 && !chosen; ++pass) {
    for (const Place& place : places) {
      Quad box = box_at(place);
      if (!box.InsidePlot()) continue;
      if (pass < 2 && !placement.Clear(box)) continue;
      if (pass < 1 && CrossesALine(box, slopes, ceilings, x, y)) continue;
      chosen = &place;
      break;
    }
  }
  Place fallback{10, py + 22 > kHeight - kBottom - 4 ? -12.0 : 22.0, px > (kLeft + kWidth - kRight) / 2};
  if (fallback.left) fallback.dx = -10;
  if (!chosen) chosen = &fallback;  // nowhere inside: below the point
  Quad box = box_at(*chosen);
  placement.taken.push_back(box);
  return fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"18\" rx=\"3\" fill=\"#fff\" fill-opacity=\"0.9\"/>"
      "<text x=\"{}\" y=\"{}\" text-anchor=\"{}\" font-weight=\"bold\" fill=\"#111827\">{}</text>",
      Number(box.corners[0].first), Number(box.Top()), Number(width), Number(px + chosen->dx),
      Number(py + chosen->dy), chosen->left ? "end" : "start", EscapeHtml(label));
}

std::string NoPointNote(const RooflineAnalysis& roofline, Placement& placement) {
  std::string note = roofline.compute.empty()
                         ? "no FLOP counts in the profile: the kernel has no point on this chart"
                         : "no floating-point work: the kernel has no point on this chart";
  if (!roofline.busiest_memory_level.empty()) {
    note += fmt::format(" ({} at {} of peak)", MemoryLevelLabel(roofline.busiest_memory_level),
                        FormatPercent(roofline.memory_percent_of_peak, QuantityStyle::kTrimmed));
  }
  // Bottom right: below every slope, where the roofline leaves the plot empty (13 px text).
  double right = kWidth - kRight - 10, baseline = kHeight - kBottom - 12;
  placement.taken.push_back(
      Quad::Axis(right - LabelWidth(note) * 13 / 12, baseline - 13, right + 2, baseline + 4));
  return fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"13\" fill=\"#111827\" {} {}>{}</text>",
      Number(right), Number(baseline), kFont, kHalo, EscapeHtml(note));
}

// The markers (the kernel's point filled, its other levels hollow or a ring, the point before a change
// hollow grey with an arrow to the kernel's) and their labels, every label clear of what is placed.
std::string Markers(const std::vector<KernelPoint>& points, const std::vector<KernelPoint>& old_points,
                    const LogAxis& x, const LogAxis& y, std::string_view chart_id, Placement& placement,
                    const std::vector<Slope>& slopes, const std::vector<Ceiling>& ceilings) {
  std::string svg = fmt::format("<g font-size=\"12\" {}>", kFont);
  const KernelPoint* dram = nullptr;
  for (const KernelPoint& point : points) {
    if (point.level == "dram") dram = &point;
  }
  std::vector<MarkerGroup> groups = GroupMarkers(points, dram, x, y);
  if (!old_points.empty() && !points.empty()) {
    auto [bx, by] = PointPixel(old_points.front(), x, y);
    auto [ax, ay] = PointPixel(points.front(), x, y);
    svg += fmt::format(
        "<circle cx=\"{}\" cy=\"{}\" r=\"7\" fill=\"#fff\" stroke=\"#6b7280\" stroke-width=\"2\"/>",
        Number(bx), Number(by));
    if (std::hypot(ax - bx, ay - by) > 12) {
      svg += fmt::format(
          "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#111827\" stroke-width=\"2\" "
          "marker-end=\"url(#arrow-{})\"/>",
          Number(bx), Number(by), Number(ax), Number(ay), EscapeHtml(chart_id));
    }
  }
  if (dram) {
    auto [px, py] = PointPixel(*dram, x, y);
    svg += fmt::format(
        "<circle cx=\"{}\" cy=\"{}\" r=\"7\" fill=\"#111827\" stroke=\"#fff\" stroke-width=\"2\"/>",
        Number(px), Number(py));
    svg += KernelLabel(*dram, x, y, slopes, ceilings, placement);
  }
  for (const MarkerGroup& group : groups) {
    svg += fmt::format(
        "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"none\" stroke=\"#111827\" stroke-width=\"1.5\"/>",
        Number(group.x), Number(group.y), Number(group.radius));
    auto [lx, ly] = PlaceMarkerLabel(group.x, group.y, group.radius, LabelWidth(group.label), placement);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#374151\" {}>{}</text>",
                       Number(lx), Number(ly), kHalo, EscapeHtml(group.label));
  }
  if (!old_points.empty()) {
    auto [bx, by] = PointPixel(old_points.front(), x, y);
    auto [lx, ly] = PlaceMarkerLabel(bx, by, 7, LabelWidth("before"), placement);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#6b7280\" {}>before</text>",
                       Number(lx), Number(ly), kHalo);
  }
  return svg + "</g>";
}

}  // namespace

std::string RooflineSvg(const RooflineAnalysis& roofline, std::string_view chart_id) {
  return RooflineShiftSvg(nullptr, roofline, chart_id);
}

std::string RooflineShiftSvg(const RooflineAnalysis* before, const RooflineAnalysis& roofline,
                             std::string_view chart_id) {
  std::vector<Slope> slopes = SlopesOf(roofline);
  std::vector<Ceiling> ceilings = CeilingsOf(roofline);
  if (slopes.empty() && ceilings.empty()) {
    return "<p class=\"muted\">No roofline chart: no compute or bandwidth ceiling is known for this "
           "device.</p>";
  }
  std::vector<KernelPoint> points = PointsOf(roofline);
  std::vector<KernelPoint> old_points;
  if (before) old_points = PointsOf(*before);
  std::vector<KernelPoint> all_points = points;
  all_points.insert(all_points.end(), old_points.begin(), old_points.end());
  auto [x, y] = MakeAxes(slopes, ceilings, all_points);
  std::string clip_id = "clip-" + EscapeHtml(chart_id);
  double top_ceiling = ceilings.empty() ? 0 : ceilings.front().per_second;
  double fastest_slope = 0;
  for (const Slope& slope : slopes) fastest_slope = std::max(fastest_slope, slope.bytes_per_second);
  std::string svg = fmt::format(
      "<svg class=\"chart roofline\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "aria-label=\"Roofline chart\" {2}><title>Roofline: arithmetic intensity against FLOP/s</title>",
      kWidth, kHeight, kFont);
  svg += fmt::format(
      "<defs><clipPath id=\"{}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></clipPath>"
      "<marker id=\"arrow-{}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"8\" "
      "markerHeight=\"8\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" "
      "fill=\"#111827\"/></marker></defs>",
      clip_id, Number(kLeft), Number(kTop), Number(kWidth - kLeft - kRight), Number(kHeight - kTop - kBottom),
      EscapeHtml(chart_id));
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>" + GridAndTicks(x, y);
  svg += SlopeLines(slopes, top_ceiling, x, y, clip_id);
  // Labels are placed in turn, each clear of what is placed before it: the ceilings' labels, every
  // marker, the slopes' labels, the kernel's label, the other markers' labels.
  Placement placement;
  svg += CeilingLines(ceilings, fastest_slope, x, y, placement);
  const KernelPoint* dram = nullptr;
  for (const KernelPoint& point : points) {
    if (point.level == "dram") dram = &point;
  }
  if (dram) {
    auto [px, py] = PointPixel(*dram, x, y);
    placement.taken.push_back(MarkerBox(px, py, 7));
  }
  for (const MarkerGroup& group : GroupMarkers(points, dram, x, y))
    placement.taken.push_back(MarkerBox(group.x, group.y, group.radius));
  if (!old_points.empty()) {
    auto [bx, by] = PointPixel(old_points.front(), x, y);
    placement.taken.push_back(MarkerBox(bx, by, 7));
  }
  std::string note = points.empty() ? NoPointNote(roofline, placement) : "";
  svg += SlopeLabels(slopes, top_ceiling, x, y, placement);
  svg += note;
  svg += Markers(points, old_points, x, y, chart_id, placement, slopes, ceilings);
  return svg + "</svg>";
}

std::string StallBarsSvg(const std::vector<StallReason>& stalls, size_t max_bars) {
  std::vector<StallReason> shown = TopStalls(stalls, max_bars);
  if (shown.empty()) return "";
  constexpr double kRow = 26, kLabelWidth = 190, kValueWidth = 170, kChartWidth = 760;
  double height = kRow * static_cast<double>(shown.size()) + 34;
  double bar_space = kChartWidth - kLabelWidth - kValueWidth;
  std::string svg = fmt::format(
      "<svg class=\"chart stalls\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "aria-label=\"Warp stall breakdown\" {2}><title>Warp stall reasons, share of stall cycles</title>"
      "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>",
      kChartWidth, Number(height), kFont);
  for (size_t index = 0; index < shown.size(); ++index) {
    const StallReason& stall = shown[index];
    double top = 8 + kRow * static_cast<double>(index);
    double share = std::isfinite(stall.share) ? std::clamp(stall.share, 0.0, 1.0) : 0.0;
    svg +=
        fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"13\" fill=\"#111827\">{}</text>",
                    Number(kLabelWidth - 10), Number(top + 15), EscapeHtml(Truncate(stall.name, 26)));
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f3f4f6\"/>",
                       Number(kLabelWidth), Number(top + 2), Number(bar_space), Number(kRow - 8));
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>",
                       Number(kLabelWidth), Number(top + 2), Number(bar_space * share), Number(kRow - 8),
                       index == 0 ? "#b91c1c" : "#6b7280");
    svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"#111827\">{} · {} cycles/inst</text>",
                       Number(kLabelWidth + bar_space + 8), Number(top + 15),
                       EscapeHtml(FormatFraction(stall.share, QuantityStyle::kTrimmed)),
                       EscapeHtml(FormatNumber(stall.cycles_per_issue, QuantityStyle::kTrimmed)));
  }
  double axis_y = 8 + kRow * static_cast<double>(shown.size()) + 14;
  svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#6b7280\">0%</text>",
                     Number(kLabelWidth), Number(axis_y));
  svg += fmt::format(
      "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\" fill=\"#6b7280\">100% of stall "
      "cycles</text>",
      Number(kLabelWidth + bar_space), Number(axis_y));
  return svg + "</svg>";
}

}  // namespace kopt

namespace kopt {

namespace {

// The step of round axis ticks nearest above `raw`: 1, 2, 2.5 or 5 times a power of ten.
double RoundTickStep(double raw) {
  if (!(raw > 0) || !std::isfinite(raw)) return 1;
  double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (double multiple : {1.0, 2.0, 2.5, 5.0}) {
    if (multiple * decade >= raw * (1 - 1e-9)) return multiple * decade;
  }
  return 10 * decade;
}

// An x value as an axis label: whole numbers below a million in full ("1024", not "1.02K").
std::string AxisValueText(double value) {
  if (std::fabs(value) < 1e6 && value == std::round(value))
    return fmt::format("{}", static_cast<long long>(value));
  return FormatScaled(value, "", QuantityStyle::kTrimmed);
}

// Where a line chart's values land: the plot area of a kW × kH chart, x linear or logarithmic
// from x_low to x_high, y from 0 to y_high.
struct LineChartFrame {
  static constexpr double kW = 760, kH = 300, kL = 84, kR = 150, kT = 30, kB = 46;
  double x_low = 1e300, x_high = -1e300, y_high = 0;
  bool log_x = false;
  double X(double v) const {
    double a = log_x ? std::log10(x_low) : x_low, b = log_x ? std::log10(x_high) : x_high;
    double t = log_x ? std::log10(v) : v;
    double fraction = b > a ? (t - a) / (b - a) : 0.5;
    return kL + fraction * (kW - kL - kR);
  }
  double Y(double v) const { return kH - kB - (v / y_high) * (kH - kT - kB); }
};

// The data's extent (points with a non-positive x left out on a log axis); nullopt when no point is drawn.
std::optional<LineChartFrame> FrameOf(const std::vector<LineSeries>& series, bool log_x) {
  LineChartFrame frame;
  frame.log_x = log_x;
  for (const LineSeries& line : series) {
    for (auto [px, py] : line.points) {
      if (log_x && !(px > 0)) continue;
      if (!std::isfinite(px) || !std::isfinite(py)) continue;
      frame.x_low = std::min(frame.x_low, px);
      frame.x_high = std::max(frame.x_high, px);
      frame.y_high = std::max(frame.y_high, py);
    }
  }
  if (!(frame.x_high >= frame.x_low)) return std::nullopt;
  return frame;
}

// The y axis' grid lines and labels, one per `y_step` up to the frame's top.
std::string YTicksSvg(const LineChartFrame& frame, double y_step, std::string_view y_unit) {
  using F = LineChartFrame;
  std::string svg;
  for (int tick = 0; tick * y_step <= frame.y_high * (1 + 1e-9); ++tick) {
    double value = tick * y_step;
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#e5e7eb\"/><text x=\"{3}\" y=\"{4}\" "
        "text-anchor=\"end\" font-size=\"11\" fill=\"#374151\">{5}</text>",
        Number(F::kL), Number(frame.Y(value)), Number(F::kW - F::kR), Number(F::kL - 6),
        Number(frame.Y(value) + 4),
        EscapeHtml(y_unit == "%"    ? FormatPercent(value, QuantityStyle::kTrimmed)
                   : y_unit == "ns" ? FormatDuration(value, QuantityStyle::kTrimmed)
                                    : FormatScaled(value, y_unit, QuantityStyle::kTrimmed)));
  }
  return svg;
}

// The x axis' labels at the distinct x values of all series (at most 10), and its title.
std::string XTicksSvg(const LineChartFrame& frame, const std::vector<LineSeries>& series,
                      std::string_view x_label) {
  using F = LineChartFrame;
  std::vector<double> ticks;
  for (const LineSeries& line : series)
    for (auto [px, py] : line.points) ticks.push_back(px);
  std::sort(ticks.begin(), ticks.end());
  ticks.erase(std::unique(ticks.begin(), ticks.end()), ticks.end());
  size_t step = std::max<size_t>(1, (ticks.size() + 9) / 10);
  std::string svg;
  for (size_t i = 0; i < ticks.size(); i += step) {
    if (frame.log_x && !(ticks[i] > 0)) continue;
    svg += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\" fill=\"#374151\">{}</text>",
        Number(frame.X(ticks[i])), Number(F::kH - F::kB + 16), EscapeHtml(AxisValueText(ticks[i])));
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\">{}{}</text>",
                     Number((F::kL + F::kW - F::kR) / 2), Number(F::kH - 10), EscapeHtml(x_label),
                     frame.log_x ? " (log scale)" : "");
  return svg;
}

// Each series as a line with its points marked and its name at the right, in eight hues far apart
// (no two reds): blue, red, green, amber, violet, cyan, lime, grey.
std::string SeriesSvg(const LineChartFrame& frame, const std::vector<LineSeries>& series) {
  using F = LineChartFrame;
  static const std::vector<std::string> kColors = {"#1d4ed8", "#b91c1c", "#15803d", "#a16207",
                                                   "#7c3aed", "#0891b2", "#65a30d", "#4b5563"};
  std::string svg;
  for (size_t k = 0; k < series.size(); ++k) {
    const std::string& color = kColors[k % kColors.size()];
    std::string path;
    std::string marks;
    for (auto [px, py] : series[k].points) {
      if ((frame.log_x && !(px > 0)) || !std::isfinite(py)) continue;
      path += fmt::format("{}{},{}", path.empty() ? "M" : " L", Number(frame.X(px)), Number(frame.Y(py)));
      marks += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"/>", Number(frame.X(px)),
                           Number(frame.Y(py)), color);
    }
    svg +=
        fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>{}", path, color, marks);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"{}\">{}</text>",
                       Number(F::kW - F::kR + 10), Number(F::kT + 14 + 16 * static_cast<double>(k)), color,
                       EscapeHtml(series[k].name));
  }
  return svg;
}

}  // namespace

std::string LineChartSvg(std::string_view title, std::string_view x_label, std::string_view y_unit,
                         const std::vector<LineSeries>& series, bool log_x, std::optional<double> y_max) {
  using F = LineChartFrame;
  std::optional<LineChartFrame> frame = FrameOf(series, log_x);
  if (!frame) return "";
  if (y_max) frame->y_high = std::max(frame->y_high, *y_max);
  if (!(frame->y_high > 0)) frame->y_high = 1;
  // Round ticks: the smallest step of 1, 2, 2.5 or 5 × 10^k that covers the data in at most five
  // intervals; the axis ends on the tick above the largest value.
  const double y_step = RoundTickStep(frame->y_high / 5);
  frame->y_high = y_step * std::ceil(frame->y_high / y_step * (1 - 1e-9));
  std::string svg = fmt::format(
      "<svg class=\"chart sweep\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "aria-label=\"{2}\" {3}><title>{2}</title><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>",
      F::kW, F::kH, EscapeHtml(title), kFont);
  svg += fmt::format("<text x=\"{}\" y=\"18\" font-size=\"14\" font-weight=\"bold\">{}</text>", Number(F::kL),
                     EscapeHtml(title));
  svg +=
      fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#9ca3af\"/>",
                  Number(F::kL), Number(F::kT), Number(F::kW - F::kL - F::kR), Number(F::kH - F::kT - F::kB));
  svg += YTicksSvg(*frame, y_step, y_unit);
  svg += XTicksSvg(*frame, series, x_label);
  svg += SeriesSvg(*frame, series);
  return svg + "</svg>";
}

}  // namespace kopt
