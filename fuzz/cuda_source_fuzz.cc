// Fuzz target for the CUDA source parser (profile/cuda_source.h) and the
// static hypothesis rules that read its model. Besides "no crash", checks the
// invariants of a parsed model.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "agents/hypotheses.h"
#include "profile/cuda_source.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto model = kopt::ParseCudaSource(text, "fuzz.cu");
  if (!model.ok()) {
    Check(!model.status().message().empty());
    return 0;
  }
  Check(model->code.size() == text.size());
  Check(!model->line_starts.empty() && model->line_starts.front() == 0);
  for (const kopt::CudaFunction& function : model->functions) {
    Check(!function.name.empty());
    Check(function.body_begin < function.body_end && function.body_end < model->code.size());
    Check(model->code[function.body_begin] == '{' && model->code[function.body_end] == '}');
    Check(model->LineOf(function.body_begin) >= 1);
  }
  for (const auto& [begin, end] : model->loops) Check(begin <= end && end <= model->code.size());
  (void)kopt::EvaluateIntegerExpression(text.substr(0, 256), model->macros);
  kopt::agents::HypothesisInputs inputs{"fuzz.cu", std::string(text), nullptr, nullptr};
  for (const kopt::agents::Hypothesis& hypothesis : kopt::agents::PredictStaticHypotheses(inputs)) {
    Check(!hypothesis.id.empty() && !hypothesis.confirming_findings.empty());
  }
  return 0;
}
