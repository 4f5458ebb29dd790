#!/usr/bin/env python3
"""Summary of passes.sh (issue 14, helper h14d): per metric list, ncu's replay passes; per item and
kernel of the identity list, ρ = smsp__warps_active.sum / Σ smsp__warps_issue_stalled_<r>.sum over
its launches, and the launch-to-launch spread (standard deviation of the logarithm) of the duration T
and of the identity's factors I (issued per scheduler), S' (warps_active / issued), W (warps_active /
cycles_active), a (cycles_active per scheduler / sm elapsed cycles), f (SM clock).

  passes.py RESULT_DIR
"""
import csv
import math
import os
import re
import statistics
import sys

COUNTER = re.compile(r"^smsp__warps_issue_stalled_([a-z_]+)\.sum$")


def number(text):
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return None


def read_rows(path):
    if not os.path.exists(path):
        return []
    rows = list(csv.reader(open(path, newline="", encoding="utf-8", errors="replace")))
    start = next((i for i, r in enumerate(rows) if r and r[0] == "ID"), None)
    if start is None:
        return []
    return [dict(zip(rows[start], r)) for r in rows[start + 2:] if r]


def groups(rows, labels):
    order, by = [], {}
    for row in rows:
        if row.get("Stream") not in by:
            by[row.get("Stream")] = []
            order.append(row.get("Stream"))
        by[row.get("Stream")].append(row)
    out = []
    for index, stream in enumerate(order):
        label = labels[index] if index < len(labels) else f"#{index}"
        kernels = {}
        for row in by[stream]:
            kernels.setdefault(row.get("Kernel Name", "").split("(")[0], []).append(row)
        for kernel, launches in kernels.items():
            out.append((label, kernel, launches))
    return out


def sd_log(values):
    values = [math.log(v) for v in values if v and v > 0]
    return statistics.pstdev(values) if len(values) > 1 else float("nan")


def main():
    res = sys.argv[1]
    for name in ("identity", "totals", "stalls", "targeted"):
        log = os.path.join(res, f"{name}.ncu.log")
        if not os.path.exists(log):
            print(f"== {name}: not run ==")
            continue
        passes = re.findall(r"(\d+) pass(?:es)?", open(log, errors="replace").read())
        counts = sorted({int(p) for p in passes})
        print(f"== {name}: {len(passes)} profiled launches, replay passes per launch: {counts} ==")
        labels = [l.split()[0] for l in open(os.path.join(res, name, "items.txt")) if l.strip()] \
            if os.path.exists(os.path.join(res, name, "items.txt")) else []
        rows = read_rows(os.path.join(res, name, "raw.csv"))
        if not rows:
            print("  (no rows)")
            continue
        print("  item kernel n T_mean_ns | sd ln: T I S' W a f | rho min median max sd_ln")
        for label, kernel, launches in groups(rows, labels):
            T, I, S, W, A, F, R = [], [], [], [], [], [], []
            for row in launches:
                t = number(row.get("gpu__time_duration.sum"))
                issued, avg = number(row.get("smsp__inst_issued.sum")), number(row.get("smsp__inst_issued.avg"))
                warps, cycles = number(row.get("smsp__warps_active.sum")), number(row.get("smsp__cycles_active.sum"))
                elapsed, clock = number(row.get("sm__cycles_elapsed.avg")), number(row.get("sm__cycles_elapsed.avg.per_second"))
                stall = [number(v) for k, v in row.items() if COUNTER.match(k)]
                T.append(t)
                n = issued / avg if issued and avg else None
                if issued and n:
                    I.append(issued / n)
                if warps and issued:
                    S.append(warps / issued)
                if warps and cycles:
                    W.append(warps / cycles)
                if cycles and n and elapsed:
                    A.append(cycles / n / elapsed)
                F.append(clock)
                if warps and stall and None not in stall and sum(stall) > 0:
                    R.append(warps / sum(stall))
            rho = (f"{min(R):.4f} {statistics.median(R):.4f} {max(R):.4f} {sd_log(R):.4f}" if R else "-")
            tm = statistics.mean([t for t in T if t]) if any(T) else float("nan")
            print(f"  {label} {kernel[:32]} {len(launches)} {tm:.0f} | "
                  + " ".join(f"{sd_log(v):.4f}" if v else "-" for v in (T, I, S, W, A, F)) + f" | {rho}")


if __name__ == "__main__":
    main()
