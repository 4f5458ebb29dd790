// `kopt diff BEFORE AFTER`: what changed between two profiles (docs/diff.md).
//
// BEFORE and AFTER are anything `kopt explain` accepts (CSV export, bundle
// directory, .ncu-rep report, .cu file). The engine is explain/diff.h (both
// loaded with the same selection and collection settings, diagnosed,
// compared, `--llm` narrative); this command resolves the format, renders
// with report/comparison_renderer.h (term, md, json, html) and writes.
#pragma once

#include <ostream>
#include <string>

#include "core/status.h"
#include "core/subprocess.h"
#include "explain/diff.h"

namespace kopt {

struct DiffOptions {
  DiffSettings settings;        // what is compared and how (explain/diff.h)
  std::string format = "term";  // term | md | json | html
  std::string output_path;      // empty: `out`
};

// `log` receives the LLM exchanges with settings.llm.verbose.
Status RunDiff(const DiffOptions& options, CommandRunner& runner, std::ostream& out, std::ostream& log);

}  // namespace kopt
