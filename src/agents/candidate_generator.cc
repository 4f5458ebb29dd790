#include "agents/candidate_generator.h"

#include <fmt/format.h>

namespace kopt::agents {

std::string_view GeneratorKindName(GeneratorKind kind) {
  switch (kind) {
    case GeneratorKind::kLlm: return "llm";
    case GeneratorKind::kBuiltin: return "builtin";
    case GeneratorKind::kScripted: return "scripted";
  }
  return "unknown";
}

Result<GeneratorKind> ParseGeneratorKind(std::string_view text) {
  for (GeneratorKind kind : {GeneratorKind::kLlm, GeneratorKind::kBuiltin, GeneratorKind::kScripted}) {
    if (text == GeneratorKindName(kind)) return kind;
  }
  return InvalidInput(
      fmt::format("--generator: \"{}\" is not a generator; expected llm, builtin or scripted", text));
}

std::string_view GenerationOutcomeName(GenerationOutcome outcome) {
  switch (outcome) {
    case GenerationOutcome::kSource: return "source";
    case GenerationOutcome::kNoCode: return "no_code";
    case GenerationOutcome::kExhausted: return "exhausted";
  }
  return "unknown";
}

}  // namespace kopt::agents
