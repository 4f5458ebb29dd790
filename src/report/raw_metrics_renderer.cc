#include "report/raw_metrics_renderer.h"

#include <fmt/format.h>

#include <cmath>

#include "core/text.h"

namespace kopt {

std::string RenderRawMetricTable(const Profile& profile, int max_launches, int max_metrics) {
  std::string out;
  int launches = 0;
  for (const KernelLaunch& launch : profile.launches) {
    if (launches++ >= max_launches) break;
    out += fmt::format("kernel {} grid ({},{},{}) block ({},{},{})\n", launch.kernel_name, launch.grid.x,
                       launch.grid.y, launch.grid.z, launch.block.x, launch.block.y, launch.block.z);
    if (!launch.schema) continue;
    int printed = 0;
    int cut = 0;
    for (int index = 0; index < launch.schema->size() && index < static_cast<int>(launch.values.size());
         ++index) {
      const std::string& name = launch.schema->Name(index);
      double value = launch.values[static_cast<size_t>(index)];
      if (std::isnan(value) || StartsWith(name, "device__attribute")) continue;
      if (printed >= max_metrics) {
        ++cut;
        continue;
      }
      const std::string& unit = launch.schema->Unit(index);
      out += fmt::format("{} = {:.6g}{}{}\n", name, value, unit.empty() ? "" : " ", unit);
      ++printed;
    }
    if (cut > 0) out += fmt::format("({} more metrics not shown)\n", cut);
  }
  if (out.empty()) out = "(the profile has no kernel launches)\n";
  return out;
}

}  // namespace kopt
