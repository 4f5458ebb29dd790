#!/usr/bin/env python3
"""Which KernelBench problems `kopt task import-kernelbench` takes, and why not the others.

Runs kopt's import probe (src/harness/kernelbench/kernelbench_probe.py, the
program the import runs) on every problem file, in parallel, each under
--timeout seconds, and applies the checks the import applies to its record
(src/harness/kernelbench_task.cc: tensors and numbers as inputs, 1 to 16 outputs). With PyTorch importable
the probe falls back to the meta device for forward passes its stand-in cannot
follow (convolutions, recurrent layers), as the import does.

Writes DIR/import_survey.md (one line per problem: imported, or the cause)
and DIR/import_survey.json. Usage: kernelbench_import_survey.py --out DIR
[--timeout S] [--jobs N] PROBLEM.py|LEVEL_DIR...
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernelbench_baselines import problem_files  # noqa: E402  (KernelBench's numeric order)

PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "harness", "kernelbench",
                     "kernelbench_probe.py")


def survey_one(path, timeout):
    try:
        done = subprocess.run([sys.executable, PROBE, path], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"problem": path, "imported": False, "cause": f"reading the problem timed out after {timeout:.0f} s"}
    if done.returncode != 0:
        match = re.search(r"kopt-probe-error: (.*)", done.stderr)
        cause = match.group(1) if match else f"exit {done.returncode}: {done.stderr.strip()[-300:]}"
        return {"problem": path, "imported": False, "cause": cause.replace(path + ": ", "")}
    record = json.loads(done.stdout)
    outputs = record.get("outputs", [])
    if not 1 <= len(outputs) <= 16:
        return {"problem": path, "imported": False,
                "cause": f"forward() returns {len(outputs)} tensors: kopt imports problems with 1 to 16 outputs"}
    for i, value in enumerate(record.get("inputs", [])):
        if value.get("kind") not in ("tensor", "float", "int", "bool"):
            return {"problem": path, "imported": False,
                    "cause": f"get_inputs()[{i}] is a {value.get('kind')}: a kopt task takes tensors and numbers"}
    return {"problem": path, "imported": True, "cause": "", "shapes_from": record.get("shapes_from", ""),
            "inputs": len(record.get("inputs", [])), "parameters": len(record.get("parameters", []))}


def cause_class(cause):
    """A short class of a refusal, for the summary."""
    for pattern, name in ((r"is not modelled", "forward not followed (no PyTorch)"),
                          (r"imports module '(\w+)", "imports a module other than torch"),
                          (r"is a list", "list input"), (r"returns \d+ tensors", "too many outputs"),
                          (r"timed out", "timeout"), (r"meta device", "PyTorch meta device failed")):
        if re.search(pattern, cause):
            return name
    return "other"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--out", required=True)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--jobs", type=int, default=8)
    args = parser.parse_args()
    files = problem_files(args.paths)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda p: survey_one(p, args.timeout), files))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "import_survey.json"), "w") as f:
        json.dump({"schema": "kopt.kernelbench.import_survey/1", "problems": results}, f, indent=1)
    imported = [r for r in results if r["imported"]]
    classes = collections.Counter(cause_class(r["cause"]) for r in results if not r["imported"])
    lines = ["# Import survey (kopt's probe, the import's checks)", "",
             f"{len(imported)} of {len(results)} import; refused: " +
             (", ".join(f"{n} {c}" for c, n in classes.most_common()) or "none"), "",
             "| problem | imported | cause |", "|---|---|---|"]
    for r in results:
        name = os.path.join(os.path.basename(os.path.dirname(r["problem"])), os.path.basename(r["problem"]))
        detail = r["cause"] if not r["imported"] else f"shapes from {r['shapes_from']}"
        lines.append(f"| {name} | {'yes' if r['imported'] else 'no'} | {detail[:200]} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, "import_survey.md"), "w") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
