#!/usr/bin/env python3
"""The builtin generator's quality table (issue 13) from a bench/tuning_capture/run.sh result.

  quality.py RESULTS[,RESULTS...] > bench/results/builtin_tuning/quality.md

Per task, from RESULTS/quality/<task>.bench.json (kopt bench, cold L2, median): the fastest of the
re-measured tuned configurations (the TOP fastest of the exhaustive space), the fastest hand-written
candidate, the reference and kopt's roofline floor; from RESULTS/torch.json: the PyTorch/cuBLAS
call a user would make instead and a plain copy of the same bytes (both timed the same way, in the
same device call as the task's kopt bench run). A later RESULTS folder replaces an earlier one's task.
"""
import json
import os
import sys


def median_us(candidate):
    timing = candidate.get("timing") or {}
    median = timing.get("median")
    return median["value"] * 1e6 if median else None


def main():
    reports, torch = {}, {}
    for result in sys.argv[1].split(","):
        quality = os.path.join(result, "quality")
        baselines = {}
        if os.path.exists(os.path.join(result, "torch.json")):
            baselines = json.load(open(os.path.join(result, "torch.json")))
        for name in sorted(os.listdir(quality)) if os.path.isdir(quality) else []:
            if name.endswith(".bench.json"):
                task = name[: -len(".bench.json")]
                reports[task] = json.load(open(os.path.join(quality, name)))
                torch[task] = baselines.get(task, {})
    order = ["saxpy", "gelu", "reduce_sum", "softmax", "layernorm", "transpose", "stencil2d", "gemm_f32", "gemm_bf16"]
    print("| task | best tuned configuration µs | best hand-written µs | reference µs | PyTorch call | PyTorch µs "
          "| best / PyTorch | roofline floor µs | best / floor | same-bytes copy µs | copy / floor | best / copy |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    ahead = 0
    for task in [t for t in order if t in reports]:
        report = reports[task]
        rows = [(median_us(c), c["name"], c["path"]) for c in report["candidates"] if c["status"] == "ok"]
        tuned = min(((t, n) for t, n, p in rows if "_tunable__" in n and t), default=(None, "-"))
        hand = min(((t, n) for t, n, p in rows if "_tunable__" not in n and t), default=(None, "-"))
        best = min(t for t in (tuned[0], hand[0]) if t is not None)
        reference = median_us(report["reference"])
        floor = report["roofline_floor"]["value"] * 1e6
        t = torch.get(task, {})
        pytorch, copy = t.get("median_us"), t.get("copy_us")
        if pytorch and best <= pytorch:
            ahead += 1
        fmt = lambda v: f"{v:.1f}" if v is not None else "—"
        ratio = lambda a, b: f"{a / b:.3f}" if a and b else "—"
        tuned_name = tuned[1].split("__", 1)[1] if "__" in tuned[1] else tuned[1]
        print(f"| {task} | {fmt(tuned[0])} ({tuned_name}) | {fmt(hand[0])} ({hand[1]}) | {fmt(reference)} | "
              f"{t.get('call', '—')} | {fmt(pytorch)} | {ratio(best, pytorch)} | {floor:.1f} | {ratio(best, floor)} | "
              f"{fmt(copy)} | {ratio(copy, floor)} | {ratio(best, copy)} |")
    print(f"\nAt or ahead of PyTorch/cuBLAS on {ahead} of {len([t for t in order if t in reports])} tasks "
          "(best = the faster of the tuned configuration and the hand-written candidate).")


if __name__ == "__main__":
    main()
