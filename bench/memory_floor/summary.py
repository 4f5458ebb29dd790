#!/usr/bin/env python3
"""The table of bench/memory_floor/run.sh: per task and item, the check on the main size and at the
variant sizes, the median µs of each pass (cold1, cold2: memset flush as `kopt bench`; clean: a
read flush), and best / floor, best / copy, where best is the smaller cold pass median and the
floors are kopt's roofline floors of the tasks (bytes at 4.8 TB/s: reduce_sum 55.8 µs, stencil2d
111.5 µs; bench/results/builtin_tuning/quality.md).

Usage: summary.py RESULTS_DIR
"""
import os
import sys

FLOORS = {"reduce_sum": 55.8, "stencil2d": 111.5}


def parse(path):
    checks, times = {}, {}
    if not os.path.exists(path):
        return checks, times
    for line in open(path):
        p = line.split()
        if len(p) >= 4 and p[0] == "CHECK":
            checks[p[1]] = p[2]
        if len(p) == 3 and p[0] == "TIME":
            times[p[1]] = float(p[2])
    return checks, times


def main(res):
    for task, floor in FLOORS.items():
        checks, cold1 = parse(os.path.join(res, f"{task}.cold1.txt"))
        _, cold2 = parse(os.path.join(res, f"{task}.cold2.txt"))
        _, clean = parse(os.path.join(res, f"{task}.clean.txt"))
        variant_checks = {}
        path = os.path.join(res, f"{task}.check.txt")
        if os.path.exists(path):
            for line in open(path):
                p = line.split()
                if len(p) >= 4 and p[0] == "CHECK":
                    variant_checks[p[1]] = variant_checks.get(p[1], "ok") if p[2] == "ok" else "FAIL"
        labels = sorted(set(cold1) | set(cold2), key=lambda l: min(cold1.get(l, 1e9), cold2.get(l, 1e9)))
        copy = next((min(cold1.get(l, 1e9), cold2.get(l, 1e9)) for l in labels if l.startswith("copy_probe")), None)
        print(f"== {task}: floor {floor} µs, target {1.25 * floor:.1f} µs; same-bytes copy {copy} µs")
        print(f"{'item':48} {'main':5} {'vars':5} {'cold1':>8} {'cold2':>8} {'clean':>8} {'best/floor':>10} {'best/copy':>9}")
        for label in labels:
            best = min(cold1.get(label, 1e9), cold2.get(label, 1e9))
            fmt = lambda d: f"{d[label]:8.2f}" if label in d else f"{'-':>8}"
            print(f"{label:48} {checks.get(label, '-'):5} {variant_checks.get(label, '-'):5} {fmt(cold1)} {fmt(cold2)} "
                  f"{fmt(clean)} {best / floor:10.3f} {best / copy if copy else 0:9.3f}")
        print()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
