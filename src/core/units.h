// Units of profiler metrics.
//
// kopt keeps every metric in the base units ncu prints with
// `--print-units base`: byte, ns, hz, cycle, sector, inst, %, and ratios of
// them such as byte/s or sector/cycle. Exports made with auto-scaled units
// (`Mbyte`, `us`, `Ghz`, `sector/ns`, `%/Kbyte`) are converted on ingestion,
// so analysis code never sees a prefix. Decimal prefixes (K = 1000), as ncu uses.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kopt {

struct BaseQuantity {
  double value = 0;
  std::string unit;  // base unit, e.g. "byte/s"; empty for dimensionless metrics
};

// Converts `value` expressed in `unit` to base units. Units kopt does not know
// are returned unchanged (they carry no prefix kopt could remove safely).
BaseQuantity ToBaseUnits(double value, std::string_view unit);

// True for the units ncu writes: "", "%", the words byte, hz, inst, cycle,
// sector(s), warp, thread, request, block, branches, sample, register, pass
// (with a K/M/G/T/P prefix), the time words s/ms/us/ns (also "second" …),
// SM, cluster, and one "a/b" of them ("Gbyte/s", "inst/cycle"). "furlong" is not.
bool IsKnownUnit(std::string_view unit);

}  // namespace kopt
