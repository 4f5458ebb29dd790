// `kopt plan`: a ProgramPlan (analysis/program_plan.h) as terminal text,
// Markdown, an HTML page (report/text_document.h, with a bar chart of where
// the time goes) or JSON `kopt.plan/1.1` (docs/json-schema.md "kopt.plan";
// every number with its unit in the key: _ns, _share 0..1, _x). With
// `--llm` the checked narrative (ProgramPlan::narrative) follows the
// deterministic report in every format; the text formats escape it
// (TextDocument), JSON writes explain's narrative object.
//
// Thread safety: pure function.
#pragma once

#include <string>

#include "analysis/program_plan.h"
#include "report/report_format.h"

namespace kopt {

// 1.1: "narrative" (`kopt plan --llm`; null without it).
inline constexpr const char* kPlanSchema = "kopt.plan/1.1";

// kTerminal, kMarkdown, kHtml or kJson (kFeedback writes Markdown).
std::string RenderProgramPlan(const ProgramPlan& plan, ReportFormat format);

}  // namespace kopt
