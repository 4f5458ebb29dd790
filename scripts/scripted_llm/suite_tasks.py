"""Policy `suite` of server.py: the `kopt suite` GPU run (scripts/device/issue31_suite.sh)
writes each answer from the task the request is about (found by the task's name, read from
TASKS_DIR/*/task.toml, in the request's text). Usage: server.py suite PORT TASKS_DIR LOG.

Per task, the answers come in this order (then "I have no further ideas."):
  1. a compile error (the entry point with an undefined identifier);
  2. a wrong output (every output element written, with the wrong values);
  3. a cheat: an elementwise problem's correct kernel that computes only on
     its first two calls and then returns at once (stale output: the output
     of an earlier call); elsewhere a kernel that writes one constant;
  4. for the elementwise activations of level 1 (ReLU, Sigmoid, ...), a
     correct grid-stride kernel; elsewhere nothing more.
Every request is logged (JSON lines: task, answer kind, the first 2,000
characters of the last user message). The usage counts every message.
"""
import os
import re
import tomllib

from server import Answer, last_user_text

# KernelBench level-1 elementwise activations: the problem stem's operator
# name → the CUDA expression of one element (x: float).
ELEMENTWISE = {
    "ReLU": "fmaxf(x, 0.0f)",
    "LeakyReLU": "x > 0.0f ? x : 0.01f * x",
    "Sigmoid": "1.0f / (1.0f + expf(-x))",
    "Tanh": "tanhf(x)",
    "Swish": "x / (1.0f + expf(-x))",
    "GELU_": "0.5f * x * (1.0f + erff(x * 0.70710678118654752f))",
    "SELU_": "1.0507009873554805f * (x > 0.0f ? x : 1.6732632423543772f * (expf(x) - 1.0f))",
    "HardSigmoid": "fminf(fmaxf(x / 6.0f + 0.5f, 0.0f), 1.0f)",
    "Softplus": "x > 20.0f ? x : log1pf(expf(x))",
    "Softsign": "x / (1.0f + fabsf(x))",
    "ELU": "x > 0.0f ? x : (expf(x) - 1.0f)",
    "HardTanh": "fminf(fmaxf(x, -1.0f), 1.0f)",
}


def load_tasks(tasks_dir):
    tasks = {}
    for entry in sorted(os.listdir(tasks_dir)):
        directory = os.path.join(tasks_dir, entry)
        if not os.path.isfile(os.path.join(directory, "task.toml")):
            continue
        spec = tomllib.load(open(os.path.join(directory, "task.toml"), "rb"))
        reference = open(os.path.join(directory, "reference.cu")).read()
        match = re.search(r'^(extern "C"[^{;]*model_forward\([^)]*\))', reference, re.M)
        tensors = spec.get("tensor", [])
        outputs = [t for t in tensors if t.get("role") == "output"]
        inputs = [t for t in tensors if t.get("role") == "input"]
        tasks[spec["task"]["name"]] = {
            "directory": entry,
            "prototype": match.group(1) if match else None,
            "inputs": inputs,
            "outputs": outputs,
            "served": 0,
        }
    return tasks



def elements(tensor):
    count = 1
    for dimension in tensor.get("shape", []):
        count *= int(dimension) if isinstance(dimension, int) or str(dimension).isdigit() else 1
    return count


def operator_of(name):
    for stem, expression in ELEMENTWISE.items():
        if re.search(r"_\d+_" + re.escape(stem) + "$", name):
            return expression
    return None


def fill_kernels(task, value_expression):
    """A kernel per output writing value_expression (of i) into every element, and its launches."""
    kernels, launches = [], []
    for index, tensor in enumerate(task["outputs"]):
        if tensor.get("dtype", "f32") != "f32":
            continue
        kernels.append(
            f"__global__ void fill_{index}(float* out, long long n) {{\n"
            f"  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;"
            f" i += (long long)gridDim.x * blockDim.x) out[i] = {value_expression};\n}}\n")
        launches.append(f"  fill_{index}<<<1024, 256, 0, stream>>>({tensor['name']}, {elements(tensor)}LL);\n")
    return "".join(kernels), "".join(launches)


def answer_for(task):
    """(kind, source) of the task's next answer, or (None, None) when none is left."""
    prototype = task["prototype"]
    expression = operator_of(task["name"])
    step = task["served"]
    task["served"] += 1
    if prototype is None:
        return None, None
    header = "#include <cuda_runtime.h>\n#include <math.h>\n\n"
    if step == 0:
        return "compile_error", header + prototype + " {\n  undefined_kernel_launch(stream);\n}\n"
    if step == 1:
        kernels, launches = fill_kernels(task, "(float)(i % 7) * 0.25f")
        return "wrong_output", header + kernels + "\n" + prototype + " {\n" + launches + "}\n"
    single = expression is not None and len(task["inputs"]) == 1 and len(task["outputs"]) == 1
    if single:
        x, out = task["inputs"][0]["name"], task["outputs"][0]["name"]
        n = elements(task["outputs"][0])
        kernel = (f"__global__ void elementwise(const float* __restrict__ in, float* __restrict__ out, long long n) {{\n"
                  f"  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;"
                  f" i += (long long)gridDim.x * blockDim.x) {{\n    float x = in[i];\n    out[i] = {expression};\n  }}\n}}\n")
        launch = f"  elementwise<<<2048, 256, 0, stream>>>({x}, {out}, {n}LL);\n"
        if step == 2:
            return "cheat_stale_output", (header + kernel + "\n" + prototype + " {\n  static int calls = 0;\n"
                                          "  if (calls++ >= 2) return;  // reuse the output of an earlier call\n"
                                          + launch + "}\n")
        if step == 3:
            return "correct", header + kernel + "\n" + prototype + " {\n" + launch + "}\n"
        return None, None
    if step == 2:
        kernels, launches = fill_kernels(task, "0.0f")
        return "cheat_constant_output", header + kernels + "\n" + prototype + " {\n" + launches + "}\n"
    return None, None


def find_task(tasks, text):
    best = None
    for name, task in tasks.items():
        if name in text or task["directory"] in text:
            if best is None or len(name) > len(best[0]):
                best = (name, task)
    if best:
        best[1]["name"] = best[0]
    return best[1] if best else None


class SuiteTasks:
    threaded = False

    def __init__(self, tasks_dir, log_path):
        self.tasks = load_tasks(tasks_dir)
        self.log_path = log_path

    def answer(self, body, headers):
        messages = body.get("messages", [])
        text = "\n".join(str(m.get("content", "")) for m in messages)
        task = find_task(self.tasks, text)
        kind, source = answer_for(task) if task else (None, None)
        content = (f"Here is the kernel ({kind}).\n\n```cuda\n{source}```\n" if source
                   else "I have no further ideas.")
        log = {"task": task["name"] if task else None, "answer": kind,
               "user": str(last_user_text(messages))[:2000]}
        return Answer({"role": "assistant", "content": content}, prompt_chars=len(text), log=log)


def make_policy(args):
    if len(args) != 2:
        raise SystemExit("usage: server.py suite PORT TASKS_DIR LOG")
    return SuiteTasks(args[0], args[1])
