#!/usr/bin/env python3
"""docs/diff.md's table of the reference→best pairs: `kopt diff --format json` per task of
tests/fixtures/h200_diff/pairs (Σ terms − change, the stall-pass mismatch, the change's ± from each
launch's pass mismatch), and of repeat_identity/<task> (the same kernels, 5 launches each, in one ncu
process: the change's ± and the factor terms beyond twice their ± from the repeats), with the duration
spread of the repeats.

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


def diff_json(kopt, before_csv, after_csv):
    before_rows, after_rows = read_rows(before_csv), read_rows(after_csv)
    args = [kopt, "diff", before_csv, after_csv, "--format", "json"]
    functions = lambda rows: sorted({function_name(r["Kernel Name"]) for r in rows})
    if len(functions(before_rows)) > len(functions(after_rows)):
        args += ["--pair", f"{function_name(before_rows[0]['Kernel Name'])}=#0"]
    result = subprocess.run(args, capture_output=True, text=True,
                            env=dict(os.environ, KOPT_NO_GPU_QUERY="1", NO_COLOR="1"))
    return json.loads(result.stdout)["pairs"][0]


def us(ns, digits=2, sign=True):
    return f"{ns / 1000:{'+' if sign else ''}.{digits}f} µs"


def main():
    kopt, fixtures = sys.argv[1], sys.argv[2]
    spreads = repeat_spreads(fixtures)
    pairs_dir = os.path.join(fixtures, "pairs")
    lines = ["| task | time before → after | change | Σ terms − change | ρ before, after "
             "| stall-pass mismatch (% of change) | change ± (pass mismatch) | change ± (5 + 5 launches) "
             "| factor terms beyond 2 ± (5 + 5 launches) | duration spread (5 launches) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    report, details = [], []
    for task in sorted(os.listdir(pairs_dir)):
        before_csv = os.path.join(pairs_dir, task, "before.csv")
        after_csv = os.path.join(pairs_dir, task, "after.csv")
        if not os.path.exists(before_csv) or not os.path.exists(after_csv):
            continue
        pair = diff_json(kopt, before_csv, after_csv)
        attribution = pair["attribution"]
        names = [pair["before"]["function_name"], pair["after"]["function_name"]]
        candidate = open(os.path.join(pairs_dir, task, "after.txt")).read().strip()
        before_ns, after_ns = attribution["before"]["value"], attribution["after"]["value"]
        change, residual = attribution["change"]["value"], attribution["residual"]["value"]
        fraction = attribution["residual_fraction"]["value"]
        noise = attribution["noise"]
        mismatch = noise["pass_mismatch"]["value"]
        repeat_dir = os.path.join(fixtures, "repeat_identity", task)
        repeat_text, resolved = "-", "-"
        if os.path.exists(os.path.join(repeat_dir, "before.csv")):
            repeat = diff_json(kopt, os.path.join(repeat_dir, "before.csv"), os.path.join(repeat_dir, "after.csv"))
            ra = repeat["attribution"]
            launches = f"{ra['noise']['launches_before']}+{ra['noise']['launches_after']}"
            repeat_text = f"±{us(ra['change_uncertainty']['value'], 3, False)}"
            factors = [t for t in ra["terms"] if t.get("part") is None]
            # beyond twice their ± and at least 1 % of the change (o, 1 up to rounding, is never)
            resolved = ", ".join(t["factor"] for t in factors if abs(t["time"]["value"]) > 2 * t["uncertainty"]["value"]
                                 and abs(t["time"]["value"]) >= 0.01 * abs(ra["change"]["value"])) or "none"
            details.append(f"{task} (5+5 launches, change {us(ra['change']['value'])}): " + ", ".join(
                f"{t['factor']} {us(t['time']['value'])} ± {us(t['uncertainty']['value'], sign=False)}" for t in factors))
        durations = []
        for label, name in ((f"{task}__reference", names[0]), (f"{task}__{candidate}", names[1])):
            values = spreads.get((label, name), [])
            if len(values) > 1:
                durations.append(max(values) - min(values))
        spread = max(durations) if durations else None
        spread_text = "-" if spread is None else f"{spread / 1000:.2f} µs"
        lines.append(
            f"| {task} | {before_ns / 1000:.1f} → {after_ns / 1000:.1f} µs "
            f"| {us(change)} | {residual:+.1g} ns "
            f"| {noise['rho_before']['value']:.4f}, {noise['rho_after']['value']:.4f} "
            f"| {us(mismatch, 3, False)} ({100 * noise['pass_mismatch_fraction']['value']:.1f} %) "
            f"| ±{us(attribution['change_uncertainty']['value'], 3, False)} | {repeat_text} | {resolved} "
            f"| {spread_text} |")
        report.append(f"{task}: change {us(change)}, Σ terms − change {residual:+.2g} ns = {100 * fraction:.2g} % "
                      f"{'PASS' if fraction <= 0.10 else 'MISS'} (≤ 10 %); stall-pass mismatch {us(mismatch, 3, False)} "
                      f"= {100 * noise['pass_mismatch_fraction']['value']:.1f} % of the change")
    print("\n".join(lines))
    print()
    print("\n".join(report))
    print()
    print("\n".join(details))


if __name__ == "__main__":
    main()
