#!/usr/bin/env python3
"""Runs the adversarial suite through `kopt bench` and checks every verdict
against expected.toml. Needs a GPU, kopt and kopt-runner (and Python 3.11+).

Usage (from the repository root):
  python3 tests/adversarial/run_suite.py --kopt build-X/kopt [--out DIR] [--timeout S] [FILE.cu ...]

For each task named in expected.toml it runs once
  kopt bench examples/tasks/<task> <its cases...> -f json -o DIR/<task>.json -w DIR/workspace
      --rerun --timeout S
then compares each case's status/kind with `expect` (any listed kind is a
correct rejection; ["pass"] means status ok; a case with `max_speedup` --
a cheat the harness neutralizes, timed on honest work -- must also stay
below that speedup over the reference). Writes DIR/results.md (a
Markdown table to commit in README.md) and exits 1 when any case got a
verdict outside its list.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="*", help="only these cases (file names)")
    parser.add_argument("--kopt", default="kopt", help="the kopt executable")
    parser.add_argument("--out", default="adversarial-out")
    parser.add_argument("--timeout", default="30", help="watchdog seconds per child (infinite_loop.cu hits it)")
    parser.add_argument("--without-policy", action="store_true",
                        help="allow every construct of the static policy (kopt rules --policy), so that the "
                             "runtime checks alone decide: a case must then be rejected with a kind other than "
                             "policy_violation")
    args = parser.parse_args()
    allow = []
    if args.without_policy:
        listing = subprocess.run([args.kopt, "rules", "--policy", "-f", "json"], text=True, capture_output=True,
                                 check=True)
        for rule in json.loads(listing.stdout)["policy_rules"]:
            allow += ["--allow", rule["id"]]
    with open(os.path.join(HERE, "expected.toml"), "rb") as f:
        cases = tomllib.load(f)["case"]
    if args.files:
        wanted = {os.path.basename(name) for name in args.files}
        cases = [case for case in cases if case["file"] in wanted]
    os.makedirs(args.out, exist_ok=True)
    by_task = collections.defaultdict(list)
    for case in cases:
        by_task[case["task"]].append(case)
    verdicts = {}  # file -> (status, kind, message)
    speedups = {}  # file -> speedup over the reference, when timed
    for task, task_cases in by_task.items():
        report_path = os.path.join(args.out, f"{task}.json")
        command = [args.kopt, "bench", os.path.join(ROOT, "examples", "tasks", task),
                   *[os.path.join(HERE, case["file"]) for case in task_cases],
                   "-f", "json", "-o", report_path, "-w", os.path.join(args.out, "workspace"),
                   "--rerun", "--timeout", args.timeout, *allow]
        print("+", " ".join(command), flush=True)
        result = subprocess.run(command, text=True, capture_output=True)
        if result.returncode != 0 or not os.path.exists(report_path):
            for case in task_cases:
                verdicts[case["file"]] = ("harness_error", f"exit {result.returncode}", result.stderr.strip()[-300:])
            continue
        with open(report_path) as f:
            report = json.load(f)
        for entry in report.get("candidates", []):
            file = os.path.basename(entry.get("path") or entry.get("name", "") + ".cu")
            verdicts[file] = (entry.get("status"), entry.get("kind") or "", (entry.get("message") or "")[:120])
            speedup = entry.get("speedup")
            if isinstance(speedup, dict) and speedup.get("value") is not None:
                speedups[file] = speedup["value"]
    rows = ["| case | task | expected | got | verdict |", "|---|---|---|---|---|"]
    failures = 0
    for case in cases:
        status, kind, message = verdicts.get(case["file"], ("missing", "", "no entry in the report"))
        got = "pass" if status == "ok" else (kind or status)
        right = got in case["expect"] and not (args.without_policy and got == "policy_violation")
        if right and got == "pass" and "max_speedup" in case:
            speedup = speedups.get(case["file"])
            if speedup is None or speedup > case["max_speedup"]:
                right = False
                message = f"speedup {speedup} above {case['max_speedup']}: the neutralized cheat was not timed honestly"
            got = f"pass ({speedup:.2f}x)" if speedup is not None else got
        failures += 0 if right else 1
        rows.append(f"| `{case['file']}` | {case['task']} | {' or '.join(case['expect'])} | {got} | "
                    f"{'ok' if right else 'WRONG: ' + message.replace('|', '/')} |")
    table = "\n".join(rows) + "\n"
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(table)
    print(table)
    print(f"{len(cases) - failures} of {len(cases)} cases got an expected verdict")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
