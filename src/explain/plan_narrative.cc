#include "explain/plan_narrative.h"

#include "report/program_plan_renderer.h"

namespace kopt {

std::string PlanDigest(const ProgramPlan& plan) {
  if (!plan.narrative) return RenderProgramPlan(plan, ReportFormat::kMarkdown);
  ProgramPlan without = plan;
  without.narrative.reset();
  return RenderProgramPlan(without, ReportFormat::kMarkdown);
}

Narrative NarratePlan(const LlmSession& session, const ProgramPlan& plan) {
  return NarrateDigest(session, kPlanPromptFamily, PlanDigest(plan));
}

}  // namespace kopt
