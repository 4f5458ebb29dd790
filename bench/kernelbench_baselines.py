#!/usr/bin/env python3
"""The three PyTorch baselines of KernelBench problems, timed by kopt's protocol.

For each problem file (`class Model`, `get_inputs`, `get_init_inputs`):

  eager     PyTorch as the problem states it, TF32 off (matmul and cuDNN)
  tf32      the same with TF32 allowed (KernelBench-Verified's baseline)
  compile   torch.compile(model) in its default mode, TF32 off

each timed the way kopt's runner times a candidate (docs/harness-protocol.md,
src/measure/measure.h defaults): a warm-up, then samples with a cold L2 (a
256 MiB buffer written before every sample), CUDA events around the call,
at least --min-samples, stopping when the relative standard deviation is at
most --max-noise or --timing-seconds of GPU time were spent; the median is
reported. The model is built as KernelBench builds it (seed 42, on the GPU)
and called under torch.no_grad() on the problem's own get_inputs() values.

Also per mode: the peak device memory of a call (bytes allocated by PyTorch's
caching allocator at its peak, the L2 flush buffer excluded: inputs,
parameters, output and workspace), and the largest absolute difference of
its output from eager's (tf32 and compile are other numerics).

torch.compile's first call compiles (seconds). Phase 1 compiles every
problem in --compile-workers parallel processes into a shared inductor cache
(TORCHINDUCTOR_CACHE_DIR); phase 2 measures the problems one at a time, each
in its own process (a problem that fails, hangs past --problem-timeout or
runs out of memory is recorded as such, the rest go on), where compile's
first call reads the cache. --budget-seconds bounds the whole run: problems
not reached are listed as such.

Writes DIR/baselines.json (schema kopt.kernelbench.baselines/1, times in
microseconds, memory in bytes) and DIR/baselines.md (the table).

Usage: kernelbench_baselines.py --out DIR [options] PROBLEM.py|LEVEL_DIR[@N]...
(LEVEL_DIR@N: its first N problems in KernelBench's numeric order)
Exit: 0 when at least one problem was measured, 3 without torch or a GPU.
"""
import argparse
import concurrent.futures
import json
import math
import os
import statistics
import subprocess
import sys
import time

SCHEMA = "kopt.kernelbench.baselines/1"
MODES = ("eager", "tf32", "compile")
FLUSH_BYTES = 256 * 1024 * 1024


def load_problem(path):
    ns = {"__name__": "kopt_kernelbench_problem", "__file__": path}
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), ns)
    return ns


def to_device(value, device):
    import torch
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, (list, tuple)):
        return type(value)(to_device(v, device) for v in value)
    return value


def first_tensors(value):
    """The output's tensors, flattened (a model may return a tuple)."""
    import torch
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in first_tensors(v)]
    return []


def set_tf32(allowed):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = allowed
    torch.backends.cudnn.allow_tf32 = allowed


def build(path):
    """(model, inputs) on the GPU, the way KernelBench builds them."""
    import torch
    ns = load_problem(path)
    device = torch.device("cuda")
    torch.manual_seed(42)
    torch.cuda.manual_seed(42)
    init_inputs = ns["get_init_inputs"]()
    torch.manual_seed(42)
    torch.cuda.manual_seed(42)
    model = ns["Model"](*init_inputs).to(device)
    torch.manual_seed(43)
    inputs = to_device(ns["get_inputs"](), device)
    return model, inputs


def time_call(fn, flush, args):
    """kopt's protocol: warm-up, cold-L2 samples, median (microseconds)."""
    import torch
    warm_start = time.perf_counter()
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    while time.perf_counter() - warm_start < args.warmup_seconds:
        fn()
        torch.cuda.synchronize()
    times = []
    gpu_seconds = 0.0
    stop = "max_samples"
    while len(times) < args.max_samples:
        flush.fill_(1.0)
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        seconds = start.elapsed_time(end) * 1e-3
        times.append(seconds)
        gpu_seconds += seconds
        if len(times) >= args.min_samples:
            mean = statistics.fmean(times)
            if mean > 0 and statistics.pstdev(times) / mean <= args.max_noise:
                stop = "noise"
                break
            if gpu_seconds >= args.timing_seconds:
                stop = "timeout"
                break
    mean = statistics.fmean(times)
    return {"median_us": statistics.median(times) * 1e6, "q1_us": quantile(times, 0.25) * 1e6,
            "q3_us": quantile(times, 0.75) * 1e6, "samples": len(times),
            "relative_stdev": statistics.pstdev(times) / mean if mean > 0 else 0.0, "stop_reason": stop}


