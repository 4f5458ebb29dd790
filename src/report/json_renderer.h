// The JSON form of a Diagnosis (docs/json-schema.md, schema_version
// kJsonSchemaVersion). Every number is a quantity object {"value": v,
// "unit": "u"}; unknown values are null; keys are written in a fixed order.
//
// Thread safety: pure function.
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/diagnosis.h"

namespace kopt {

// The whole document: schema_version, tool, version, source, device, kernels, notes.
nlohmann::ordered_json DiagnosisToJson(const Diagnosis& diagnosis);

}  // namespace kopt
