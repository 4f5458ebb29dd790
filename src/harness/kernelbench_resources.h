// The KernelBench support files kopt carries as text (src/harness/kernelbench/,
// embedded at build time by src/CMakeLists.txt; docs/kernelbench.md):
//   probe      kernelbench_probe.py: reads a problem file without PyTorch
//   candidate  kernelbench_candidate.py: reads a ModelNew file (ast only, never runs it)
//   server     kopt_torch_reference.py: the PyTorch side of an imported task's reference
//   bridge     kopt_torch_bridge.cuh: the C++ side of it, included by reference.cu
//   shim       kopt_torch_shim.cuh: the few torch C++ names a ModelNew's CUDA source uses
//
// Thread safety: constant data.
#pragma once

#include <string_view>

namespace kopt {

std::string_view KernelBenchProbeScript();
std::string_view KernelBenchCandidateScript();
std::string_view KernelBenchReferenceServer();
std::string_view KernelBenchBridgeHeader();
std::string_view KernelBenchTorchShim();

}  // namespace kopt
