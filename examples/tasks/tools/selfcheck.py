#!/usr/bin/env python3
"""GPU self-check of the example tasks (and, with --adversarial, a first look
at the adversarial suite) without `kopt bench`: builds every reference and
candidate as docs/harness-protocol.md §2 says (examples/tasks/check_compile.sh
--wrapper, then nvcc), and runs tools/selfcheck.cu on each candidate at the
main size (two seeds, timed) and at every [[variant]] (one seed).

Usage (on a GPU machine, from the repository root):
  python3 examples/tasks/tools/selfcheck.py [--adversarial] [--out DIR] [TASK ...]
Prints one line per run; writes DIR/selfcheck.txt (default: ./selfcheck-out).
"""
import argparse
import concurrent.futures
import math
import os
import subprocess
import sys
import tomllib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
TASKS = os.path.join(ROOT, "examples", "tasks")
ADVERSARIAL = os.path.join(ROOT, "tests", "adversarial")
NVCC = os.environ.get("NVCC", "nvcc")
ARCH = os.environ.get("ARCH", "sm_90a")
FLAGS = ["-O3", "-std=c++17", "-lineinfo", f"-arch={ARCH}", "-cudart", "shared", "-Xcompiler", "-fPIC",
         "-shared", "-Xlinker", "-z,defs"]


def build(task, source, build_dir):
    stem = f"{task}__{os.path.basename(source)[:-3]}"
    wrapper = os.path.join(build_dir, stem + ".wrapper.cu")
    library = os.path.join(build_dir, stem + ".so")
    text = subprocess.run([os.path.join(TASKS, "check_compile.sh"), "--wrapper", os.path.join(TASKS, task), source],
                          capture_output=True, text=True, check=True).stdout
    with open(wrapper, "w") as f:
        f.write(text)
    result = subprocess.run([NVCC, *FLAGS, "-o", library, wrapper], capture_output=True, text=True)
    if result.returncode != 0:
        return None, (result.stdout + result.stderr).strip().splitlines()[-1:]
    return library, None


def sizes(task_toml):
    main = {s["name"]: s["value"] for s in task_toml.get("scalar", [])}
    result = [("main", dict(main))]
    for index, variant in enumerate(task_toml.get("variant", [])):
        scalars = dict(main)
        scalars.update(variant)
        result.append((f"variant{index + 1}", scalars))
    return result


def spec_text(task_toml, scalars, seed, time_it):
    lines = [f"seed {seed}", f"time {1 if time_it else 0}"]
    tolerance = task_toml.get("tolerance", {}).get("f32", {})
    lines.append(f"tol {tolerance.get('rtol', 1e-4)} {tolerance.get('atol', 1e-5)}")
    for tensor in task_toml["tensor"]:
        elements = math.prod(scalars[d] if isinstance(d, str) else d for d in tensor["shape"])
        init = tensor.get("init", {"kind": "normal"})
        kind = init["kind"]
        if kind == "normal":
            p1, p2 = init.get("mean", 0.0), init.get("stddev", 1.0)
        elif kind == "uniform":
            p1, p2 = init.get("low", -1.0), init.get("high", 1.0)
        else:
            p1, p2 = init.get("alpha", 3.0), init.get("scale", 1.0)
        lines.append(f"tensor {tensor['dtype']} {tensor['role']} {elements} {kind} {p1} {p2}")
    for scalar in task_toml.get("scalar", []):
        lines.append(f"scalar {scalar['type']} {scalars[scalar['name']]}")
    return "\n".join(lines) + "\n"


def run_one(binary, candidate, reference, spec_path, timeout_seconds):
    try:
        result = subprocess.run([binary, candidate, reference, spec_path], capture_output=True, text=True,
                                timeout=timeout_seconds)
    except subprocess.TimeoutExpired:
        return f"TIMEOUT ({timeout_seconds} s)"
    for line in result.stdout.splitlines():
        if line.startswith("RESULT"):
            return line[len("RESULT "):]
    return f"exit={result.returncode} (signal {-result.returncode if result.returncode < 0 else 0})"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tasks", nargs="*")
    parser.add_argument("--adversarial", action="store_true")
    parser.add_argument("--out", default="selfcheck-out")
    args = parser.parse_args()
    build_dir = os.path.abspath(os.path.join(args.out, "build"))
    os.makedirs(build_dir, exist_ok=True)
    binary = os.path.join(build_dir, "selfcheck")
    subprocess.run([NVCC, "-O2", "-std=c++17", "-cudart", "shared", "-o", binary,
                    os.path.join(TASKS, "tools", "selfcheck.cu"), "-ldl"], check=True)
    tasks = args.tasks or sorted(d for d in os.listdir(TASKS) if os.path.isfile(os.path.join(TASKS, d, "task.toml")))
    jobs = []  # (task, label, source)
    for task in tasks:
        jobs.append((task, "reference", os.path.join(TASKS, task, "reference.cu")))
        candidates = os.path.join(TASKS, task, "candidates")
        for name in sorted(os.listdir(candidates)):
            jobs.append((task, name, os.path.join(candidates, name)))
    if args.adversarial:
        with open(os.path.join(ADVERSARIAL, "expected.toml"), "rb") as f:
            for case in tomllib.load(f)["case"]:
                jobs.append((case["task"], "adversarial/" + case["file"], os.path.join(ADVERSARIAL, case["file"])))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        built = list(pool.map(lambda job: build(job[0], job[2], build_dir), jobs))
    libraries = {(job[0], job[1]): result for job, result in zip(jobs, built)}
    report = []

    def emit(line):
        print(line, flush=True)
        report.append(line)

    for task, label, _ in jobs:
        library, error = libraries[(task, label)]
        if library is None:
            emit(f"{task:11} {label:42} build   FAILED {error}")
            continue
        if label == "reference":
            continue
        reference, _ = libraries[(task, "reference")]
        with open(os.path.join(TASKS, task, "task.toml"), "rb") as f:
            task_toml = tomllib.load(f)
        runs = []
        for size_label, scalars in sizes(task_toml):
            seeds = [11, 12] if size_label == "main" else [13]
            for seed in seeds:
                runs.append((size_label, scalars, seed, size_label == "main" and seed == 11))
        if label.startswith("adversarial/"):
            runs = runs[:1] + [r for r in runs if r[0] != "main"][:1]
        timeout = 15 if label.startswith("adversarial/") else 120
        for size_label, scalars, seed, time_it in runs:
            spec_path = os.path.join(build_dir, f"{task}.spec")
            with open(spec_path, "w") as f:
                f.write(spec_text(task_toml, scalars, seed, time_it))
            emit(f"{task:11} {label:42} {size_label:8} seed={seed} {run_one(binary, library, reference, spec_path, timeout)}")
    with open(os.path.join(args.out, "selfcheck.txt"), "w") as f:
        f.write("\n".join(report) + "\n")


if __name__ == "__main__":
    sys.exit(main())
