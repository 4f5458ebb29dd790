#!/usr/bin/env python3
"""docs/diff.md's table of the reference→best pairs: `kopt diff --format json` per task of
tests/fixtures/h200_diff/pairs, the residual against the change, and the change against the duration
noise of repeat_identity/ (the same kernels, 5 launches each, in one ncu process).

  table.py KOPT FIXTURE_DIR   prints the Markdown table, then one line per pair for a report

A task whose reference has more kernels than its candidate (reduce_sum: partials + final against one
atomic kernel) is diffed with `--pair <first kernel's function>=#0`, as the golden case does; the
candidate is then compared with the reference's first kernel. A change is "inside the noise" when
|change| is at most the larger (max − min) of the two kernels' durations over their repeat launches.
"""
import csv
import json
import os
import subprocess
import sys


def read_rows(path):
    rows = list(csv.reader(open(path, newline="", encoding="utf-8", errors="replace")))
    start = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    header = rows[start]
    return [dict(zip(header, r)) for r in rows[start + 2:] if r]


def function_name(kernel_name):
    return kernel_name.split("(")[0].split("<")[0].split()[-1]


def repeat_spreads(fixtures):
    """{(item label, function name): [durations ns]} from repeat_identity/."""
    raw = os.path.join(fixtures, "repeat_identity", "raw.csv")
    if not os.path.exists(raw):
        return {}
    labels = [line.split()[0] for line in open(os.path.join(fixtures, "repeat_identity", "items.txt")) if line.strip()]
    streams, order = {}, []
    for row in read_rows(raw):
        if row["Stream"] not in streams:
            streams[row["Stream"]] = []
            order.append(row["Stream"])
        streams[row["Stream"]].append(row)
    spreads = {}
    for label, stream in zip(labels, order):
        for row in streams[stream]:
            value = row.get("gpu__time_duration.sum", "").replace(",", "")
            if value:
                spreads.setdefault((label, function_name(row["Kernel Name"])), []).append(float(value))
    return spreads


def main():
    kopt, fixtures = sys.argv[1], sys.argv[2]
    spreads = repeat_spreads(fixtures)
    pairs_dir = os.path.join(fixtures, "pairs")
    lines = ["| task | reference → candidate | time before → after | change | residual | residual / change "
             "| ρ before, after | duration spread (5 launches) | stalls from |",
             "|---|---|---|---|---|---|---|---|---|"]
    report = []
    for task in sorted(os.listdir(pairs_dir)):
        before_csv = os.path.join(pairs_dir, task, "before.csv")
        after_csv = os.path.join(pairs_dir, task, "after.csv")
        if not os.path.exists(before_csv) or not os.path.exists(after_csv):
            continue
        before_rows, after_rows = read_rows(before_csv), read_rows(after_csv)
        args = [kopt, "diff", before_csv, after_csv, "--format", "json"]
        if len(before_rows) > len(after_rows):
            args += ["--pair", f"{function_name(before_rows[0]['Kernel Name'])}=#0"]
        result = subprocess.run(args, capture_output=True, text=True,
                                env=dict(os.environ, KOPT_NO_GPU_QUERY="1", NO_COLOR="1"))
        data = json.loads(result.stdout)
        pair = data["pairs"][0]
        attribution = pair["attribution"]
        names = [pair["before"]["function_name"], pair["after"]["function_name"]]
        candidate = open(os.path.join(pairs_dir, task, "after.txt")).read().strip()
        before_ns, after_ns = attribution["before"]["value"], attribution["after"]["value"]
        change, residual = attribution["change"]["value"], attribution["residual"]["value"]
        fraction = attribution["residual_fraction"]["value"]
        rho = {t["factor"]: (t["before"]["value"], t["after"]["value"]) for t in attribution["terms"]
               if t.get("part") is None}.get("residual", (float("nan"), float("nan")))
        noise = []
        for label, name in ((f"{task}__reference", names[0]), (f"{task}__{candidate}", names[1])):
            durations = spreads.get((label, name), [])
            if len(durations) > 1:
                noise.append(max(durations) - min(durations))
        spread = max(noise) if noise else None
        spread_text = "-" if spread is None else f"{spread / 1000:.2f} µs"
        inside = spread is not None and abs(change) <= spread
        if inside:
            spread_text += " (change inside it)"
        lines.append(
            f"| {task} | {names[0]} → {names[1]} ({candidate}) | {before_ns / 1000:.1f} → {after_ns / 1000:.1f} µs "
            f"| {change / 1000:+.2f} µs | {residual / 1000:+.3f} µs | {100 * fraction:.2f} % "
            f"| {rho[0]:.4f}, {rho[1]:.4f} | {spread_text} | {attribution.get('stall_source', 'ratios')} |")
        report.append(f"{task}: change {change / 1000:+.2f} µs, residual {residual / 1000:+.3f} µs = "
                      f"{100 * fraction:.2f} % {'PASS' if fraction <= 0.10 else 'MISS'} (≤ 10 %)"
                      f"{', change inside the duration noise' if inside else ''}")
    print("\n".join(lines))
    print()
    print("\n".join(report))


if __name__ == "__main__":
    main()
