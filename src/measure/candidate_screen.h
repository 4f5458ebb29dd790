// The static policy (harness/candidate_policy.h) applied to one compiled
// candidate: its source file, its library's imported symbols (read from the
// ELF file) and its SASS (cuobjdump -sass, when cuobjdump is found; the
// matching lines are cached beside the compile in its cache entry as
// policy_sass.txt, so a cache hit costs no disassembly). A library that is
// not an ELF file (a test's stand-in compiler writes text) has only the
// source view.
//
// Thread safety: ScreenCompiledCandidate may run on several threads at once
// when the CommandRunner allows it.
#pragma once

#include <string>
#include <vector>

#include "core/subprocess.h"
#include "harness/candidate_policy.h"
#include "harness/compiler.h"
#include "harness/task_spec.h"

namespace kopt {

struct CandidateScreen {
  std::vector<PolicyViolation> violations;  // one per construct: source first, then imports, then SASS
  std::vector<std::string> notes;           // views that could not be screened, and why
};

// Screens the candidate at `source_path` compiled into `compiled` (outcome
// kOk) for `task`. `cuobjdump` is the disassembler's path ("" : no SASS view).
CandidateScreen ScreenCompiledCandidate(const TaskSpec& task, const std::string& source_path,
                                        const CompileResult& compiled, const PolicyAllowance& allowed,
                                        CommandRunner& runner, const std::string& cuobjdump);

// The one line of a policy_violation entry (the first violation, and how many
// more) and its detail (every violation's message, one per line).
std::string PolicyViolationSummary(const std::vector<PolicyViolation>& violations);
std::string PolicyViolationDetail(const std::vector<PolicyViolation>& violations);

}  // namespace kopt
