// The tools `kopt ask`'s agent reads the evidence with (function calling,
// llm/chat.h "Tools"), instead of one fixed digest: list_kernels,
// read_findings, read_metrics, read_sass, read_source, with two profiles
// compare, and with a plan of programs (`kopt ask --plan`) read_plan. Each result is plain text whose every
// number is added to the evidence the answer is checked against (agents/number_check.h), so a number the
// model read through a tool is supported and one it made up is not.
//
// Profiles are named by index (0 = the first TARGET, 1 = the second: before
// and after; with a plan, one per program in list_kernels' order) and kernels by their index in that
// profile's diagnosis or a substring of the name. Bad arguments are error answers the model sees, never a
// failure of the command.
//
// Thread safety: the evidence is read-only; ExecuteEvidenceTool may run on
// several threads.
#pragma once

#include <string>
#include <vector>

#include "agents/number_check.h"
#include "agents/source_search_tool.h"
#include "analysis/diagnosis.h"
#include "llm/chat.h"
#include "profile/profile.h"

namespace kopt::agents {

// One profile and its diagnosis (both borrowed).
struct EvidenceProfile {
  std::string label;  // "profile", "before", "after"
  const Profile* profile = nullptr;
  const Diagnosis* diagnosis = nullptr;
};

struct AskEvidence {
  std::vector<EvidenceProfile> profiles;  // one or two; with a plan, one per program
  std::string source_file;                // the kernel source's name; empty: none
  std::string source_text;
  std::string comparison;  // the deterministic comparison of two profiles (report/comparison_renderer.h); may
                           // be empty
  std::string plan;  // the plan of the programs (`kopt plan`'s Markdown, report/program_plan_renderer.h);
                     // empty: no plan
};

// The overview lists every kernel of at most this many; beyond it, the programs only.
inline constexpr size_t kMaxOverviewKernels = 40;

inline constexpr size_t kMaxMetricLines = 60;  // read_metrics lists at most this many metrics
inline constexpr int kMaxSourceLinesPerRead = 80;

std::vector<llm::ToolDefinition> EvidenceToolDefinitions(const AskEvidence& evidence);

// Runs one call; an unknown tool or bad arguments is an error answer. The
// numbers the answer shows are added to `shown` (with their labels and units
// where the tool knows them).
ToolAnswer ExecuteEvidenceTool(const AskEvidence& evidence, const llm::ToolCall& call, EvidenceSet& shown);

// The short overview the first user turn carries: the profiles, their
// kernels (time, class, top finding; with more than kMaxOverviewKernels in
// all, each program's kernel count and time instead) and what the tools can
// read. Its
// numbers are added to `shown`.
std::string EvidenceOverview(const AskEvidence& evidence, EvidenceSet& shown);

}  // namespace kopt::agents
