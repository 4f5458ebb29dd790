// `kopt explain TARGET`: the use case that turns a profile into a diagnosis.
//
// TARGET is one of:
//  - an `ncu --csv --page raw` export (any extension but .cu/.ncu-rep), or a
//    profile bundle directory holding raw.csv (+ sass.txt, ptxas.txt);
//  - an Nsight Compute report (.ncu-rep), read through `ncu --import`;
//  - a CUDA source file (.cu): built, run and profiled on the local GPU;
//  - a program and its arguments (ProfileRequest::program_argv, after `--`).
// A CSV may be accompanied by a SASS listing, a ptxas report and an ncu
// source page (options, or sass.txt / ptxas.txt / source.csv beside it).
//
// The engine is explain/explain.h (one profile) and explain/series.h (a
// sweep or versions); this command resolves the format, draws the progress
// line, renders and writes.
//
// Writes the rendered diagnosis to `out`, or to options.output_path (written
// whole to a temporary file, then renamed into place). InvalidInput, before
// anything is written, when output_path names a file the command reads (the
// target, a companion file, a configuration).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"
#include "explain/explain.h"
#include "explain/series.h"

namespace kopt {

struct ExplainOptions {
  ExplainSettings settings;  // what is explained and how (explain/explain.h)
  SeriesRequest series;      // more targets, --sweep (explain/series.h)
  std::string format;       // term | md | json | html | feedback; "": from output_path's extension, else term
  std::string output_path;  // empty: `out`
  bool color = false;       // ANSI colour in the terminal format
  int width = 100;          // columns of the terminal format (the CLI passes the terminal's)
  bool verbose = false;     // every detail in the report; with --llm, the exchanges on `log`
  // Live collection: a progress line on `log` (building, each launch ncu profiles, exporting,
  // disassembling), redrawn in place and cleared before the report. The CLI sets it on a terminal.
  bool progress = false;
};

// `log` receives the --verbose lines of the llm layer (already redacted) and
// the progress line (options.progress); nothing else goes there. The
// three-argument form uses std::cerr.
Status RunExplain(const ExplainOptions& options, CommandRunner& runner, std::ostream& out, std::ostream& log);
Status RunExplain(const ExplainOptions& options, CommandRunner& runner, std::ostream& out);

}  // namespace kopt
