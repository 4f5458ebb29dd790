#!/usr/bin/env python3
"""PyTorch/cuBLAS baselines of the nine example tasks (bench/builtin_tuning_on_device.sh).

Times the call a user would make instead of a custom kernel, at each task's
main size, the way kopt's runner times a candidate: cold L2 (a 256 MiB
buffer written before every sample), CUDA events around the call, median of
the samples. TF32 is off (the harness sets NVIDIA_TF32_OVERRIDE=0 too).
Prints JSON {task: {"call": str, "median_us": float, "copy_bytes": int,
"copy_us": float}} on stdout; exits 3 when torch or a GPU is missing.
copy_us is the physical limit of a memory-bound task at its size: a plain
device-to-device copy (dst.copy_(src)) that reads half and writes half of
the bytes of the task's tensors, timed the same way (the 1.25x-of-floor
target of docs/tuning.md is read against it).

Usage: torch_baselines.py EXAMPLES_DIR [--samples N]
"""
import json
import os
import statistics
import sys
import tomllib


def scalars(task_dir):
    with open(os.path.join(task_dir, "task.toml"), "rb") as f:
        task = tomllib.load(f)
    return {s["name"]: s["value"] for s in task.get("scalar", [])}


DTYPE_BYTES = {"f64": 8, "f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i64": 8}


def tensor_bytes(task_dir):
    """The bytes of every tensor of the task at its main size (inputs and outputs)."""
    with open(os.path.join(task_dir, "task.toml"), "rb") as f:
        task = tomllib.load(f)
    values = scalars(task_dir)
    total = 0
    for tensor in task["tensor"]:
        elements = 1
        for d in tensor["shape"]:
            elements *= values[d] if isinstance(d, str) else d
        total += elements * DTYPE_BYTES[tensor["dtype"]]
    return total


def cold_median_us(torch, fn, flush, samples):
    """Median of `samples` calls of fn in µs, by CUDA events, after 3 warm-up calls, each call
    after `flush` (a buffer larger than L2) is rewritten: the cold-L2 timing kopt bench uses."""
    for _ in range(3):
        fn()
    times = []
    for _ in range(samples):
        flush.fill_(1.0)
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return statistics.median(times)


def main():
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        print("torch is not installed", file=sys.stderr)
        return 3
    if not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return 3
    examples = sys.argv[1]
    samples = int(sys.argv[sys.argv.index("--samples") + 1]) if "--samples" in sys.argv else 30
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = "cuda"
    flush = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.float32, device=dev)

    def s(task):
        return scalars(os.path.join(examples, task))

    cases = {}
    n = s("gelu")["n"]
    x = torch.randn(n, device=dev) * 2
    cases["gelu"] = ("F.gelu", lambda x=x: F.gelu(x))
    v = s("softmax")
    x = torch.randn(v["rows"], v["cols"], device=dev)
    cases["softmax"] = ("torch.softmax", lambda x=x: torch.softmax(x, dim=1))
    v = s("layernorm")
    x = torch.randn(v["rows"], v["cols"], device=dev)
    g = torch.randn(v["cols"], device=dev)
    b = torch.randn(v["cols"], device=dev)
    cases["layernorm"] = ("F.layer_norm", lambda x=x, g=g, b=b, c=v["cols"], e=v["eps"]: F.layer_norm(x, (c,), g, b, e))
    v = s("transpose")
    x = torch.rand(v["rows"], v["cols"], device=dev)
    cases["transpose"] = ("x.t().contiguous()", lambda x=x: x.t().contiguous())
    v = s("gemm_f32")
    a = torch.randn(v["M"], v["K"], device=dev)
    bm = torch.randn(v["K"], v["N"], device=dev)
    cases["gemm_f32"] = ("torch.matmul (TF32 off)", lambda a=a, bm=bm: torch.matmul(a, bm))
    v = s("gemm_bf16")
    a = torch.rand(v["M"], v["K"], device=dev).to(torch.bfloat16)
    bm = torch.rand(v["K"], v["N"], device=dev).to(torch.bfloat16)
    cases["gemm_bf16"] = ("torch.matmul + f32 cast", lambda a=a, bm=bm: torch.matmul(a, bm).float())
    v = s("stencil2d")
    x = torch.randn(1, 1, v["H"], v["W"], device=dev)
    w = torch.rand(1, 1, 3, 3, device=dev)
    cases["stencil2d"] = ("F.conv2d", lambda x=x, w=w: F.conv2d(x, w, padding=1))
    n = s("reduce_sum")["n"]
    x = torch.rand(n, device=dev) * 4 - 1
    cases["reduce_sum"] = ("torch.sum", lambda x=x: torch.sum(x))
    v = s("saxpy")
    x = torch.randn(v["n"], device=dev)
    y = torch.rand(v["n"], device=dev)
    cases["saxpy"] = ("torch.add", lambda x=x, y=y, a=v["a"]: torch.add(y, x, alpha=a))

    copies = {}
    for task in cases:
        half = tensor_bytes(os.path.join(examples, task)) // 2 // 4 * 4
        source = torch.empty(half // 4, dtype=torch.float32, device=dev).fill_(1.0)
        copies[task] = (half * 2, lambda src=source, dst=torch.empty_like(source): dst.copy_(src))

    def median_us(fn):
        return cold_median_us(torch, fn, flush, samples)

    results = {}
    for task, (call, fn) in cases.items():
        copy_bytes, copy = copies[task]
        results[task] = {"call": call, "median_us": median_us(fn), "copy_bytes": copy_bytes, "copy_us": median_us(copy)}
    json.dump(results, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
