#!/usr/bin/env python3
"""bench/compare_harness_versions: the honest example candidates timed by two
builds of `kopt bench` in one run (issue 12: "timed within 2 % of what the
current harness measures for them, both harness versions in one run").

For each task it runs, alternating the versions so that drift hits both alike,
  kopt bench examples/tasks/<task> -f json --rerun -w DIR/<version>
ROUNDS times per version, takes each entry's (reference and candidates) median
over the rounds, and prints a Markdown table: old median, new median, new/old.
Exit status 1 when an entry is ok under one version and not the other, or when
|new/old - 1| exceeds --tolerance (default 0.02) for any entry.

Usage: python3 bench/compare_harness_versions.py --old OLD_KOPT --new NEW_KOPT
         --out FILE.md [--tasks gelu softmax ...] [--rounds 2]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_TASKS = ["gelu", "softmax", "gemm_bf16", "gemm_f32", "reduce_sum", "saxpy", "transpose", "layernorm"]


def bench(kopt, task, workspace, report):
    command = [kopt, "bench", os.path.join(REPO, "examples", "tasks", task), "-f", "json", "-o", report,
               "-w", workspace, "--rerun", "--timeout", "60"]
    completed = subprocess.run(command, capture_output=True, text=True)
    if completed.returncode != 0 or not os.path.exists(report):
        return None, completed.stderr.strip()[-300:]
    with open(report) as f:
        return json.load(f), ""


def entries(report):
    result = {}
    for entry in [report.get("reference")] + report.get("candidates", []):
        if not entry:
            continue
        timing = entry.get("timing") or {}
        median = (timing.get("median") or {}).get("value")
        result[entry["name"]] = (entry.get("status"), entry.get("kind"), median)
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", required=True, help="kopt of the old harness")
    parser.add_argument("--new", required=True, help="kopt of the new harness")
    parser.add_argument("--out", required=True)
    parser.add_argument("--tasks", nargs="*", default=DEFAULT_TASKS)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--tolerance", type=float, default=0.02)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="kopt_versions_")
    rows = ["| task | entry | old | new | new/old | verdict |", "|---|---|---|---|---|---|"]
    failures = 0
    for task in args.tasks:
        medians = {"old": {}, "new": {}}
        status = {"old": {}, "new": {}}
        for round_index in range(args.rounds):
            for version in ("old", "new") if round_index % 2 == 0 else ("new", "old"):
                kopt = args.old if version == "old" else args.new
                report, error = bench(kopt, task, os.path.join(work, version), os.path.join(
                    work, f"{task}.{version}.{round_index}.json"))
                if report is None:
                    rows.append(f"| {task} | (run) | | | | {version} failed: {error.replace('|', '/')} |")
                    failures += 1
                    continue
                for name, (entry_status, kind, median) in entries(report).items():
                    status[version].setdefault(name, set()).add(entry_status if entry_status == "ok" else kind)
                    if median:
                        medians[version].setdefault(name, []).append(median)
        for name in sorted(set(status["old"]) | set(status["new"])):
            old = medians["old"].get(name)
            new = medians["new"].get(name)
            if not old or not new:
                verdict = "ok" if status["old"].get(name) == status["new"].get(name) else "WRONG: status differs"
                failures += verdict != "ok"
                rows.append(f"| {task} | {name} | {status['old'].get(name)} | {status['new'].get(name)} | | {verdict} |")
                continue
            old_median, new_median = statistics.median(old), statistics.median(new)
            ratio = new_median / old_median
            verdict = "ok" if abs(ratio - 1) <= args.tolerance else f"WRONG: beyond {args.tolerance:.0%}"
            failures += verdict != "ok"
            rows.append(f"| {task} | {name} | {old_median * 1e6:.2f} us | {new_median * 1e6:.2f} us | {ratio:.4f} | "
                        f"{verdict} |")
    table = "\n".join(rows) + "\n"
    with open(args.out, "w") as f:
        f.write(table)
    print(table)
    print(f"{failures} entr{'y' if failures == 1 else 'ies'} outside the tolerance or with differing status")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
