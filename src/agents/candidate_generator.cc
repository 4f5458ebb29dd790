#include "agents/candidate_generator.h"

namespace kopt::agents {

std::string_view GenerationOutcomeName(GenerationOutcome outcome) {
  switch (outcome) {
    case GenerationOutcome::kSource: return "source";
    case GenerationOutcome::kNoCode: return "no_code";
    case GenerationOutcome::kExhausted: return "exhausted";
  }
  return "unknown";
}

}  // namespace kopt::agents
