#!/usr/bin/env python3
"""bench/timing_repeatability: the same candidate timed 5 times in one
`kopt bench` run (5 copies with distinct trailing comments, so each is its own
candidate and its own child process); spread = max/min - 1 of the 5 medians.
Target: under 1 % for kernels of 50 µs or more. Needs a GPU; prints a
Markdown table and writes it to --out.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = [("gelu", "gelu_vec4.cu"), ("softmax", None), ("transpose", None)]


def first_candidate(task_dir, name):
    directory = os.path.join(task_dir, "candidates")
    return os.path.join(directory, name or sorted(os.listdir(directory))[0])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kopt", required=True)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="kopt_repeat_")
    lines = ["| task | candidate | medians (µs) | spread max/min-1 | rel. stdev (max) |",
             "|---|---|---|---:|---:|"]
    for task, name in CASES:
        task_dir = os.path.join(REPO, "examples/tasks", task)
        source_path = first_candidate(task_dir, name)
        source = open(source_path).read()
        copies = []
        for index in range(args.repeats):
            path = os.path.join(work, f"{task}_{index}.cu")
            open(path, "w").write(source + f"\n// repeat {index}\n")
            copies.append(path)
        report_path = os.path.join(work, f"{task}.json")
        completed = subprocess.run([args.kopt, "bench", task_dir, *copies, "--workspace",
                                    os.path.join(work, "ws"), "-f", "json", "-o", report_path],
                                   capture_output=True, text=True)
        if completed.returncode != 0:
            lines.append(f"| {task} | {os.path.basename(source_path)} | kopt bench exited "
                         f"{completed.returncode}: {completed.stderr[-200:]!r} | | |")
            continue
        report = json.load(open(report_path))
        medians = [e["timing"]["median"]["value"] for e in report["candidates"] if e.get("timing")]
        noise = [e["timing"]["relative_stdev"]["value"] for e in report["candidates"] if e.get("timing")]
        if len(medians) < 2:
            lines.append(f"| {task} | {os.path.basename(source_path)} | too few timings | | |")
            continue
        spread = max(medians) / min(medians) - 1
        lines.append(f"| {task} | {os.path.basename(source_path)} | "
                     f"{', '.join(f'{1e6 * m:.2f}' for m in medians)} | {100 * spread:.2f} % | "
                     f"{100 * max(noise):.2f} % |")
    table = "\n".join(lines)
    print(table)
    open(args.out, "w").write(table + "\n")


if __name__ == "__main__":
    main()
