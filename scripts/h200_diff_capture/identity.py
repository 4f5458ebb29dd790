#!/usr/bin/env python3
"""The time identity of docs/diff.md on captured launches: how far ρ = C_active·W/(I·S) is from 1.

  identity.py summary CAPTURE_DIR   what pairs.sh prints at its end: the picks, the cold times and
                                    checks, per profiled launch of pairs/ and repeat/ the duration and
                                    ρ in both forms, per item of repeat/ the spread over its launches
  identity.py rho CSV...            per launch of each ncu raw page: duration, ρ from the ratios, ρ from
                                    the counters

ρ from the ratios: S = Σ smsp__average_warps_issue_stalled_<r>_per_issue_active.ratio (two decimals),
W = smsp__warps_active.avg.per_cycle_active, I = smsp__inst_issued.avg, C = smsp__cycles_active.avg.
ρ from the counters: smsp__warps_active.sum / Σ smsp__warps_issue_stalled_<r>.sum (the same product with
every factor read from a sum: C·W/(I·S) with C = cycles.sum/N, W = warps.sum/cycles.sum,
I = issued.sum/N, S = Σ stalled.sum/issued.sum).
"""
import csv
import os
import re
import statistics
import sys

RATIO = re.compile(r"^smsp__average_warps_issue_stalled_([a-z_]+)_per_issue_active\.ratio$")
COUNTER = re.compile(r"^smsp__warps_issue_stalled_([a-z_]+)\.sum$")


def number(text):
    try:
        return float(text.replace(",", ""))
    except (ValueError, AttributeError):
        return None


def read_rows(path):
    rows = list(csv.reader(open(path, newline="", encoding="utf-8", errors="replace")))
    start = next((i for i, r in enumerate(rows) if r and r[0] == "ID"), None)
    if start is None:
        return []
    header = rows[start]
    return [dict(zip(header, r)) for r in rows[start + 2:] if r]


def rho(row):
    """(duration ns, ρ from ratios or None, ρ from counters or None, issue_active/inst_issued or None)."""
    duration = number(row.get("gpu__time_duration.sum"))
    ratios = [number(v) for k, v in row.items() if RATIO.match(k)]
    counters = [number(v) for k, v in row.items() if COUNTER.match(k)]
    issued, warps = number(row.get("smsp__inst_issued.avg")), number(row.get("smsp__warps_active.avg.per_cycle_active"))
    cycles = number(row.get("smsp__cycles_active.avg"))
    from_ratios = None
    if ratios and None not in ratios and issued and warps and cycles and sum(ratios) > 0:
        from_ratios = cycles * warps / (issued * sum(ratios))
    from_counters = None
    warps_sum = number(row.get("smsp__warps_active.sum"))
    if counters and None not in counters and warps_sum and sum(counters) > 0:
        from_counters = warps_sum / sum(counters)
    active, issued_sum = number(row.get("smsp__issue_active.sum")), number(row.get("smsp__inst_issued.sum"))
    issue_ratio = active / issued_sum if active is not None and issued_sum else None
    return duration, from_ratios, from_counters, issue_ratio


def fmt(value, digits=5):
    return "-" if value is None else f"{value:.{digits}f}"


def by_stream(rows):
    groups, order = {}, []
    for row in rows:
        key = row.get("Stream", "")
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(row)
    return [groups[k] for k in order]


def labels(path):
    return [line.split()[0] for line in open(path) if line.strip()] if os.path.exists(path) else []


def summary(capture):
    print("== picks (plan_pairs) ==")
    print(" ".join(labels(os.path.join(capture, "pairs", "items.txt"))) or "(no pairs plan)")
    for name in ("timing_cold.txt",):
        path = os.path.join(capture, name)
        if os.path.exists(path):
            print(f"== {name} (TIME/CHECK lines) ==")
            for line in open(path):
                if line.startswith(("TIME", "CHECK", "REFERENCE")) or " error" in line:
                    print(line.rstrip())
    for part in ("pairs", "repeat"):
        raw = os.path.join(capture, part, "raw.csv")
        if not os.path.exists(raw):
            print(f"== {part}: no raw.csv ==")
            continue
        rows = read_rows(raw)
        groups = by_stream(rows)
        names = labels(os.path.join(capture, part, "items.txt"))
        counters = sorted({m.group(1) for k in (rows[0] if rows else {}) for m in [COUNTER.match(k)] if m})
        print(f"== {part}: {len(rows)} launches, {len(groups)} items; stall counters: {','.join(counters) or 'none'} ==")
        print("item kernel duration_ns rho_ratios rho_counters issue_active/inst_issued")
        for index, group in enumerate(groups):
            label = names[index] if index < len(names) else f"#{index}"
            values = [rho(row) for row in group]
            for row, (duration, r1, r2, q) in zip(group, values):
                print(f"{label} {row.get('Kernel Name', '')[:40].split('(')[0]} {fmt(duration, 0)} {fmt(r1)} {fmt(r2)} {fmt(q)}")
            durations = [v[0] for v in values if v[0]]
            if part == "repeat" and len(durations) > 1:
                spread = (max(durations) - min(durations)) / max(durations)
                print(f"  {label}: {len(durations)} launches, duration mean {statistics.mean(durations):.0f} ns, "
                      f"(max-min)/max {100 * spread:.2f} %")


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "summary":
        summary(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "rho":
        for path in sys.argv[2:]:
            for row in read_rows(path):
                duration, r1, r2, q = rho(row)
                print(f"{path} {row.get('Kernel Name', '')[:40].split('(')[0]} {fmt(duration, 0)} {fmt(r1)} {fmt(r2)} {fmt(q)}")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
