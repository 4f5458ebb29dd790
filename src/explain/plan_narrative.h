// `kopt plan --llm`: the narrative over a whole ProgramPlan (docs/plan.md
// "With --llm"). The digest the LLM sees is the plan's own Markdown report
// (report/program_plan_renderer.h): where the time goes (each program's
// kernel time; each listed kernel's time and share), the ranked findings with
// their kernel gain, time saved, share of the program and Amdahl speed-up,
// and the root-cause groups with their summed savings and suggestions. Every
// number of that digest is the evidence: the answer is checked against it by
// agents/number_check.h through NarrateDigest (explain/llm_session.h), the
// same protocol as `kopt explain --llm` and `kopt diff --llm` (prompts
// plan/{system,user,regenerate}.md; one regeneration; what stays unsupported
// is marked "[unsupported]").
//
// Never fails: a missing client or a bad answer is the Narrative's
// missing_reason, and the deterministic plan is rendered whole.
//
// Thread safety: as LlmSession (one call at a time per session).
#pragma once

#include <string>
#include <string_view>

#include "analysis/narrative.h"
#include "analysis/program_plan.h"
#include "explain/llm_session.h"

namespace kopt {

// The prompt family of the plan narrative (prompts/plan/*.md).
inline constexpr std::string_view kPlanPromptFamily = "plan";

// The evidence digest: `plan` as Markdown, without its narrative.
std::string PlanDigest(const ProgramPlan& plan);

// The checked narrative of `plan` (its own narrative ignored).
Narrative NarratePlan(const LlmSession& session, const ProgramPlan& plan);

}  // namespace kopt
