#!/usr/bin/env python3
"""KernelBench problems in kopt, measured on the GPU machine (issue 16;
docs/kernelbench.md). Needs PyTorch, kopt and kopt-runner, and the public
KernelBench files brought by the user (never committed): a problems folder
with level1/ and level2/ (KernelBench/levelN/*.py) and KernelBench's Python
package (src/kernelbench: eval.py, timing.py, dataset.py).

Steps (each writes into OUT; every time is in seconds unless it says ms/us):
  import     kopt task import-kernelbench on every problem -> OUT/tasks
  eager      each imported task's reference timed with PyTorch the way
             KernelBench times it (3 warm-ups, cuda events, L2 thrash before
             each trial; its own get_inputs values) -> OUT/eager.json
  examples   kopt bench of the example candidates (examples/kernelbench:
             native .cu and ModelNew .py) -> OUT/examples/*.json; the speedup
             as KernelBench reports it (eager median / kopt median) beside
             kopt's own, and fast_p (p = 1, 1.2) and the geometric mean
  cheats     the adversarial cases of tests/adversarial/kernelbench against
             their expected verdicts -> OUT/cheats/*.json
  kb_cheats  KernelBench's own eval of the ModelNew cheats and controls
             (in parallel), beside kopt's verdicts -> OUT/kb_eval_*.log
  cost       one ModelNew candidate per --cost-problems evaluated by
             KernelBench's own eval_kernel_against_ref, cold (fresh extension
             build dir) then warm x --cost-reps, beside kopt bench of the same
             file and --cost-candidates distinct copies of it in one command,
             cold (empty workspace) then warm (compile cache populated), each
             candidate's marginal cost from the progress line's time stamps,
             and the same file alone, cold; with the candidate and reference
             children's event timelines from kopt's workspace (step_cost)
Writes OUT/summary.md and OUT/summary.json. Exit 1 when a cheat got an
unexpected verdict or a control failed.

Usage: kernelbench_compare.py --kopt KOPT --problems DIR --kb-package DIR --out DIR
                              [--steps import,eager,examples,cheats,cost,kb_cheats] [--timing-seconds S]
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, ".."))

# The five example problems and their candidates (examples/kernelbench).
EXAMPLES = [
    ("level1", "1_Square_matrix_multiplication_",
     ["1_Square_matrix_multiplication_.cu", "1_Square_matrix_multiplication__modelnew.py"]),
    ("level1", "12_Matmul_with_diagonal_matrices_",
     ["12_Matmul_with_diagonal_matrices_.cu", "12_Matmul_with_diagonal_matrices__modelnew.py"]),
    ("level1", "88_MinGPTNewGelu", ["88_MinGPTNewGelu.cu", "88_MinGPTNewGelu_modelnew.py"]),
    ("level2", "63_Gemm_ReLU_Divide", ["level2_63_Gemm_ReLU_Divide.cu"]),
    ("level2", "76_Gemm_Add_ReLU", ["level2_76_Gemm_Add_ReLU.cu"]),
]
COST_PROBLEMS = {
    "88": ("level1", "88_MinGPTNewGelu", "88_MinGPTNewGelu_modelnew.py"),
    "12": ("level1", "12_Matmul_with_diagonal_matrices_", "12_Matmul_with_diagonal_matrices__modelnew.py"),
}


def task_dir(out, level, stem):
    return os.path.join(out, "tasks", f"kb_{level}_{stem}")


def run(command, log, **kwargs):
    started = time.perf_counter()
    with open(log, "w") as f:
        f.write("$ " + " ".join(command) + "\n")
        f.flush()
        result = subprocess.run(command, stdout=f, stderr=subprocess.STDOUT, **kwargs)
    return result.returncode, time.perf_counter() - started


def quantity(value):
    return value.get("value") if isinstance(value, dict) else value


def bench(kopt, task, candidates, report, workspace, timing_seconds, log, rerun=True, extra=()):
    command = [kopt, "bench", task, *candidates, "-f", "json", "-o", report, "-w", workspace,
               "--timing-seconds", str(timing_seconds), "--timeout", "120", *extra]
    if rerun:
        command.append("--rerun")
    code, wall = run(command, log)
    data = None
    if os.path.exists(report):
        with open(report) as f:
            data = json.load(f)
    return code, wall, data


def entries(report):
    out = {}
    report = report or {}
    listed = ([report["reference"]] if report.get("reference") else []) + report.get("candidates", [])
    for entry in listed:
        timing = entry.get("timing") or {}
        out[entry["name"]] = {
            "role": entry.get("role"), "status": entry.get("status"), "kind": entry.get("kind"),
            "message": (entry.get("message") or "")[:300],
            "compile_s": quantity(entry.get("compile", {}).get("time")),
            "compile_cached": entry.get("compile", {}).get("cached"),
            "measure_s": quantity(entry.get("measure", {}).get("time")),
            # The parent's own time around the child (issue 16): channel, prepare, receive, judge, store.
            "parent": {k: (quantity(v) if isinstance(v, dict) else v)
                       for k, v in (entry.get("measure", {}).get("parent") or {}).items()} or None,
            "median_s": quantity(timing.get("median")),
            "speedup_vs_reference": quantity(entry.get("speedup")),
            "resumed": entry.get("resumed_from_run"),
        }
    return out


def step_import(args, summary):
    os.makedirs(os.path.join(args.out, "tasks"), exist_ok=True)
    problems = [os.path.join(args.problems, level) for level in ("level1", "level2")
                if os.path.isdir(os.path.join(args.problems, level))]
    code, wall = run([args.kopt, "task", "import-kernelbench", *problems, "--out", os.path.join(args.out, "tasks")],
                     os.path.join(args.out, "import.log"))
    with open(os.path.join(args.out, "import.log")) as f:
        lines = f.read().splitlines()
    imported = [line for line in lines if line.startswith("imported ")]
    failed = [line for line in lines if line.startswith("failed ")]
    summary["import"] = {"exit": code, "wall_s": round(wall, 3), "imported": len(imported),
                         "failed": failed,
                         "level1": sum("kb_level1_" in line for line in imported),
                         "level2": sum("kb_level2_" in line for line in imported)}
    for name in ("relu_small", "softmax_small"):
        run([args.kopt, "task", "import-kernelbench",
             os.path.join(ROOT, "tests", "fixtures", "kernelbench", name + ".py"), "--out",
             os.path.join(args.out, "tasks")], os.path.join(args.out, f"import_{name}.log"))


EAGER = r'''
import json, os, sys, time
import torch
tasks, out_path, compile_names = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
l2 = torch.empty((32, 1024, 1024), dtype=torch.int64, device="cuda")
def time_it(fn, inputs, trials=20):
    with torch.no_grad():
        for _ in range(3):
            fn(*inputs)
        torch.cuda.synchronize()
        times = []
        for _ in range(trials):
            l2.fill_(42); torch.cuda.synchronize()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record(); fn(*inputs); e.record(); torch.cuda.synchronize()
            times.append(s.elapsed_time(e))
    times.sort()
    return {"mean_ms": sum(times) / len(times), "median_ms": times[len(times) // 2], "min_ms": times[0]}
results = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "tasks": {}}
for name in sorted(os.listdir(tasks)):
    path = os.path.join(tasks, name, "problem.py")
    if not os.path.exists(path) or not name.startswith("kb_level"):
        continue
    record = {}
    try:
        ns = {"__name__": "problem"}
        exec(compile(open(path).read(), path, "exec"), ns)
        torch.manual_seed(42)
        with torch.device("cuda"):
            model = ns["Model"](*ns["get_init_inputs"]())
            torch.manual_seed(42)
            inputs = ns["get_inputs"]()
        record["eager"] = time_it(model, inputs)
        if name in compile_names:
            started = time.perf_counter()
            compiled = torch.compile(model)
            with torch.no_grad():
                compiled(*inputs)
            record["compile_s"] = time.perf_counter() - started
            record["torch_compile"] = time_it(compiled, inputs)
    except Exception as e:
        record["error"] = f"{type(e).__name__}: {e}"
    results["tasks"][name] = record
    ns = model = inputs = None
    torch.cuda.empty_cache()
    print(name, json.dumps(record), flush=True)
json.dump(results, open(out_path, "w"), indent=1)
'''


def step_eager(args, summary):
    out_path = os.path.join(args.out, "eager.json")
    compile_names = "kb_level1_88_MinGPTNewGelu" if args.torch_compile else ""
    code, wall = run([sys.executable, "-c", EAGER, os.path.join(args.out, "tasks"), out_path, compile_names],
                     os.path.join(args.out, "eager.log"))
    summary["eager"] = {"exit": code, "wall_s": round(wall, 3)}
    if os.path.exists(out_path):
        with open(out_path) as f:
            data = json.load(f)
        summary["eager"]["measured"] = sum("eager" in r for r in data["tasks"].values())
        summary["eager"]["errors"] = {k: r["error"] for k, r in data["tasks"].items() if "error" in r}


def fast_p(results, p):
    if not results:
        return None
    return sum(1 for r in results if r["correct"] and r["speedup"] is not None and r["speedup"] > p) / len(results)


def step_examples(args, summary):
    eager = {}
    if os.path.exists(os.path.join(args.out, "eager.json")):
        with open(os.path.join(args.out, "eager.json")) as f:
            eager = json.load(f)["tasks"]
    os.makedirs(os.path.join(args.out, "examples"), exist_ok=True)
    rows = []
    for level, stem, files in EXAMPLES:
        task = task_dir(args.out, level, stem)
        candidates = [os.path.join(ROOT, "examples", "kernelbench", f) for f in files]
        report = os.path.join(args.out, "examples", f"{level}_{stem}.json")
        code, wall, data = bench(args.kopt, task, candidates, report, os.path.join(args.out, "ws_examples"),
                                 args.timing_seconds, os.path.join(args.out, "examples", f"{level}_{stem}.log"))
        measured = eager.get(os.path.basename(task), {})
        eager_ms = (measured.get("eager") or {}).get("median_ms")
        compile_ms = (measured.get("torch_compile") or {}).get("median_ms")
        for name, e in entries(data).items():
            kb_speedup = eager_ms / (1000 * e["median_s"]) if eager_ms and e["median_s"] else None
            compile_speedup = compile_ms / (1000 * e["median_s"]) if compile_ms and e["median_s"] else None
            rows.append({"level": level, "problem": stem, "candidate": name, "exit": code, "bench_wall_s": round(wall, 2),
                         "correct": e["status"] == "ok", "eager_median_ms": eager_ms,
                         "torch_compile_median_ms": compile_ms, "speedup": kb_speedup,
                         "speedup_vs_torch_compile": compile_speedup, **e})
    summary["examples"] = rows
    kb = {}
    for level in ("level1", "level2"):
        results = [r for r in rows if r["level"] == level and r["role"] == "candidate"]
        speedups = [r["speedup"] for r in results if r["correct"] and r["speedup"]]
        kb[level] = {"n": len(results), "fast_1": fast_p(results, 1.0), "fast_1.2": fast_p(results, 1.2),
                     "geomean_speedup_correct": math.exp(sum(map(math.log, speedups)) / len(speedups))
                     if speedups else None}
    summary["kernelbench_summary"] = kb


def step_cheats(args, summary):
    with open(os.path.join(ROOT, "tests", "adversarial", "kernelbench", "expected.toml"), "rb") as f:
        cases = tomllib.load(f)["case"]
    os.makedirs(os.path.join(args.out, "cheats"), exist_ok=True)
    verdicts = []
    for problem in sorted({c["problem"] for c in cases}):
        stem = problem[:-3]
        these = [c for c in cases if c["problem"] == problem]
        files = [os.path.join(ROOT, "tests", "adversarial", "kernelbench", c["file"]) for c in these]
        report = os.path.join(args.out, "cheats", stem + ".json")
        code, wall, data = bench(args.kopt, os.path.join(args.out, "tasks", "kb_" + stem), files, report,
                                 os.path.join(args.out, "ws_cheats"), args.timing_seconds,
                                 os.path.join(args.out, "cheats", stem + ".log"))
        got = entries(data)
        for case in these:
            name = os.path.splitext(case["file"])[0]
            e = got.get(name, {})
            verdict = "pass" if e.get("status") == "ok" else (e.get("kind") or e.get("status") or "missing")
            verdicts.append({"file": case["file"], "problem": problem, "expect": case["expect"], "got": verdict,
                             "ok": verdict in case["expect"], "message": e.get("message", ""),
                             "median_s": e.get("median_s")})
    summary["cheats"] = verdicts


KB_EVAL = os.path.join(HERE, "kernelbench_eval_driver.py")


def child_timeline(workspace, run_id, role):
    """The events of the children of `run_id` in `role` from the workspace
    database: when each arrived (elapsed_s since its child started) and the
    runner's own step times of the correctness rounds (draw, call,
    input_check, send), summed over the rounds and children."""
    import sqlite3
    database = os.path.join(workspace, "kopt.db")
    if not os.path.exists(database):
        return None
    connection = sqlite3.connect(database)
    try:
        rows = connection.execute("SELECT phase, event FROM measurements WHERE run_id = ? AND role = ? ORDER BY id",
                                  (run_id, role)).fetchall()
    finally:
        connection.close()
    timeline, steps = [], {}
    for phase, text in rows:
        event = json.loads(text)
        label = phase + (f":{event.get('round')}{event.get('index')}" if phase == "outputs" else "")
        if "elapsed_s" in event:
            timeline.append([label, event["elapsed_s"]])
        for name, seconds in (event.get("phase_s") or {}).items():
            steps[name] = round(steps.get(name, 0) + seconds, 4)
        if phase == "timing":
            steps["timing_gpu_s"] = event.get("gpu_seconds")
            steps["sampling_wall_s"] = event.get("sampling_wall_s")
        if phase == "outcome":
            timeline.append(["child_wall", event.get("seconds")])
    return {"timeline": timeline, "round_steps_s": steps} if rows else None


def run_with_progress(command, log):
    """Runs `command` with its stderr on a pseudo-terminal, so that kopt
    bench draws its progress line ("[i/N] measuring NAME", written before
    each child starts), and stamps each line with the seconds since the
    start. Returns (exit code, wall seconds, [(seconds, text)])."""
    import pty
    import re
    master, slave = pty.openpty()
    started = time.perf_counter()
    with open(log, "w") as f:
        f.write("$ " + " ".join(command) + "\n")
        f.flush()
        process = subprocess.Popen(command, stdout=f, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    marks, pending, pending_at = [], "", None
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the last holder of the terminal closed it
            break
        if not data:
            break
        now = time.perf_counter() - started
        for piece in re.split(r"(\r|\n)", data.decode(errors="replace")):
            if piece in ("\r", "\n"):
                text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", pending).strip()
                if text:
                    marks.append((round(pending_at, 3), text))
                pending, pending_at = "", None
            elif piece:
                pending_at = now if pending_at is None else pending_at
                pending += piece
    os.close(master)
    code = process.wait()
    wall = time.perf_counter() - started
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", pending).strip()
    if text:
        marks.append((round(pending_at, 3), text))
    with open(log, "a") as f:
        for seconds, line in marks:
            f.write(f"[{seconds:9.3f} s] {line}\n")
    return code, wall, marks


def cost_candidates(args, stem, candidate, count):
    """`count` distinct KernelBench candidates: the example ModelNew file as
    it is, then copies whose CUDA source starts with a comment naming the copy
    (another source: another compile, nothing reported from the store)."""
    folder = os.path.join(args.out, "cost_candidates")
    os.makedirs(folder, exist_ok=True)
    with open(candidate) as f:
        text = f.read()
    marker = "#include <torch/extension.h>"
    if marker not in text:
        raise ValueError(f"{candidate}: no '{marker}' line to mark copies with")
    files = [candidate]
    for copy in range(2, count + 1):
        path = os.path.join(folder, f"{stem}_modelnew_c{copy}.py")
        with open(path, "w") as f:
            f.write(text.replace(marker, f"// kopt cost step: copy {copy}\n{marker}", 1))
        files.append(path)
    return files


def kopt_cost_run(args, task, candidates, workspace, label, rerun, extra=()):
    """One `kopt bench TASK C1..CN` (a new process, the reference-output
    cache off: the default for untrusted candidates): the whole command's
    wall time, the reference's part, and each candidate's marginal cost: the
    seconds from the start of its child ("measuring NAME") to the start of
    the next one (the last: to the command's exit), with its compile time
    beside it (compiles run in parallel, overlapping the reference child)."""
    report = os.path.join(args.out, f"kopt_cost_{label}.json")
    command = [args.kopt, "bench", task, *candidates, "-f", "json", "-o", report, "-w", workspace,
               "--timing-seconds", str(args.timing_seconds), "--timeout", "120"]
    if rerun:
        command.append("--rerun")
    command.extend(extra)
    code, wall, marks = run_with_progress(command, os.path.join(args.out, f"kopt_cost_{label}.log"))
    data = None
    if os.path.exists(report):
        with open(report) as f:
            data = json.load(f)
    got = entries(data)
    names = [os.path.splitext(os.path.basename(c))[0] for c in candidates]
    started = {}
    for seconds, text in marks:
        words = text.split()
        if len(words) >= 3 and words[1] == "measuring" and words[2] not in started:
            started[words[2]] = seconds
    order = sorted((started[n], n) for n in names if n in started)
    per_candidate = []
    for position, (start, name) in enumerate(order):
        end = order[position + 1][0] if position + 1 < len(order) else wall
        e = got.get(name, {})
        per_candidate.append({"name": name, "start_s": start, "marginal_s": round(end - start, 3),
                              "compile_s": e.get("compile_s"), "compile_cached": e.get("compile_cached"),
                              "child_s": e.get("measure_s"), "parent": e.get("parent"),
                              "status": e.get("status"), "kind": e.get("kind")})
    run_id = ((data or {}).get("run") or {}).get("id")
    first = order[0][0] if order else None
    return {"label": label, "candidates": len(candidates), "exit": code, "command_wall_s": round(wall, 3),
            "reference": got.get("reference") or {},
            "first_candidate_start_s": first,
            "per_candidate": per_candidate,
            "marginal_mean_s": round((wall - first) / len(order), 3) if order else None,
            "reference_end": (data or {}).get("reference_end") and {
                "measure_s": quantity(data["reference_end"].get("measure", {}).get("time"))},
            "notes": (data or {}).get("notes"),
            "candidate_children": child_timeline(workspace, run_id, "candidate") if run_id else None,
            "reference_child": child_timeline(workspace, run_id, "reference") if run_id else None}


def kernelbench_cost_run(args, problem, candidate, build, label):
    log = os.path.join(args.out, f"kb_eval_{label}.log")
    code, wall = run([sys.executable, KB_EVAL, args.kb_package, problem, candidate, build], log,
                     timeout=args.kb_timeout)
    return {"label": label, "exit": code, "wall_s": round(wall, 3), "result": kb_result(log)}


def kb_result(log):
    with open(log) as f:
        for line in f:
            if line.startswith("KBRESULT "):
                return json.loads(line[9:])
    return None


def step_cost(args, summary):
    """Cost per candidate, in one run, for each of --cost-problems
    (docs/kernelbench.md "Cost per candidate"):

    KernelBench: its own eval_kernel_against_ref of the example ModelNew
    file, each a new process: cold (a fresh extension build directory; the
    cold evaluations of all problems at once, --kb-cold-parallel) and warm x
    --cost-reps (the same build directory). It re-runs its reference for
    every candidate.

    kopt: `kopt bench TASK C1..CN` with N = --cost-candidates distinct copies
    of the same file (cost_candidates), each a new process: cold (an empty
    workspace: nothing compiled), then warm (the same workspace, --rerun:
    every compile cached, every candidate measured again); each candidate's
    marginal cost from the progress line's time stamps; and N = 1 cold in its
    own empty workspace: the whole first invocation for one candidate."""
    results = []
    items = [COST_PROBLEMS[item] for item in args.cost_problems.split(",")]
    costs = []
    for level, stem, candidate_file in items:
        costs.append({"problem": f"{level}/{stem}", "candidate": candidate_file, "kernelbench": [], "kopt": []})
    # KernelBench cold: all problems at once (each mostly one host compiler process, 16 cores).
    running = []
    for (level, stem, candidate_file), cost in zip(items, costs):
        if args.cost_skip_kernelbench:
            break
        task = task_dir(args.out, level, stem)
        build = os.path.join(args.scratch, f"kb_build_{stem}")
        shutil.rmtree(build, ignore_errors=True)
        command = [sys.executable, KB_EVAL, args.kb_package, os.path.join(task, "problem.py"),
                   os.path.join(ROOT, "examples", "kernelbench", candidate_file), build]
        log = os.path.join(args.out, f"kb_eval_{stem}_cold.log")
        handle = open(log, "w")
        running.append((cost, log, handle, time.perf_counter(), subprocess.Popen(
            command, stdout=handle, stderr=subprocess.STDOUT)))
        if not args.kb_cold_parallel:
            running[-1][4].wait()
    ended = {}
    deadline = time.perf_counter() + args.kb_timeout
    while len(ended) < len(running):  # each one's own end time (they run at once)
        for index, (_, _, _, _, process) in enumerate(running):
            if index not in ended and process.poll() is not None:
                ended[index] = time.perf_counter()
        if time.perf_counter() > deadline:
            for index, (_, _, _, _, process) in enumerate(running):
                if index not in ended:
                    process.kill()
                    process.wait()
                    ended[index] = time.perf_counter()
        time.sleep(0.05)
    for index, (cost, log, handle, started, process) in enumerate(running):
        handle.close()
        cost["kernelbench"].append({"label": "cold", "exit": process.returncode,
                                    "wall_s": round(ended[index] - started, 3), "result": kb_result(log),
                                    "concurrent_with_other_problems": bool(args.kb_cold_parallel and len(items) > 1)})
    summary["cost"] = costs
    write_summary(args, summary)
    deferred = []  # the channel A/B, after every problem's cold and warm runs
    for (level, stem, candidate_file), cost in zip(items, costs):
        task = task_dir(args.out, level, stem)
        candidate = os.path.join(ROOT, "examples", "kernelbench", candidate_file)
        build = os.path.join(args.scratch, f"kb_build_{stem}")
        for rep in range(0 if args.cost_skip_kernelbench else args.cost_reps):
            cost["kernelbench"].append(kernelbench_cost_run(args, os.path.join(task, "problem.py"), candidate,
                                                            build, f"{stem}_warm{rep}"))
            write_summary(args, summary)
        candidates = cost_candidates(args, stem, candidate, args.cost_candidates)
        workspace = os.path.join(args.scratch, f"ws_cost_{stem}_n{len(candidates)}")
        shutil.rmtree(workspace, ignore_errors=True)
        phases = [("cold", False, (), {}), ("warm", True, (), {})]
        if args.cost_channel_ab and stem == items[0][1]:
            # The output channel's A/B (issue 16), the first problem only: the same warm run with the outputs
            # through the pipe (lent, vmsplice) and, unless --cost-ab-pipe-only, in sealed channel memory.
            # The reference-output cache spares the second of them the reference child: a candidate's
            # marginal cost does not depend on where the expected outputs came from. Run after every
            # problem's cold and warm runs (those are the must-hold's), unless --cost-ab-first.
            ab = [("warm_pipe", True, ("--output-channel", "pipe", "--reference-cache", "on"), {})]
            if not args.cost_ab_pipe_only:
                ab.append(("warm_memory", True, ("--output-channel", "memory", "--reference-cache", "on"), {}))
            if args.cost_ab_first:
                phases += ab
            else:
                deferred.append((task, candidates, workspace, stem, cost, ab))
        for phase, rerun, extra, environment in phases:
            saved = {key: os.environ.get(key) for key in environment}
            os.environ.update(environment)
            try:
                cost["kopt"].append({"phase": phase, **kopt_cost_run(args, task, candidates, workspace,
                                                                     f"{stem}_n{len(candidates)}_{phase}", rerun,
                                                                     extra)})
            finally:
                for key, value in saved.items():
                    if value is None:
                        os.environ.pop(key, None)
                    else:
                        os.environ[key] = value
            write_summary(args, summary)
        if args.cost_no_single:
            results.append(cost)
            continue
        single = os.path.join(args.scratch, f"ws_cost_{stem}_n1")
        shutil.rmtree(single, ignore_errors=True)
        cost["kopt"].append({"phase": "cold", **kopt_cost_run(args, task, candidates[:1], single,
                                                              f"{stem}_n1_cold", False)})
        write_summary(args, summary)
        results.append(cost)
    for task, candidates, workspace, stem, cost, ab in deferred:
        for phase, rerun, extra, environment in ab:
            cost["kopt"].append({"phase": phase, **kopt_cost_run(args, task, candidates, workspace,
                                                                 f"{stem}_n{len(candidates)}_{phase}", rerun,
                                                                 extra)})
            write_summary(args, summary)


def step_kb_cheats(args, summary):
    """KernelBench's own eval of the ModelNew cheats and a control, all at
    once (each builds its own extension), on the same problems kopt used."""
    with open(os.path.join(ROOT, "tests", "adversarial", "kernelbench", "expected.toml"), "rb") as f:
        cases = [c for c in tomllib.load(f)["case"] if c["file"].endswith(".py")]
    fixtures = os.path.join(ROOT, "tests", "fixtures", "kernelbench")
    running = []
    for case in cases:
        name = case["file"][:-3]
        log = open(os.path.join(args.out, f"kb_eval_{name}.log"), "w")
        command = [sys.executable, KB_EVAL, args.kb_package, os.path.join(fixtures, case["problem"]),
                   os.path.join(ROOT, "tests", "adversarial", "kernelbench", case["file"]),
                   os.path.join(args.out, "kb_build_cheats", name)]
        running.append((case, log, subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)))
    results = []
    deadline = time.time() + args.kb_timeout
    for case, log, process in running:
        try:
            process.wait(timeout=max(1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
        result = None
        with open(log.name) as f:
            for line in f:
                if line.startswith("KBRESULT "):
                    result = json.loads(line[9:])
        kopt_verdict = next((v["got"] for v in summary.get("cheats", []) if v["file"] == case["file"]), None)
        results.append({"file": case["file"], "problem": case["problem"], "exit": process.returncode,
                        "kernelbench_correct": (result or {}).get("correctness"),
                        "kernelbench_runtime_ms": (result or {}).get("runtime_us"),
                        "kernelbench_ref_runtime_ms": (result or {}).get("ref_runtime_us"),
                        "kopt": kopt_verdict})
    summary["kernelbench_on_cheats"] = results


def write_summary(args, summary):
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    lines = ["# KernelBench in kopt: results of bench/kernelbench_compare.py", ""]
    if "import" in summary:
        i = summary["import"]
        lines += [f"Import: {i['imported']} problems ({i['level1']} level 1, {i['level2']} level 2) in "
                  f"{i['wall_s']} s; failed: {len(i['failed'])}", ""]
        lines += [f"- {line}" for line in i["failed"]] + [""]
    if "eager" in summary:
        lines += [f"Eager references measured: {summary['eager'].get('measured')} ({summary['eager']['wall_s']} s)", ""]
    if "examples" in summary:
        lines += ["| problem | candidate | kopt verdict | kopt median (us) | eager median (us) | speedup (KB style) | "
                  "kopt speedup vs bridge reference | compile (s) | child (s) |", "|---|---|---|---|---|---|---|---|---|"]
        for r in summary["examples"]:
            lines.append("| {level}/{problem} | {candidate} | {verdict} | {kopt} | {eager} | {kb} | {ref} | {c} | {m} |".format(
                level=r["level"], problem=r["problem"], candidate=r["candidate"],
                verdict=r["status"] + (": " + r["kind"] if r.get("kind") else ""),
                kopt=f"{1e6 * r['median_s']:.1f}" if r.get("median_s") else "-",
                eager=f"{1000 * r['eager_median_ms']:.1f}" if r.get("eager_median_ms") else "-",
                kb=f"{r['speedup']:.3f}" if r.get("speedup") else "-",
                ref=f"{r['speedup_vs_reference']:.2f}" if r.get("speedup_vs_reference") else "-",
                c=f"{r['compile_s']:.2f}" if r.get("compile_s") is not None else "-",
                m=f"{r['measure_s']:.2f}" if r.get("measure_s") is not None else "-"))
        lines += ["", "KernelBench summary (candidates only): " + json.dumps(summary.get("kernelbench_summary")), ""]
    if "cheats" in summary:
        lines += ["| case | problem | expected | got | ok |", "|---|---|---|---|---|"]
        for v in summary["cheats"]:
            lines.append(f"| {v['file']} | {v['problem']} | {' or '.join(v['expect'])} | {v['got']} | "
                         f"{'ok' if v['ok'] else 'WRONG: ' + v['message'][:120]} |")
        lines.append("")
    for c in summary.get("cost", []):
        lines += [f"Cost per candidate ({c['problem']}, {c['candidate']}), each command a new process:", "",
                  "| who | run | whole command (s) | reference (s) | per candidate: marginal (s) | "
                  "per candidate: compile (s) | per candidate: child (s) | per candidate: parent, channel "
                  "prepare/receive/judge/store (s) | verdicts |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for kb in c["kernelbench"]:
            r = kb.get("result") or {}
            lines.append(f"| KernelBench eval_kernel_against_ref | {kb['label']}"
                         f"{' (cold builds of all problems at once)' if kb.get('concurrent_with_other_problems') else ''}"
                         f" | {kb['wall_s']} | re-run per candidate | {kb['wall_s']} | - | - | - | "
                         f"correct {r.get('correctness')} (import torch {r.get('import_s')} s) |")
        for ko in c["kopt"]:
            per = ko.get("per_candidate") or []
            fmt = lambda key: " ".join(str(p.get(key)) for p in per)
            ref = ko.get("reference") or {}
            verdicts = sorted(set(f"{p.get('status')}{' ' + p['kind'] if p.get('kind') else ''}" for p in per))

            def parent(p):
                q = p.get("parent") or {}
                ahead = f" ({q['prejudged']} ahead)" if q.get("prejudged") else ""
                return (f"{q.get('channel')}: " + "/".join(str(round(q.get(k) or 0, 3))
                                                           for k in ("prepare", "receive", "judge", "store"))
                        + ahead if q else "-")
            lines.append(f"| kopt bench, {ko['candidates']} candidate(s) | {ko['phase']} | {ko['command_wall_s']} | "
                         f"{ref.get('measure_s')} (child; first candidate at {ko.get('first_candidate_start_s')}) | "
                         f"{fmt('marginal_s')} (mean {ko.get('marginal_mean_s')}) | {fmt('compile_s')} | "
                         f"{fmt('child_s')} | {'; '.join(parent(p) for p in per)} | {', '.join(verdicts)} |")
        lines.append("")
    if "kernelbench_on_cheats" in summary:
        lines += ["KernelBench's own eval on the ModelNew cases (runtime fields in ms):", "",
                  "| case | KernelBench correct | KernelBench runtime | KernelBench reference runtime | kopt |",
                  "|---|---|---|---|---|"]
        for r in summary["kernelbench_on_cheats"]:
            lines.append(f"| {r['file']} | {r['kernelbench_correct']} | {r['kernelbench_runtime_ms']} | "
                         f"{r['kernelbench_ref_runtime_ms']} | {r['kopt']} |")
        lines.append("")
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kopt", required=True)
    parser.add_argument("--problems", required=True, help="folder with level1/ and level2/ problem files")
    parser.add_argument("--kb-package", required=True, help="KernelBench's src/kernelbench folder")
    parser.add_argument("--out", required=True)
    parser.add_argument("--steps", default="import,eager,examples,cheats,cost,kb_cheats")
    parser.add_argument("--timing-seconds", default="1")
    parser.add_argument("--kb-timeout", type=float, default=200)
    parser.add_argument("--scratch", help="folder for the cost step's workspaces and KernelBench build "
                        "directories (large: a reference cache holds every expected output); default OUT")
    parser.add_argument("--cost-problems", default="88", help="comma-separated keys of COST_PROBLEMS")
    parser.add_argument("--cost-reps", type=int, default=1, help="KernelBench's warm repetitions")
    parser.add_argument("--cost-candidates", type=int, default=4,
                        help="distinct copies of the candidate in one kopt bench (the marginal cost)")
    parser.add_argument("--cost-skip-kernelbench", action="store_true",
                        help="kopt's runs only (KernelBench's measured in an earlier run of the same session)")
    parser.add_argument("--cost-channel-ab", action="store_true",
                        help="the first cost problem's warm kopt run again with --output-channel pipe and "
                        "memory (the output channel's A/B)")
    parser.add_argument("--cost-ab-pipe-only", action="store_true",
                        help="the channel A/B without the channel-memory run")
    parser.add_argument("--cost-ab-first", action="store_true",
                        help="the channel A/B right after the first problem's warm run (before: after all)")
    parser.add_argument("--cost-no-single", action="store_true",
                        help="skip the one-candidate cold invocation (saves device time)")
    parser.add_argument("--kb-cold-parallel", action="store_true",
                        help="KernelBench's cold evaluations of all cost problems at the same time")
    parser.add_argument("--torch-compile", action="store_true", help="also time torch.compile for one problem")
    args = parser.parse_args()
    args.kopt = os.path.abspath(args.kopt)
    args.scratch = args.scratch or args.out
    os.makedirs(args.out, exist_ok=True)
    summary = {"schema": "kopt.kernelbench.compare/1"}
    started = time.perf_counter()
    steps = {"import": step_import, "eager": step_eager, "examples": step_examples, "cheats": step_cheats,
             "cost": step_cost, "kb_cheats": step_kb_cheats}
    for name in args.steps.split(","):
        t0 = time.perf_counter()
        try:
            steps[name](args, summary)
        except Exception as e:  # keep what the other steps found
            summary.setdefault("step_errors", {})[name] = f"{type(e).__name__}: {e}"
        summary.setdefault("step_seconds", {})[name] = round(time.perf_counter() - t0, 3)
        write_summary(args, summary)
    summary["total_s"] = round(time.perf_counter() - started, 3)
    write_summary(args, summary)
    bad = [v for v in summary.get("cheats", []) if not v["ok"]]
    return 1 if bad or summary.get("step_errors") else 0


if __name__ == "__main__":
    sys.exit(main())
