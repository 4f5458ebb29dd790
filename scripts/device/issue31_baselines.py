#!/usr/bin/env python3
"""Times the PyTorch baselines of imported KernelBench tasks for the `kopt
suite` GPU run (scripts/device/issue31_suite.sh) and writes each task's
baselines.json (`kopt.baselines` version 1, docs/suite.md): eager PyTorch
and PyTorch with TF32 allowed (torch.backends matmul and cuDNN), each the
median of CUDA-event times of one forward over 20 calls after 3 warm-up
calls, with fresh inputs from the problem's get_inputs(); torch.compile only
when COMPILE=1 (its compile time does not fit the run's budget), else noted
as not measured. A stand-in until kopt times the baselines by its own
protocol. Usage: issue31_baselines.py TASKS_DIR"""
import importlib.util
import json
import os
import statistics
import sys

import torch


def median_time(model, inputs, calls=20, warmup=3):
    with torch.no_grad():
        for _ in range(warmup):
            model(*inputs)
        torch.cuda.synchronize()
        times = []
        for _ in range(calls):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            model(*inputs)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times)


def to_device(value):
    return value.cuda() if isinstance(value, torch.Tensor) else value


def measure(directory):
    spec = importlib.util.spec_from_file_location("problem", os.path.join(directory, "problem.py"))
    problem = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(problem)
    torch.manual_seed(0)
    model = problem.Model(*problem.get_init_inputs()).cuda().eval()
    inputs = [to_device(value) for value in problem.get_inputs()]
    baselines = []
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    baselines.append({"name": "eager", "time_s": median_time(model, inputs)})
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    baselines.append({"name": "tf32", "time_s": median_time(model, inputs)})
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if os.environ.get("COMPILE") == "1":
        baselines.append({"name": "torch_compile", "time_s": median_time(torch.compile(model), inputs)})
    else:
        baselines.append({"name": "torch_compile", "note": "not measured in this run (COMPILE=1)"})
    return baselines


tasks = sys.argv[1]
for entry in sorted(os.listdir(tasks)):
    directory = os.path.join(tasks, entry)
    if not os.path.isfile(os.path.join(directory, "problem.py")):
        continue
    try:
        baselines = measure(directory)
    except Exception as error:  # one problem's failure is noted, the others go on
        baselines = [{"name": name, "note": f"failed: {type(error).__name__}: {error}"[:200]}
                     for name in ("eager", "tf32", "torch_compile")]
    document = {"schema": "kopt.baselines", "schema_version": 1, "gpu": torch.cuda.get_device_name(0),
                "source": "scripts/device/issue31_baselines.py (CUDA events, median of 20)", "baselines": baselines}
    with open(os.path.join(directory, "baselines.json"), "w") as out:
        json.dump(document, out, indent=1)
    eager = next((b.get("time_s") for b in baselines if b["name"] == "eager"), None)
    print(entry, "eager", "-" if eager is None else f"{eager * 1e3:.3f} ms", flush=True)
    torch.cuda.empty_cache()