def quantile(values, q):
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def max_difference(a, b):
    import torch
    worst = 0.0
    for x, y in zip(first_tensors(a), first_tensors(b)):
        if x.shape != y.shape:
            return math.inf
        if x.dtype == torch.bool or not x.is_floating_point():
            worst = max(worst, float((x != y).sum().item()))
            continue
        worst = max(worst, float((x.double() - y.double()).abs().max().item()) if x.numel() else 0.0)
    return worst


def measure_problem(path, args):
    """Every mode of one problem (runs in its own process)."""
    import torch
    flush = torch.empty(FLUSH_BYTES // 4, dtype=torch.float32, device="cuda")
    model, inputs = build(path)
    result = {"problem": path, "modes": {}}
    reference = None
    with torch.no_grad():
        for mode in MODES:
            set_tf32(mode == "tf32")
            try:
                runnable = model
                compile_seconds = None
                if mode == "compile":
                    runnable = torch.compile(model)
                    started = time.perf_counter()
                    runnable(*inputs)
                    torch.cuda.synchronize()
                    compile_seconds = time.perf_counter() - started
                output = runnable(*inputs)
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
                before = torch.cuda.memory_allocated()
                output = runnable(*inputs)
                torch.cuda.synchronize()
                peak = torch.cuda.max_memory_allocated() - FLUSH_BYTES
                row = time_call(lambda: runnable(*inputs), flush, args)
                row["peak_memory_bytes"] = peak
                row["resident_bytes_before_call"] = before - FLUSH_BYTES
                if compile_seconds is not None:
                    row["first_call_seconds"] = compile_seconds
                if reference is None:
                    reference = output
                else:
                    row["max_abs_difference_from_eager"] = max_difference(reference, output)
                result["modes"][mode] = row
            except Exception as error:  # one mode failing is a result, not the end of the problem
                result["modes"][mode] = {"error": f"{type(error).__name__}: {str(error)[:300]}"}
    set_tf32(False)
    return result


def precompile_problem(path):
    import torch
    model, inputs = build(path)
    started = time.perf_counter()
    with torch.no_grad():
        torch.compile(model)(*inputs)
    torch.cuda.synchronize()
    return {"problem": path, "compile_seconds": time.perf_counter() - started}


def problem_files(paths):
    files = []
    for path in paths:
        if os.path.isdir(path):
            found = [os.path.join(path, f) for f in os.listdir(path) if f.endswith(".py") and f != "__init__.py"]
            files.extend(sorted(found, key=problem_order))
        else:
            files.append(path)
    return files


def problem_order(path):
    stem = os.path.basename(path)
    number = stem.split("_", 1)[0]
    return (int(number) if number.isdigit() else 1 << 30, stem)


def child(args):
    """One problem in this process: prints one JSON line."""
    try:
        if args.child_mode == "precompile":
            record = precompile_problem(args.child)
        else:
            record = measure_problem(args.child, args)
    except Exception as error:
        record = {"problem": args.child, "error": f"{type(error).__name__}: {str(error)[:300]}"}
    print("KOPT-RESULT " + json.dumps(record), flush=True)
    return 0


def run_child(path, mode, args, timeout):
    command = [sys.executable, os.path.abspath(__file__), "--child", path, "--child-mode", mode,
               "--timing-seconds", str(args.timing_seconds), "--min-samples", str(args.min_samples),
               "--max-samples", str(args.max_samples), "--max-noise", str(args.max_noise),
               "--warmup-seconds", str(args.warmup_seconds), "--out", args.out]
    started = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"problem": path, "error": f"timed out after {timeout:.0f} s"}
    for line in done.stdout.splitlines():
        if line.startswith("KOPT-RESULT "):
            record = json.loads(line[len("KOPT-RESULT "):])
            record["process_seconds"] = time.perf_counter() - started
            return record
    tail = (done.stderr or "").strip().splitlines()[-3:]
    return {"problem": path, "error": f"exit {done.returncode}: " + " | ".join(tail)[:400]}


