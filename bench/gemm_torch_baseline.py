#!/usr/bin/env python3
"""PyTorch/cuBLAS baseline of gemm_bf16 or gemm_f32 at one size (scripts/device/issue37_gemm.sh).

Times the call bench/torch_baselines.py times for the task, at M x N x K instead of the task's main
size, the same way: cold L2 (a 256 MiB buffer written before every sample), CUDA events around
the call, median of the samples; TF32 off (the harness sets NVIDIA_TF32_OVERRIDE=0 too).
Prints JSON {"task", "call", "m", "n", "k", "median_us", "samples"}; exits 3 without torch or a GPU.

Usage: gemm_torch_baseline.py gemm_bf16|gemm_f32 M N K [--samples N]
"""
import json
import sys

from torch_baselines import cold_median_us  # bench/: the same cold-L2 timing


def main():
    if len(sys.argv) < 5 or sys.argv[1] not in ("gemm_bf16", "gemm_f32"):
        print(__doc__, file=sys.stderr)
        return 2
    task = sys.argv[1]
    m, n, k = (int(v) for v in sys.argv[2:5])
    samples = int(sys.argv[sys.argv.index("--samples") + 1]) if "--samples" in sys.argv else 30
    try:
        import torch
    except ImportError:
        print("torch is not installed", file=sys.stderr)
        return 3
    if not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return 3
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = "cuda"
    flush = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.float32, device=dev)
    if task == "gemm_f32":
        a = torch.randn(m, k, device=dev)
        b = torch.randn(k, n, device=dev)
        call, fn = "torch.matmul (TF32 off)", lambda: torch.matmul(a, b)
    else:
        a = torch.rand(m, k, device=dev).to(torch.bfloat16)
        b = torch.rand(k, n, device=dev).to(torch.bfloat16)
        call, fn = "torch.matmul + f32 cast", lambda: torch.matmul(a, b).float()
    json.dump({"task": task, "call": call, "m": m, "n": n, "k": k,
               "median_us": cold_median_us(torch, fn, flush, samples),
               "samples": samples}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
