// Sample diagnoses for the tests of the program plan and of what is built on
// it (the plan report, the plan narrative).
#pragma once

#include <string>
#include <vector>

#include "analysis/diagnosis.h"

namespace kopt::plan_test {

inline Finding MakeFinding(const std::string& tool, double gain, const std::string& change) {
  Finding finding;
  finding.tool = tool;
  finding.title = tool + " title";
  finding.estimated_gain = gain;
  finding.recommendations.push_back({change, "", ""});
  return finding;
}

inline KernelDiagnosis MakeKernel(const std::string& name, double total_ns, long long launches,
                                  std::vector<Finding> findings) {
  KernelDiagnosis kernel;
  kernel.kernel_name = name;
  kernel.launches.count = launches;
  kernel.launches.total_duration_ns = total_ns;
  kernel.findings = std::move(findings);
  return kernel;
}

// A program of 1,000 µs: a big kernel with a small gain against a small kernel with a big one.
inline Diagnosis Program() {
  Diagnosis diagnosis;
  diagnosis.source = "model.csv";
  diagnosis.kernels.push_back(
      MakeKernel("gemm", 800e3, 10, {MakeFinding("low_occupancy", 0.10, "fewer registers")}));
  diagnosis.kernels.push_back(MakeKernel("softmax", 150e3, 10,
                                         {MakeFinding("uncoalesced_loads", 0.60, "transpose the loads"),
                                          MakeFinding("low_occupancy", 0.50, "smaller blocks")}));
  diagnosis.kernels.push_back(MakeKernel("layernorm", 50e3, 20, {MakeFinding("healthy", 0, "")}));
  return diagnosis;
}

}  // namespace kopt::plan_test
