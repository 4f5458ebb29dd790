#!/usr/bin/env python3
"""The peer of bench/harness_throughput: a KernelBench-style evaluation of one
saxpy candidate (examples/tasks/saxpy ABI), timed phase by phase.

It does what KernelBench's eval.py does for a custom CUDA kernel: build the
kernel with torch.utils.cpp_extension.load_inline (a pybind11 module including
torch/extension.h), check it against the PyTorch reference on 5 random inputs
with allclose(atol=rtol=1e-2), then time it: 3 warm-up calls, then trials
each preceded by a 256 MB L2-clearing fill and a device synchronize, bracketed
by CUDA events. Prints one JSON object: seconds per phase and the kernel time.

Usage: kernelbench_style_eval.py CANDIDATE.cu BUILD_DIR MODULE_NAME [TRIALS]
A fresh BUILD_DIR/MODULE_NAME is a cold build; the same again is warm.
"""
import json
import os
import sys
import time


def main():
    candidate_path, build_dir, module_name = sys.argv[1:4]
    trials = int(sys.argv[4]) if len(sys.argv) > 4 else 100
    started = time.perf_counter()
    import torch
    from torch.utils.cpp_extension import load_inline
    import_seconds = time.perf_counter() - started

    with open(candidate_path) as f:
        candidate = f.read()
    cuda_source = (
        "#include <torch/extension.h>\n#include <ATen/cuda/CUDAContext.h>\n" + candidate + "\n"
        "torch::Tensor run(torch::Tensor x, torch::Tensor y, double a) {\n"
        "  auto z = torch::empty_like(x);\n"
        "  saxpy(x.data_ptr<float>(), y.data_ptr<float>(), z.data_ptr<float>(),\n"
        "        static_cast<int>(x.numel()), static_cast<float>(a),\n"
        "        at::cuda::getCurrentCUDAStream());\n"
        "  return z;\n}\n")
    cpp_source = "torch::Tensor run(torch::Tensor x, torch::Tensor y, double a);"
    os.makedirs(build_dir, exist_ok=True)
    phase = time.perf_counter()
    module = load_inline(name=module_name, cpp_sources=[cpp_source], cuda_sources=[cuda_source],
                         functions=["run"], extra_cuda_cflags=["-O3"], build_directory=build_dir,
                         verbose=False)
    compile_seconds = time.perf_counter() - phase

    phase = time.perf_counter()
    n, a = 1 << 20, 2.5
    correct = True
    for seed in range(5):
        torch.manual_seed(seed)
        x = torch.randn(n, device="cuda")
        y = torch.rand(n, device="cuda") * 2 - 1
        expected = a * x + y
        got = module.run(x, y, a)
        torch.cuda.synchronize()
        correct = correct and torch.allclose(got, expected, atol=1e-2, rtol=1e-2)
    check_seconds = time.perf_counter() - phase

    phase = time.perf_counter()
    x = torch.randn(n, device="cuda")
    y = torch.rand(n, device="cuda")
    for _ in range(3):
        module.run(x, y, a)
    torch.cuda.synchronize()
    l2_clear = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.float32, device="cuda")
    times_ms = []
    for _ in range(trials):
        l2_clear.fill_(1.0)
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        module.run(x, y, a)
        end.record()
        torch.cuda.synchronize()
        times_ms.append(start.elapsed_time(end))
    time_seconds = time.perf_counter() - phase
    times_ms.sort()
    print(json.dumps({
        "candidate": os.path.basename(candidate_path),
        "correct": bool(correct),
        "import_s": round(import_seconds, 3),
        "compile_s": round(compile_seconds, 3),
        "check_s": round(check_seconds, 3),
        "time_s": round(time_seconds, 3),
        "total_s": round(time.perf_counter() - started, 3),
        "kernel_median_us": round(1000 * times_ms[len(times_ms) // 2], 3),
        "trials": trials,
    }))


if __name__ == "__main__":
    main()
