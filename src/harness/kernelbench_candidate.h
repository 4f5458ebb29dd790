// A KernelBench candidate (a ModelNew file whose forward calls a function of
// a torch.utils.cpp_extension.load_inline module) turned into a kopt candidate
// for a task imported from KernelBench (docs/kernelbench.md).
//
// The file is read by a Python child with `ast` only
// (harness/kernelbench/kernelbench_candidate.py): nothing in it runs. The
// result is one whole .cu text: kopt's torch shim
// (harness/kernelbench/kopt_torch_shim.cuh), the load_inline cpp and CUDA
// sources (their torch/ATen/c10/pybind11 #includes commented out), and the
// task's entry point, which wraps the harness's tensors and calls the
// function the way forward does. It compiles with plain nvcc through kopt's
// compile cache, so every check of `kopt bench` applies.
//
// Refused (InvalidInput "FILE:LINE: CAUSE"): module-level Python other than
// imports of torch, source strings and load_inline (a patched timer, a
// monkeypatched torch function), a forward that is not one call of an
// exported function on its arguments and number constants, a task with
// model parameters (a ModelNew holding its own weights cannot be fed the
// harness's), a task that was not imported from KernelBench.
//
// Thread safety: reentrant; the CommandRunner is the caller's.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "core/subprocess.h"

namespace kopt {

// True when `path` names a KernelBench-format candidate (ends in ".py").
bool IsKernelBenchCandidatePath(const std::string& path);

// The kopt candidate text for the ModelNew file `candidate_path` against the
// imported task in `task_directory` (its kernelbench.json and task.toml).
Result<std::string> ConvertKernelBenchCandidate(const std::string& candidate_path,
                                                const std::string& task_directory, CommandRunner& runner,
                                                const std::string& python = "python3");

// A candidate text that fails to compile with `message` (an #error): how a
// refused KernelBench candidate is reported per candidate (compile_error)
// instead of ending the whole bench run.
std::string RefusedKernelBenchCandidate(std::string_view message);

}  // namespace kopt
