#!/usr/bin/env python3
"""bench/harness_throughput: seconds per candidate of `kopt bench`, end to end
(compile, verify, time), with a cold and a warm compile cache, beside a
KernelBench-style load_inline evaluation of the same kernel measured in the
same run (bench/kernelbench_style_eval.py). Needs a GPU; prints a Markdown
table and writes it to --out.

The candidates are COUNT copies of examples/tasks/saxpy/candidates/saxpy_vec4.cu,
each with a distinct trailing comment: the same kernel, distinct sources, so a
cold cache compiles every one. Cold: a fresh workspace. Warm: the same
workspace again with --rerun (the compile cache hits, everything else is
measured again). Seconds per candidate = wall time of the whole `kopt bench`
command / COUNT (the reference's compile and timing included).
"""
import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def run_kopt_bench(kopt, task, candidates, workspace, extra, report_path):
    command = [kopt, "bench", task, *candidates, "--workspace", workspace, "-f", "json",
               "-o", report_path, *extra]
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        sys.stderr.write(completed.stdout + completed.stderr)
        raise SystemExit(f"kopt bench exited {completed.returncode}")
    with open(report_path) as f:
        report = json.load(f)
    return wall, report


def summarize_report(report):
    entries = report["candidates"]
    ok = sum(1 for e in entries if e["status"] == "ok")
    compile_times = [e["compile"]["time"]["value"] for e in entries
                     if e.get("compile") and e["compile"].get("time")]
    medians = [e["timing"]["median"]["value"] for e in entries if e.get("timing")]
    return ok, compile_times, medians


def child_phase_seconds(workspace, report):
    """Median over the run's candidate children of where their time went:
    seconds from the runner's start to its device event (CUDA context, NVML,
    buffers), to its last correctness check, to its timing event, to done
    (the events' elapsed_s), and the child's wall time as kopt saw it."""
    phases = {"device": [], "last check": [], "timing": [], "done": []}
    database = sqlite3.connect(os.path.join(workspace, "kopt.db"))
    rows = database.execute(
        "SELECT candidate_hash, phase, event FROM measurements WHERE run_id = ? AND role = 'candidate'"
        " ORDER BY id", (report["run"]["id"],)).fetchall()
    database.close()
    per_child = {}
    for candidate_hash, phase, event in rows:
        elapsed = json.loads(event).get("elapsed_s")
        if elapsed is None:
            continue
        name = "last check" if phase == "check" else phase
        per_child.setdefault(candidate_hash, {})[name] = elapsed
    for child in per_child.values():
        for name, elapsed in child.items():
            if name in phases:
                phases[name].append(elapsed)
    measured = [e["measure"]["time"]["value"] for e in report["candidates"]
                if e.get("measure") and e["measure"]["time"]["value"] > 0]
    parts = [f"{name} {statistics.median(values):.3f} s" for name, values in phases.items() if values]
    if measured:
        parts.append(f"child wall {statistics.median(measured):.3f} s")
    return "child phases (median, from runner start): " + ", ".join(parts) if parts else ""


def run_peer(python, candidate, build_dir, module):
    script = os.path.join(HERE, "kernelbench_style_eval.py")
    started = time.perf_counter()
    completed = subprocess.run([python, script, candidate, build_dir, module],
                               capture_output=True, text=True)
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        return wall, {"error": (completed.stderr or completed.stdout)[-400:]}
    return wall, json.loads(completed.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kopt", required=True)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--out", required=True)
    parser.add_argument("--skip-peer", action="store_true")
    args = parser.parse_args()

    task = os.path.join(REPO, "examples/tasks/saxpy")
    with open(os.path.join(task, "candidates/saxpy_vec4.cu")) as f:
        source = f.read()
    work = tempfile.mkdtemp(prefix="kopt_throughput_")
    candidates = []
    for index in range(args.count):
        path = os.path.join(work, f"saxpy_copy_{index:02d}.cu")
        with open(path, "w") as f:
            f.write(source + f"\n// copy {index} (harness_throughput)\n")
        candidates.append(path)
    workspace = os.path.join(work, "workspace")

    cold_wall, cold = run_kopt_bench(args.kopt, task, candidates, workspace, [],
                                     os.path.join(work, "cold.json"))
    warm_wall, warm = run_kopt_bench(args.kopt, task, candidates, workspace, ["--rerun"],
                                     os.path.join(work, "warm.json"))
    cold_ok, cold_compiles, cold_medians = summarize_report(cold)
    warm_ok, _, warm_medians = summarize_report(warm)
    phase_notes = [f"{label}: {child_phase_seconds(workspace, report)}"
                   for label, report in (("cold", cold), ("warm", warm))]

    def detail(ok, compiles, medians):
        parts = [f"{ok}/{args.count} ok"]
        if compiles:
            parts.append(f"median compile {statistics.median(compiles):.2f} s (parallel)")
        if medians:
            parts.append(f"kernel median {1e6 * statistics.median(medians):.2f} µs")
        return "; ".join(parts)

    rows = [
        ("kopt bench, cold cache", cold_wall / args.count, detail(cold_ok, cold_compiles, cold_medians)),
        ("kopt bench, warm cache", warm_wall / args.count, detail(warm_ok, [], warm_medians)),
    ]
    if not args.skip_peer:
        peer_dir = os.path.join(work, "peer")
        for label, module in (("cold", "saxpy_peer"), ("warm", "saxpy_peer")):
            wall, result = run_peer(args.python, candidates[0], peer_dir, module)
            detail = result.get("error") or (
                f"correct={result['correct']}; compile {result['compile_s']} s, check "
                f"{result['check_s']} s, time {result['time_s']} s; kernel median "
                f"{result['kernel_median_us']} µs over {result['trials']} trials")
            rows.append((f"KernelBench-style load_inline, {label}", wall, detail))

    lines = ["| evaluation | seconds per candidate | detail |", "|---|---:|---|"]
    lines += [f"| {name} | {seconds:.2f} | {detail} |" for name, seconds, detail in rows]
    lines.append("")
    lines.append(f"Device: {cold['device']['name']} ({cold['device']['architecture']}); "
                 f"{args.count} candidates; targets: cold <= 2 s, warm <= 0.5 s per candidate.")
    lines += [""] + [f"- {note}" for note in phase_notes]
    table = "\n".join(lines)
    print(table)
    with open(args.out, "w") as f:
        f.write(table + "\n")


if __name__ == "__main__":
    main()