SUITE_NAMES = {"eager": "eager", "tf32": "tf32", "compile": "torch_compile"}


def write_task_baselines(record, report):
    """Writes the task's baselines.json in the form `kopt suite` reads (kopt.baselines v1, seconds)."""
    baselines = []
    for mode, suite_name in SUITE_NAMES.items():
        row = record.get("modes", {}).get(mode, {})
        if "median_us" in row:
            entry = {"name": suite_name, "time_s": row["median_us"] * 1e-6}
            if "peak_memory_bytes" in row:
                entry["peak_memory_bytes"] = row["peak_memory_bytes"]
            baselines.append(entry)
        else:
            reason = row.get("error") or record.get("error") or "not measured"
            baselines.append({"name": suite_name, "note": str(reason)[:200]})
    document = {"schema": "kopt.baselines", "schema_version": 1, "gpu": report["gpu"],
                "source": "bench/kernelbench_baselines.py (kopt's timing protocol: cold L2, CUDA events, "
                          "noise-based stopping, median)", "baselines": baselines}
    with open(os.path.join(os.path.dirname(record["path"]), "baselines.json"), "w") as f:
        json.dump(document, f, indent=1)


def name_of(path):
    if os.path.basename(path) == "problem.py":  # an imported task's copy: the task's directory names it
        return os.path.basename(os.path.dirname(os.path.abspath(path)))
    level = os.path.basename(os.path.dirname(os.path.abspath(path)))
    stem = os.path.splitext(os.path.basename(path))[0]
    return f"{level}/{stem}" if level.startswith("level") else stem


def cell(row, key, digits="{:.1f}"):
    if row is None or "error" in row or key not in row:
        return "-"
    return digits.format(row[key])


