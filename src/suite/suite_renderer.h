// A suite's table in every format (`kopt suite`, `kopt suite status`;
// docs/suite.md "Report"): terminal and Markdown and an HTML page through
// report/text_document.h (the HTML page adds the fast_p curve, the
// distribution of speedups, per baseline: report/svg_charts.h LineChartSvg),
// and JSON (`kopt.suite.report`, version 1; every number's unit in its key:
// _s seconds, _usd US dollars, _fraction a fraction of the problems,
// speedup a ratio, tokens a count).
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "core/status.h"
#include "report/report_format.h"
#include "suite/suite_results.h"

namespace kopt::suite {

inline constexpr int kSuiteReportSchemaVersion = 1;

// kTerminal, kMarkdown, kJson or kHtml; InvalidInput for another format.
Result<std::string> RenderSuiteReport(const SuiteReport& report, ReportFormat format);

// The live progress line: "suite NAME: 3/33 done (1 failed), 2 running, 28
// pending · best 2.50× vs eager (kb_level1_19_ReLU) · 1.2k tokens 0.12 USD
// 45.0 GPU-s". The best is against the first baseline column any correct
// problem has.
std::string FormatSuiteProgressLine(const SuiteReport& report);

}  // namespace kopt::suite
