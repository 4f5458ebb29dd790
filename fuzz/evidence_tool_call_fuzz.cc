// Fuzz target for what `kopt ask` and `kopt eval mcq` read from an LLM: a
// tool call's name and arguments (agents/evidence_tools.h: untrusted JSON
// text, kernels named by index or substring, line ranges) and a
// multiple-choice answer's letter (analysis/mcq_benchmark.h). Input: the tool
// name, a newline, the arguments text. Besides "no crash", checks: every
// answer has text; an error answer starts with "error: "; a parsed letter is
// one of A-D.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "agents/evidence_tools.h"
#include "analysis/mcq_benchmark.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

struct Evidence {
  Evidence() {
    auto schema = std::make_shared<kopt::MetricSchema>();
    schema->Add("gpu__time_duration.sum", "ns");
    schema->Add("dram__bytes_read.sum", "byte");
    kopt::KernelLaunch launch;
    launch.launch_id = 7;
    launch.kernel_name = "k(float *)";
    launch.schema = schema;
    launch.values = {1000.0, 4096.0};
    profile.launches.push_back(launch);
    kopt::KernelDiagnosis kernel;
    kernel.launch_id = 7;
    kernel.kernel_name = "k(float *)";
    kernel.function_name = "k";
    kernel.launches.total_duration_ns = 1000.0;
    diagnosis.kernels.push_back(kernel);
    evidence.profiles.push_back({"profile", &profile, &diagnosis});
    evidence.source_file = "k.cu";
    evidence.source_text = "__global__ void k(float* x) {\n  x[threadIdx.x] = 0;\n}\n";
    evidence.comparison = "time 1 µs -> 2 µs";
  }
  kopt::Profile profile;
  kopt::Diagnosis diagnosis;
  kopt::agents::AskEvidence evidence;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Evidence fixture;
  std::string input(reinterpret_cast<const char*>(data), size);
  size_t newline = input.find('\n');
  kopt::llm::ToolCall call;
  call.id = "call_1";
  call.name = input.substr(0, newline);
  call.arguments = newline == std::string::npos ? "" : input.substr(newline + 1);
  kopt::agents::EvidenceSet shown;
  kopt::agents::ToolAnswer answer = kopt::agents::ExecuteEvidenceTool(fixture.evidence, call, shown);
  Check(!answer.text.empty());
  Check(!answer.is_error || answer.text.rfind("error: ", 0) == 0);
  for (const kopt::agents::EvidenceValue& value : shown.values()) Check(std::isfinite(value.value));
  std::optional<size_t> letter = kopt::ParseOptionLetter(input);
  Check(!letter || *letter < 4);
  return 0;
}
