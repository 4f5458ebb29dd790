// A KernelBench problem file (`class Model`, `get_inputs()`,
// `get_init_inputs()`) turned into a kopt task directory (docs/kernelbench.md).
//
// The problem is read by a Python child running kopt's probe
// (harness/kernelbench/kernelbench_probe.py) against a recording stand-in for
// `torch`: no PyTorch is needed. The task it becomes:
//   task.toml          the forward's tensor arguments, then the model's
//                      parameters, as inputs; the output `out`; non-tensor
//                      arguments as f64/i64 scalars; entry `model_forward`;
//                      tolerances as KernelBench sets them (or kopt's own);
//                      `flops` where the probe counted matrix products
//   reference.cu       the entry point through kopt's bridge to PyTorch
//                      (harness/kernelbench/kopt_torch_bridge.cuh, inlined)
//   problem.py         the problem file, as it was
//   kernelbench.json   what the probe found and how the arguments map
//                      (schema kopt.kernelbench.task/1)
//   kopt_torch_reference.py   the PyTorch child the bridge starts
//
// Thread safety: functions are reentrant; the CommandRunner is the caller's.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"

namespace kopt {

struct KernelBenchImportOptions {
  // "exercise" (default): floating inputs drawn by torch.rand/randn become
  // Student-t (alpha 3: negatives and outliers), norm weights uniform(0.5,
  // 1.5) and biases uniform(-0.5, 0.5); "kernelbench": the problem's own
  // distributions.
  std::string inputs = "exercise";
  // "kernelbench" (default): f32 rtol = atol = 1e-4, f16/bf16 1e-2 (its
  // eval.py); "verified": KernelBench-Verified's f32 1e-3, f16/bf16 1e-2;
  // "kopt": kopt's stricter defaults (docs/task-format.md).
  std::string tolerance = "kernelbench";
  // The measurement protocol the inputs and tolerances came from
  // ("kernelbench", "verified", "kopt"; empty: chosen one by one), recorded
  // in kernelbench.json. ApplyKernelBenchProtocol sets it.
  std::string protocol;
  std::string python = "python3";  // the interpreter that runs the probe (no PyTorch needed)
  double timeout_seconds = 120;    // for the probe child (a get_inputs() that never returns)
};

// Sets `inputs` and `tolerance` the way a protocol defines them:
//   kernelbench: the problem's own inputs, KernelBench's tolerances;
//   verified:    the problem's own inputs, KernelBench-Verified's tolerances
//                (its TF32 PyTorch baseline is a baseline choice, its
//                hidden input distributions are not drawn by the import);
//   kopt:        kopt's exercising inputs and kopt's tolerances.
// InvalidInput naming --protocol and the expected names otherwise.
Status ApplyKernelBenchProtocol(const std::string& protocol, KernelBenchImportOptions& options);

// One argument of the task's entry point, in entry order (tensors, then scalars).
struct KernelBenchArgument {
  std::string name;    // the task's tensor or scalar name
  std::string role;    // "input" | "output" | "scalar"
  std::string source;  // "input" (a forward argument) | "parameter" | "output"
  std::string dtype;   // kopt dtype ("f32") or scalar type ("f64", "i64")
  std::vector<int64_t> shape;
  int position = -1;      // index among forward's arguments (source "input")
  std::string parameter;  // the model's parameter name ("gemm.weight"; source "parameter")
  nlohmann::json init;    // the kopt init table as JSON ({"kind": "uniform", ...}); null for outputs
  nlohmann::json value;   // scalars: the value get_inputs() returned
  std::string note;       // why the init differs from the problem's, if it does
  // "bool" for a bool tensor of the problem, passed as u8 0/1 (dtype "u8"); "" otherwise.
  std::string torch_dtype;
};

struct KernelBenchProblem {
  std::string path;  // the problem file as given
  std::string stem;  // "88_MinGPTNewGelu"
  int level = 0;     // from a parent directory "levelN", else 0
  std::vector<KernelBenchArgument> arguments;
  nlohmann::json init_inputs;  // get_init_inputs() as the probe described it
  std::string shapes_from;     // "stand-in" or "torch X (meta device)"
  // FLOPs of the matrix products the stand-in followed (2 per multiply-add;
  // 0: none or not counted): a lower bound, written as the task's `flops`.
  double matmul_flops = 0;
  // The forward pass as one GEMM with a fusable epilogue, when the stand-in
  // followed it (the probe's "gemm" record): written as task.toml's [gemm]
  // table (harness/gemm_operation.h). Empty when not recognised.
  std::string gemm_table;
};

// The task name for a problem file: "kb_level1_88_MinGPTNewGelu" ("kb_" and
// the stem when no level directory is known), characters outside
// [A-Za-z0-9_.-] replaced by '_'.
std::string KernelBenchTaskName(const KernelBenchProblem& problem);

// Reads the probe's JSON (schema kopt.kernelbench.probe/1) for `path`.
// InvalidInput naming the file and the field when it is malformed or asks
// for something a kopt task cannot hold (a bool tensor, several outputs).
Result<KernelBenchProblem> ParseKernelBenchProbe(std::string_view json_text, const std::string& path,
                                                 const KernelBenchImportOptions& options);

// Runs the probe on `path`. InvalidInput "PATH: CAUSE" for a problem kopt
// cannot read (no Model, a failing get_inputs, an unknown module, a forward
// the stand-in cannot follow without PyTorch); Unavailable when the
// interpreter cannot be run.
Result<KernelBenchProblem> ProbeKernelBenchProblem(const std::string& path, CommandRunner& runner,
                                                   const KernelBenchImportOptions& options);

// The files of the task directory, name -> contents (see the top of this
// file). The task.toml text is checked by the task parser before it is
// returned: InvalidInput "PATH: the problem does not fit a kopt task: ..."
// when it refuses it (sizes that overflow).
Result<std::vector<std::pair<std::string, std::string>>> KernelBenchTaskFiles(
    const KernelBenchProblem& problem, const std::string& problem_source,
    const KernelBenchImportOptions& options);

// What the LLM programmer is told about an imported problem, as a KernelBench
// user sees it: the problem file and how each entry-point argument maps to
// `Model(*get_init_inputs()).forward(*get_inputs())`.
struct KernelBenchStatement {
  std::string problem;  // "19_ReLU"
  int level = 0;        // 0: no level directory was known
  std::string source;   // problem.py verbatim
  // One line per entry-point argument, in entry order, e.g.
  // "`A` f32 [16, 64]: get_inputs()[0], forward's argument 0".
  std::vector<std::string> argument_lines;
  std::string init_inputs;  // get_init_inputs() as the probe described it (JSON text)
};

// Reads TASK_DIR/kernelbench.json and TASK_DIR/problem.py. nullopt when the
// directory has no kernelbench.json (a task not imported from KernelBench);
// InvalidInput naming the file when either is unreadable or malformed.
Result<std::optional<KernelBenchStatement>> LoadKernelBenchStatement(const std::string& task_directory);

}  // namespace kopt
