#!/usr/bin/env python3
"""The matched-speed A/B of issue 15 on the GPU (docs/energy.md "Energy in optimize").

Runs `kopt optimize TASK --generator builtin` twice, with --objective time+energy
and with --objective time (plus --energy, so its candidates' energy is measured
and shown but never ranks); the time+energy run gets --energy-extra more
evaluations (default 3: one per energy-knob step of the swish tunable, MATH
0→1→2 and FTZ 0→1), so that after its energy moves it explores the time knobs
as far as the time run does. Then it measures both runs' results again side by
side in fresh `kopt bench --energy --rerun` sessions, in both orders (A B, then
B A), so that drift and temperature act on both alike. Prints (and writes to
--output) a Markdown table: each result's configuration, its median time with
the noise the reward uses (max(relative stdev, IQR/median)), its dynamic energy
per launch (NVML, idle subtracted) with the window spread, and the reduction of
the time+energy result against the time-only one; says whether the two times
are equal within noise.

Usage (from the repository root, on the GPU machine):
  python3 bench/energy_ab.py [--kopt build/src/kopt] [--task examples/tasks/swish]
      [--max-evaluations 5] [--energy-extra 3] [--search greedy] [--seed 15] [--workspace DIR] [--output FILE]
      [--profile] [--json FILE] [--budget-seconds 200] [--kopt-args "--arch sm_90a ..."]
Exit status: 0 when everything ran (whatever the numbers), 1 when a step failed.
Needs python3 >= 3.8 and the kopt binary with its kopt-runner; no other package.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time


def run(command, log):
    started = time.monotonic()
    with open(log, "w") as out:
        result = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT)
    return result.returncode, time.monotonic() - started


def quantity(value):
    return None if value is None else value.get("value")


def optimize(args, objective, name):
    """Runs one optimize; returns (summary dict, best.cu path)."""
    report = os.path.join(args.workspace, f"{name}.optimize.json")
    evaluations = args.max_evaluations + (args.energy_extra if objective == "time+energy" else 0)
    command = [args.kopt, "optimize", args.task, "--generator", "builtin", "--objective", objective,
               "--search", args.search, "--max-evaluations", str(evaluations), "--seed",
               str(args.seed), "--workspace", args.workspace, "--format", "json", "-o", report, "--quiet"]
    command += args.kopt_args.split()
    if objective == "time":
        command.append("--energy")
    if not args.profile:
        command.append("--no-profile")
    code, seconds = run(command, os.path.join(args.workspace, f"{name}.optimize.log"))
    if code != 0 or not os.path.exists(report):
        raise RuntimeError(f"kopt optimize --objective {objective} failed (exit {code}); see "
                           f"{args.workspace}/{name}.optimize.log")
    document = json.load(open(report))
    state = document["run"]
    best = document["best_node"]
    node = state["tree"]["nodes"][best]
    record = state["records"][best]
    best_path = os.path.join(args.workspace, f"{name}.cu")  # the file stem names it in kopt bench
    source = os.path.join(args.workspace, "candidates", record["source_hash"] + ".cu") if best else None
    if source is None:  # nothing beat the reference: measure the reference's source
        source = os.path.join(args.task, "reference.cu")
    shutil.copyfile(source, best_path)
    first_line = open(source).readline().strip()
    configuration = first_line[len("// kopt:config "):] if first_line.startswith("// kopt:config ") else \
        os.path.basename(source)
    chosen = (document.get("energy") or {}).get("chosen_by") or {}
    return {
        "objective": objective,
        "run_id": document["run_id"],
        "best_node": best,
        "reason": record.get("reason", ""),
        "configuration": configuration,
        "time_s": node["time_s"],
        "noise": node["time_noise_fraction"],
        "dynamic_j": node.get("energy_j"),
        "rule": chosen.get("rule", ""),
        "chosen_text": chosen.get("text", ""),
        "evaluations": state["usage"]["evaluations"],
        "seconds": seconds,
        "source": source,
        "gpu": document.get("gpu", ""),
    }, best_path


def noise_of(timing):
    median = quantity(timing["median"])
    iqr = (quantity(timing["q3"]) - quantity(timing["q1"])) / median if median else 0
    return max(quantity(timing["relative_stdev"]), iqr)


def bench(args, files, name):
    """One kopt bench session over `files`; returns {stem: entry summary}."""
    report = os.path.join(args.workspace, f"{name}.bench.json")
    command = [args.kopt, "bench", args.task, *files, "--energy", "--rerun", "--workspace", args.workspace,
               "--seed", str(args.seed), "--format", "json", "-o", report] + args.kopt_args.split()
    code, _ = run(command, os.path.join(args.workspace, f"{name}.bench.log"))
    if not os.path.exists(report):
        raise RuntimeError(f"kopt bench failed (exit {code}); see {args.workspace}/{name}.bench.log")
    document = json.load(open(report))
    entries = {}
    for entry in [document["reference"]] + document["candidates"]:
        timing, energy = entry.get("timing"), entry.get("energy") or {}
        entries[entry["name"]] = {
            "status": entry["status"],
            "time_s": quantity(timing["median"]) if timing else None,
            "noise": noise_of(timing) if timing else None,
            "dynamic_j": quantity(energy.get("dynamic_per_launch")) if energy.get("available") else None,
            "stdev_j": quantity(energy.get("per_launch_stdev")) if energy.get("available") else None,
            "energy_reason": energy.get("reason", ""),
        }
    return entries


def us(seconds):
    return "-" if seconds is None else f"{seconds * 1e6:.2f} µs"


def mj(joules):
    return "-" if joules is None else f"{joules * 1e3:.3f} mJ"


def pct(fraction):
    return "-" if fraction is None else f"{100 * fraction:.2f} %"


def mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kopt", default=os.environ.get("KOPT", "build/src/kopt"))
    parser.add_argument("--task", default="examples/tasks/swish")
    parser.add_argument("--max-evaluations", type=int, default=5)
    parser.add_argument("--search", default="greedy")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--workspace", default="energy_ab_workspace")
    parser.add_argument("--output", default="", help="also write the Markdown table here")
    parser.add_argument("--json", default="", help="write every number here (JSON)")
    parser.add_argument("--energy-extra", type=int, default=3,
                        help="more evaluations for the time+energy run: one per energy-knob step (swish: MATH "
                             "0→1→2, FTZ 0→1), so that it explores the time knobs as far as the time run")
    parser.add_argument("--budget-seconds", type=float, default=200,
                        help="skip the second A/B session (B A) when it would end after this many seconds")
    parser.add_argument("--kopt-args", default="",
                        help="more options for every kopt optimize and kopt bench call, e.g. \"--arch sm_90a\"")
    parser.add_argument("--profile", action="store_true",
                        help="profile parents with ncu (findings and energy predictions; slower)")
    args = parser.parse_args()
    os.makedirs(args.workspace, exist_ok=True)
    try:
        started = time.monotonic()
        energy_run, energy_best = optimize(args, "time+energy", "time_energy_best")
        time_run, time_best = optimize(args, "time", "time_best")
        same = open(energy_best).read() == open(time_best).read()
        session_started = time.monotonic()
        sessions = [bench(args, [energy_best, time_best], "ab1")]
        second_session_seconds = time.monotonic() - session_started
        if not same and time.monotonic() - started + second_session_seconds <= args.budget_seconds:
            sessions.append(bench(args, [time_best, energy_best], "ab2"))
    except RuntimeError as error:
        print(f"energy_ab: {error}", file=sys.stderr)
        return 1

    gpu = energy_run["gpu"] or "an unknown GPU"
    lines = [f"# Matched-speed A/B: {args.task} on {gpu}, "
             f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}", "",
             f"`kopt optimize {args.task} --generator builtin --search {args.search} --seed {args.seed}"
             f"{'' if args.profile else ' --no-profile'}` with `--objective time --energy --max-evaluations "
             f"{args.max_evaluations}` and `--objective time+energy --max-evaluations "
             f"{args.max_evaluations + args.energy_extra}` (one more per energy-knob step), "
             "then both results re-measured in `kopt bench --energy --rerun` sessions "
             f"({'A B, then B A' if len(sessions) == 2 else 'one session: ' + ('the same source' if same else 'no time left for the second')}).", "",
             "| objective | best | configuration | in its run: time ± noise, dynamic energy | rule | "
             "A/B sessions: time ± noise | dynamic energy ± window stdev |",
             "|---|---|---|---|---|---|---|"]
    rows = {}
    for summary, stem in ((energy_run, "time_energy_best"), (time_run, "time_best")):
        measured = [session.get(stem) for session in sessions if session.get(stem)]
        time_s = mean([m["time_s"] for m in measured])
        noise = mean([m["noise"] for m in measured])
        dynamic = mean([m["dynamic_j"] for m in measured])
        stdev = mean([m["stdev_j"] for m in measured])
        rows[stem] = {"time_s": time_s, "noise": noise, "dynamic_j": dynamic, "stdev_j": stdev,
                      "sessions": measured}
        per_session = "; ".join(f"{us(m['time_s'])} ± {pct(m['noise'])}" for m in measured)
        per_energy = "; ".join(f"{mj(m['dynamic_j'])} ± {mj(m['stdev_j'])}" if m["dynamic_j"] is not None
                               else f"unavailable: {m['energy_reason']}" for m in measured)
        lines.append(f"| {summary['objective']} | n{summary['best_node']} (run {summary['run_id']}) | "
                     f"{summary['configuration']} | {us(summary['time_s'])} ± "
                     f"{pct(summary['noise'])}, {mj(summary['dynamic_j'])} | {summary['rule']} | {per_session} | "
                     f"{per_energy} |")
    a, b = rows["time_energy_best"], rows["time_best"]
    lines.append("")
    if same:
        lines.append("Both objectives ended on the same candidate: no reduction to report.")
        reduction = 0.0
        equal = True
    elif a["dynamic_j"] and b["dynamic_j"] and a["time_s"] and b["time_s"]:
        reduction = 1 - a["dynamic_j"] / b["dynamic_j"]
        allowed = max(a["noise"], b["noise"]) * max(a["time_s"], b["time_s"])
        equal = abs(a["time_s"] - b["time_s"]) <= allowed
        lines.append(f"Dynamic energy per launch: time+energy {mj(a['dynamic_j'])}, time {mj(b['dynamic_j'])}: "
                     f"**{100 * reduction:.1f} % less** for the time+energy result (means over the sessions).")
        lines.append(f"Times: {us(a['time_s'])} vs {us(b['time_s'])}, |Δ| = {us(abs(a['time_s'] - b['time_s']))}, "
                     f"noise allows {us(allowed)}: {'equal within noise' if equal else 'NOT equal within noise'}.")
    else:
        reduction, equal = None, None
        lines.append("Energy was not measured for both results (see the energy column): no reduction.")
    lines.append(f"Runs: time+energy {energy_run['evaluations']} evaluations in {energy_run['seconds']:.0f} s "
                 f"(chosen by: {energy_run['chosen_text']}); time {time_run['evaluations']} evaluations in "
                 f"{time_run['seconds']:.0f} s (chosen by: {time_run['chosen_text']}).")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.output:
        with open(args.output, "w") as out:
            out.write(text)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"task": args.task, "gpu": gpu, "runs": [energy_run, time_run],
                       "ab": rows, "same_candidate": same, "reduction_fraction": reduction,
                       "times_equal_within_noise": equal}, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
