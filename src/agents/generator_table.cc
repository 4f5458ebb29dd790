#include "agents/generator_table.h"

#include <fmt/format.h>

#include "agents/source_search_tool.h"
#include "core/text.h"

namespace kopt::agents {
namespace {

constexpr GeneratorEntry kGeneratorTable[] = {
    {GeneratorKind::kScripted, "scripted", "serves the candidates of a directory or a script.toml, in order",
     SearchPolicyKind::kMcts, MakeScriptedGeneratorParts},
    {GeneratorKind::kLlm, "llm", "the programmer prompts over the configured LLM endpoint",
     SearchPolicyKind::kMcts, MakeLlmGeneratorParts},
    {GeneratorKind::kBuiltin, "builtin",
     "tunes a tunable candidate's space, the findings' moves first (docs/tuning.md)",
     SearchPolicyKind::kGreedy, MakeBuiltinGeneratorParts},
};

}  // namespace

GeneratorParts::GeneratorParts() = default;
GeneratorParts::GeneratorParts(GeneratorParts&&) noexcept = default;
GeneratorParts& GeneratorParts::operator=(GeneratorParts&&) noexcept = default;
GeneratorParts::~GeneratorParts() = default;

std::span<const GeneratorEntry> GeneratorTable() {
  return kGeneratorTable;
}

const GeneratorEntry& GeneratorEntryOf(GeneratorKind kind) {
  for (const GeneratorEntry& entry : kGeneratorTable) {
    if (entry.kind == kind) return entry;
  }
  return kGeneratorTable[0];  // not reached: generator_table_test checks every value has a row
}

std::string_view GeneratorKindName(GeneratorKind kind) {
  return GeneratorEntryOf(kind).name;
}

std::string GeneratorNameList() {
  std::vector<std::string_view> names;
  for (const auto& entry : kGeneratorTable) names.push_back(entry.name);
  return AlternativesText(names);
}

Result<GeneratorKind> ParseGeneratorKind(std::string_view text) {
  for (const GeneratorEntry& entry : kGeneratorTable) {
    if (entry.name == text) return entry.kind;
  }
  return InvalidInput(
      fmt::format("--generator: \"{}\" is not a generator; expected {}", text, GeneratorNameList()));
}

Result<GeneratorParts> MakeGenerator(GeneratorKind kind, const GeneratorInputs& inputs) {
  GeneratorParts parts;
  KOPT_RETURN_IF_ERROR(GeneratorEntryOf(kind).make(inputs, parts));
  return parts;
}

}  // namespace kopt::agents
