// The JSON form of a Diagnosis (docs/json-schema.md, schema_version
// kJsonSchemaVersion). Every number is a quantity object {"value": v,
// "unit": "u"}; unknown values are null; keys are written in a fixed order.
//
// Thread safety: pure function.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "analysis/diagnosis.h"

namespace kopt {

// The whole document: schema_version, tool, version, source, device, kernels, notes.
nlohmann::ordered_json DiagnosisToJson(const Diagnosis& diagnosis);

// One kernel of the document (its "kernels" entry).
nlohmann::ordered_json KernelDiagnosisToJson(const KernelDiagnosis& kernel);

// A narrative (`--llm`) as explain's "narrative" object: text, missing_reason,
// model, prompt_templates, the regeneration, every claim with the evidence it
// matched (docs/json-schema.md). `kopt plan` writes the same object.
nlohmann::ordered_json NarrativeToJson(const Narrative& narrative);

// {"value": v, "unit": "u"}; a non-finite value is written as null.
nlohmann::ordered_json JsonQuantity(double value, std::string_view unit);

}  // namespace kopt