def markdown(report):
    lines = [f"# PyTorch baselines of KernelBench problems (kopt's timing protocol)", "",
             f"GPU: {report['gpu']} · torch {report['torch']} · cold L2, CUDA events, median of ≥ "
             f"{report['settings']['min_samples']} samples (stop at {report['settings']['max_noise']:.3%} "
             f"relative stdev or {report['settings']['timing_seconds']} GPU-s) · eager and compile: TF32 off", "",
             "| problem | eager µs | tf32 µs | compile µs | eager/tf32 | eager/compile | eager peak MiB | "
             "compile peak MiB | tf32 max abs diff | compile max abs diff | note |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for record in report["problems"]:
        modes = record.get("modes", {})
        eager, tf32, comp = (modes.get(m) for m in MODES)
        note = record.get("error", "")
        for mode in MODES:
            if modes.get(mode, {}).get("error"):
                note += f" {mode}: {modes[mode]['error'][:80]}"

        def ratio(other):
            if not eager or not other or "median_us" not in eager or "median_us" not in other:
                return "-"
            return f"{eager['median_us'] / other['median_us']:.2f}×"

        def mib(row):
            return "-" if not row or "peak_memory_bytes" not in row else f"{row['peak_memory_bytes'] / 2**20:.1f}"

        lines.append(f"| {record['name']} | {cell(eager, 'median_us')} | {cell(tf32, 'median_us')} | "
                     f"{cell(comp, 'median_us')} | {ratio(tf32)} | {ratio(comp)} | {mib(eager)} | {mib(comp)} | "
                     f"{cell(tf32, 'max_abs_difference_from_eager', '{:.2g}')} | "
                     f"{cell(comp, 'max_abs_difference_from_eager', '{:.2g}')} | {note.strip()} |")
    measured = [r for r in report["problems"] if "median_us" in r.get("modes", {}).get("eager", {})]
    lines += ["", f"{len(measured)} of {len(report['problems'])} problems measured; "
              f"{len(report['not_reached'])} not reached within the budget; run took {report['wall_seconds']:.0f} s."]
    for mode in ("tf32", "compile"):
        ratios = [r["modes"]["eager"]["median_us"] / r["modes"][mode]["median_us"] for r in measured
                  if "median_us" in r["modes"].get(mode, {})]
        if ratios:
            geomean = math.exp(statistics.fmean(math.log(x) for x in ratios))
            lines.append(f"geomean eager/{mode}: {geomean:.3f}× over {len(ratios)} problems")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--out", required=True)
    parser.add_argument("--timing-seconds", type=float, default=0.5)
    parser.add_argument("--warmup-seconds", type=float, default=0.05)
    parser.add_argument("--min-samples", type=int, default=10)
    parser.add_argument("--max-samples", type=int, default=1000)
    parser.add_argument("--max-noise", type=float, default=0.005)
    parser.add_argument("--compile-workers", type=int, default=4)
    parser.add_argument("--problem-timeout", type=float, default=90)
    parser.add_argument("--budget-seconds", type=float, default=330)
    parser.add_argument("--task-baselines", action="store_true",
                        help="the paths are imported kopt tasks (directories holding problem.py): write each "
                             "one's baselines.json (kopt.baselines version 1, docs/suite.md) for kopt suite")
    parser.add_argument("--child")
    parser.add_argument("--child-mode", default="measure")
    args = parser.parse_args()
    if args.child:
        return child(args)
    try:
        import torch
    except ImportError:
        print("torch is not installed", file=sys.stderr)
        return 3
    if not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return 3
    os.makedirs(args.out, exist_ok=True)
    started = time.perf_counter()
    deadline = started + args.budget_seconds
    files = []
    for path in args.paths:
        limit = 0
        if "@" in path and path.rsplit("@", 1)[1].isdigit():
            path, limit = path.rsplit("@", 1)[0], int(path.rsplit("@", 1)[1])
        found = [os.path.join(path, "problem.py")] if args.task_baselines else problem_files([path])
        files.extend(found[:limit] if limit > 0 else found)
    # Phase 1: compile into the shared inductor cache, in parallel, within 45 % of the budget.
    compile_deadline = started + 0.45 * args.budget_seconds
    compiled = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.compile_workers) as pool:
        futures = {}
        for path in files:
            futures[pool.submit(lambda p=path: run_child(p, "precompile", args, max(
                1.0, min(args.problem_timeout, compile_deadline - time.perf_counter()))))] = path
        for future in concurrent.futures.as_completed(futures):
            compiled[futures[future]] = future.result()
            print(f"precompiled {name_of(futures[future])}: {compiled[futures[future]]}", file=sys.stderr, flush=True)
    # Phase 2: measure, one problem at a time.
    problems, not_reached = [], []
    for path in files:
        left = deadline - time.perf_counter()
        if left < 5:
            not_reached.append(name_of(path))
            continue
        record = run_child(path, "measure", args, min(args.problem_timeout, left))
        record["name"] = name_of(path)
        record["path"] = path
        record["precompile"] = compiled.get(path)
        problems.append(record)
        eager = record.get("modes", {}).get("eager", {})
        print(f"measured {record['name']}: eager {eager.get('median_us', '-')} µs {record.get('error', '')}",
              file=sys.stderr, flush=True)
    report = {"schema": SCHEMA, "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
              "settings": {k: getattr(args, k) for k in ("timing_seconds", "warmup_seconds", "min_samples",
                                                         "max_samples", "max_noise")},
              "units": {"time": "microseconds", "memory": "bytes"},
              "problems": problems, "not_reached": not_reached, "wall_seconds": time.perf_counter() - started}
    with open(os.path.join(args.out, "baselines.json"), "w") as f:
        json.dump(report, f, indent=1)
    if args.task_baselines:
        for record in problems:
            write_task_baselines(record, report)
    with open(os.path.join(args.out, "baselines.md"), "w") as f:
        f.write(markdown(report))
    print(markdown(report))
    return 0 if any("median_us" in r.get("modes", {}).get("eager", {}) for r in problems) else 1


if __name__ == "__main__":
    sys.exit(main())
