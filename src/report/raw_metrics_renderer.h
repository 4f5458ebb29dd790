// The raw metric table of a profile: what `kopt optimize --feedback raw`
// shows a generator instead of kopt's findings (the ablation KernelPro ran:
// raw counters vs semantic feedback). Per kernel launch (at most
// `max_launches`), its name, grid and block, then "metric = value unit" for
// its numeric metrics in the export's column order, device attributes left
// out, at most `max_metrics` lines per launch (a last line says how many
// were cut).
//
// Thread safety: pure function.
#pragma once

#include <string>

#include "profile/profile.h"

namespace kopt {

std::string RenderRawMetricTable(const Profile& profile, int max_launches = 2, int max_metrics = 200);

}  // namespace kopt
