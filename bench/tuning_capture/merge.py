#!/usr/bin/env python3
"""Turns a bench/tuning_capture/run.sh result into Kernel Tuner caches with findings.

  merge.py RESULTS KOPT OUT_DIR TASK...

RESULTS is the unpacked tuning/ folder (or several, comma-separated: later ones add chunks and
quality runs). Per TASK: the times and checks of <task>/timing.txt, and the findings of every
configuration: its rows of the ncu raw page (split by Stream, in the order of items_plan_NN.txt)
written as one export and read by `KOPT explain FILE -f json` (the diagnosis a real run would show
the generator: the finding ids, top first). Writes OUT_DIR/<task>.json (the cache format of
search/kernel_tuner_cache.h, read by bench/tuning_simulation) and prints one line per task.
time: the drive's median of 20 calls, each after a 256 MiB L2 flush (ms, Kernel Tuner's unit); kopt_noise: half the
min-max range of those calls over the median; kopt_status: "verified" when the output matched the
task's reference within its f32 tolerance, else "failed"; kopt_reference_time: the reference's
median in the same capture's `kopt bench` quality run (ms).
"""
import csv
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "h200_diff_capture"))
import trim  # noqa: E402  (the one split of a multi-item ncu export by stream)


def read_timing(path):
    checks, times, spreads = {}, {}, {}
    for line in open(path):
        p = line.split()
        if len(p) >= 3 and p[0] == "CHECK":
            checks[p[1]] = p[2] == "ok"
        elif len(p) == 3 and p[0] == "TIME":
            times[p[1]] = float(p[2]) * 1e-3
        elif len(p) == 4 and p[0] == "SPREAD":
            spreads[p[1]] = (float(p[2]) * 1e-3, float(p[3]) * 1e-3)
    return checks, times, spreads


def split_chunk(raw_path, items_path):
    """{label: (header, units, rows)} of one profiled chunk (rows grouped by Stream, as trim.py does)."""
    with gzip.open(raw_path, "rt", newline="") as f:
        rows = list(csv.reader(f))
    if len(rows) < 3:
        return {}
    header, units, data = rows[0], rows[1], rows[2:]
    return {label: (header, units, group) for label, group in zip(trim.items(items_path), trim.by_stream(header, data))}


def findings_of(kopt, export):
    header, units, rows = export
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False, newline="") as f:
        writer = csv.writer(f, quoting=csv.QUOTE_ALL)
        writer.writerow(header)
        writer.writerow(units)
        writer.writerows(rows)
        path = f.name
    try:
        out = subprocess.run([kopt, "explain", path, "-f", "json"], capture_output=True, text=True)
        if out.returncode != 0:
            return None
        kernels = json.loads(out.stdout)["kernels"]
        return [finding["tool"] for finding in kernels[0]["findings"]] if kernels else []
    finally:
        os.unlink(path)


def tunable_parameters(source):
    params = []
    for line in source.splitlines():
        m = re.match(r"\s*//\s*kopt:tune\s+(\w+)\s+values=([\d,]+)", line)
        if m:
            params.append((m.group(1), [int(v) for v in m.group(2).split(",")]))
    return params


def main():
    results = sys.argv[1].split(",")
    kopt, out_dir, tasks = sys.argv[2], sys.argv[3], sys.argv[4:]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for task in tasks:
        checks, times, spreads, exports = {}, {}, {}, {}
        reference_time, device = None, "NVIDIA H200"
        for result in results:
            timing = os.path.join(result, task, "timing.txt")
            if os.path.exists(timing):
                c, t, s = read_timing(timing)
                checks.update(c), times.update(t), spreads.update(s)
            for raw in sorted(glob.glob(os.path.join(result, task, "raw_plan_*.csv.gz"))):
                chunk = os.path.basename(raw)[len("raw_"):-len(".csv.gz")]
                exports.update(split_chunk(raw, os.path.join(result, task, f"items_{chunk}.txt")))
            bench = os.path.join(result, "quality", f"{task}.bench.json")
            if os.path.exists(bench):
                report = json.load(open(bench))
                reference_time = report["reference"]["timing"]["median"]["value"] * 1e3
                device = report.get("device", {}).get("name", device) if isinstance(report.get("device"), dict) else device
        labels = sorted(times)
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            findings = dict(zip(labels, pool.map(lambda l: findings_of(kopt, exports[l]) if l in exports else None,
                                                 labels)))
        source_rel = f"examples/tasks/{task}/tunable/{task}_tunable.cu"
        params = tunable_parameters(open(os.path.join(root, source_rel)).read())
        with open(os.path.join(root, "examples", "tasks", task, "task.toml"), "rb") as f:
            toml = tomllib.load(f)
        scalars = {s["name"]: float(s["value"]) for s in toml.get("scalar", [])}
        cache = {}
        for label in labels:
            values = [int(v) for v in label.split("__", 1)[1].split("_")]
            key = ",".join(str(v) for v in values)
            low, high = spreads.get(label, (times[label], times[label]))
            entry = {name: value for (name, _), value in zip(params, values)}
            entry.update({"time": times[label], "times": [], "compile_time": 0, "verification_time": 0,
                          "benchmark_time": 0.0, "strategy_time": 0, "framework_time": 0, "timestamp": "",
                          "kopt_status": "verified" if checks.get(label) else "failed",
                          "kopt_noise": (high - low) / 2 / times[label],
                          "kopt_findings": findings[label] or []})
            cache[key] = entry
        document = {"device_name": device, "kernel_name": task,
                    "problem_size": [int(v) for v in scalars.values()],
                    "tune_params_keys": [name for name, _ in params],
                    "tune_params": {name: values for name, values in params}, "objective": "time",
                    "kopt_reference_time": reference_time, "kopt_source": source_rel, "kopt_scalars": scalars,
                    "cache": cache}
        with open(os.path.join(out_dir, f"{task}.json"), "w") as f:
            json.dump(document, f, indent=1)
        profiled = sum(1 for l in labels if findings[l] is not None)
        with_findings = sum(1 for l in labels if findings[l])
        print(f"{task}: {len(cache)} configurations, {profiled} profiled, {with_findings} with findings, "
              f"{sum(1 for l in labels if checks.get(l))} verified")


if __name__ == "__main__":
    main()
