// `kopt gpus`: the GPU spec table, and the GPUs on this machine as the CUDA
// driver reports them.
//
// Output formats:
//   term  aligned columns, units in the headers (TFLOP/s, TB/s, GB, MiB, KiB,
//         MHz, W), unknown values as "-", then each row's source.
//   md    the same as Markdown tables and a list of sources.
//   json  {"schema_version", "command": "gpus", "gpus": [...], "live": {...}};
//         every number is {"value": v, "unit": "u"} in base units (FLOP/s,
//         OP/s, byte/s, byte, Hz, W, SM, register, warp, bit, FLOP/byte), or
//         null when unknown. "live" has "status" ("ok", "unavailable",
//         "skipped"), a "message" unless ok, and "gpus" when ok.
//
// The live section appears when query_live is set and KOPT_NO_GPU_QUERY is
// not "1". A machine without a GPU or driver is not an error: the table is
// printed with a note saying why no GPU was found.
//
// Thread safety: no shared state besides the output stream.
#pragma once

#include <ostream>
#include <string>

#include "core/status.h"

namespace kopt {

struct GpusOptions {
  std::string format = "term";  // term|md|json (also "terminal", "markdown")
  bool query_live = true;       // read the GPUs on this machine through the CUDA driver
};

// Writes the table to `out`. InvalidInput for an unknown format; the live
// query never fails the command.
Status RunGpus(const GpusOptions& options, std::ostream& out);

}  // namespace kopt
