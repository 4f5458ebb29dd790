#!/usr/bin/env python3
"""Plans the issue-14 capture (run.sh): wrappers, nvcc jobs, spec files and driver plans.

  plan.py build ROOT WORK   writes WORK/src/*.wrapper.cu, WORK/jobs.txt (one nvcc command per line),
                            WORK/spec/*.spec, WORK/plan_time.txt (every reference and candidate),
                            WORK/plan_sweep_<kernel>.txt (the sweeps), WORK/plan_repeat.txt
                            (three references, 3 launches each: the noise of every metric)
  plan.py pick WORK TIMES   writes WORK/plan_pairs.txt: per task the reference and its fastest
                            candidate by the event times in TIMES ("TIME LABEL US" lines); a task whose
                            candidates have no time falls back to the first candidate
  plan.py pairs ROOT WORK   round 2 (pairs.sh): per task the reference and its BEST entry below (the
                            fastest candidate kopt bench measured, hand-written or a tuned
                            configuration), or, for a task without one, every hand-written candidate
                            (pairs.sh picks the fastest by cold time); writes the wrappers, WORK/jobs.txt,
                            WORK/plan_time.txt (a "reference" check line per task, then its items) and
                            WORK/best_fixed.txt ("TASK LABEL" of the fixed picks)
Sweeps (values in the labels, "name=value" joined by "_", so that file names carry them):
  saxpy_tunable   n = 2^12 .. 2^26 (8 sizes, step 4x) x BLOCK_SIZE 128, 256, 512, 1024
  softmax_tunable rows = 128 .. 16384 (7 sizes), cols 4096 x THREADS_PER_ROW 128, 256, 512, 1024
                  (VEC 4, ITEMS = 4096 / (4 * THREADS_PER_ROW): the register path)
"""
import math
import os
import subprocess
import sys
import tomllib

FLAGS = "-O3 -std=c++17 -lineinfo -arch=sm_90a -cudart shared -Xcompiler -fPIC -shared -Xlinker -z,defs -Xptxas -v"


# The fastest candidate per task (bench/results/builtin_tuning/quality.md, issue 13: `kopt bench`, cold
# L2, median of 20, --seeds 2): a tuned configuration of examples/tasks/<task>/tunable/<task>_tunable.cu
# (values in declaration order) where it beat every hand-written candidate, else the hand-written one.
# swish (issue 15) has no such measurement: its hand-written candidates are timed and the fastest taken.
BEST = {
    "gelu": ("tunable", "256_2_4"),  # 67.5 us; gelu_vec4 72.1
    "gemm_bf16": ("tunable", "4_4_2_2_32"),  # 1081.3; gemm_bf16_wmma 1295.2
    "gemm_f32": ("candidate", "gemm_register_blocked"),  # 497.0; tuned 128_128_16_8_8_0 537.8
    "layernorm": ("tunable", "512_1_4_2"),  # 69.3; layernorm_registers 69.7
    "reduce_sum": ("candidate", "reduce_sum_atomic"),  # 72.8; tuned 512_4_4_2 73.9
    "saxpy": ("tunable", "256_4_4"),  # 7.0; saxpy_vec4 7.3
    "softmax": ("tunable", "512_1_2_4"),  # 68.3; softmax_registers 68.9
    "stencil2d": ("tunable", "128_2_4_4"),  # 140.6; stencil2d_smem_tile 215.6
    "transpose": ("tunable", "64_4_1"),  # 138.1; transpose_smem_tile 152.2
}


def tunable_parameters(source_text):
    """(name, kind, option) per `// kopt:tune` / `// kopt:flag` line, in declaration order."""
    parameters = []
    for line in source_text.splitlines():
        words = line.split()
        if len(words) >= 3 and words[0] == "//" and words[1] in ("kopt:tune", "kopt:flag"):
            option = next((w[len("option="):] for w in words[3:] if w.startswith("option=")), None)
            parameters.append((words[2], words[1], option))
    return parameters


def materialize(source_text, values):
    """The candidate source kopt bench compiles for one configuration: TuningSpace::Materialize's
    prelude (src/harness/tuning_space.cc: a `// kopt:config` line, one #define per parameter, the
    `// kopt:nvcc` line of the flag knobs that are on, `#line 1`), then the seed source."""
    parameters = tunable_parameters(source_text)
    assert len(parameters) == len(values), (parameters, values)
    prelude = "// kopt:config " + " ".join(f"{name}={value}" for (name, _, _), value in zip(parameters, values)) + "\n"
    flags = []
    for (name, kind, option), value in zip(parameters, values):
        prelude += f"#define {name} {value}\n"
        if kind == "kopt:flag" and option:
            if "{}" in option:
                flags.append(option.replace("{}", str(value)))
            elif int(value) != 0:
                flags.append(option)
    if flags:
        prelude += "// kopt:nvcc " + " ".join(flags) + "\n"
    return prelude + "#line 1\n" + source_text


def candidate_flags(source_text):
    """The words of the source's `// kopt:nvcc` lines (the harness appends them after its own flags)."""
    flags = []
    for line in source_text.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] == "//" and words[1] == "kopt:nvcc":
            flags += [w for w in words[2:] if w not in flags]
    return flags


def load_selfcheck(root):
    sys.path.insert(0, os.path.join(root, "examples", "tasks", "tools"))
    import selfcheck  # noqa: E402  (spec_text: the spec format the driver reads)
    return selfcheck


def task_toml(root, task):
    with open(os.path.join(root, "examples", "tasks", task, "task.toml"), "rb") as f:
        return tomllib.load(f)


def main_scalars(toml):
    return {s["name"]: s["value"] for s in toml.get("scalar", [])}


def build(root, work):
    selfcheck = load_selfcheck(root)
    tasks_dir = os.path.join(root, "examples", "tasks")
    for sub in ("src", "lib", "spec", "ptxas"):
        os.makedirs(os.path.join(work, sub), exist_ok=True)
    jobs, plan_time = [], []
    nvcc = os.environ.get("NVCC", "nvcc")

    def add_library(label, task, source, defines=""):
        wrapper = os.path.join(work, "src", label + ".wrapper.cu")
        text = subprocess.run([os.path.join(tasks_dir, "check_compile.sh"), "--wrapper", os.path.join(tasks_dir, task),
                               source], capture_output=True, text=True, check=True).stdout
        with open(wrapper, "w") as f:
            f.write(text)
        lib = os.path.join(work, "lib", label + ".so")
        ptxas = os.path.join(work, "ptxas", label + ".txt")
        jobs.append(f"{nvcc} {FLAGS} {defines} -o {lib} {wrapper} > {ptxas} 2>&1")
        return lib

    def add_spec(name, toml, scalars):
        path = os.path.join(work, "spec", name + ".spec")
        with open(path, "w") as f:
            f.write(selfcheck.spec_text(toml, scalars, 11, False))
        return path

    tasks = sorted(d for d in os.listdir(tasks_dir) if os.path.isfile(os.path.join(tasks_dir, d, "task.toml")))
    for task in tasks:
        toml = task_toml(root, task)
        spec = add_spec(task, toml, main_scalars(toml))
        lib = add_library(f"{task}__reference", task, os.path.join(tasks_dir, task, "reference.cu"))
        plan_time.append(f"{task}__reference {lib} {spec} 1")
        for name in sorted(os.listdir(os.path.join(tasks_dir, task, "candidates"))):
            label = f"{task}__{name[:-3]}"
            lib = add_library(label, task, os.path.join(tasks_dir, task, "candidates", name))
            plan_time.append(f"{label} {lib} {spec} 1")

    sweeps = {
        "saxpy_tunable": ("saxpy", [("n", 4 ** k * 4096) for k in range(8)],
                          [(f"block={b}", f"-DBLOCK_SIZE={b}") for b in (128, 256, 512, 1024)]),
        "softmax_tunable": ("softmax", [("rows", r) for r in (128, 512, 1024, 2048, 4096, 8192, 16384)],
                            [(f"block={t}", f"-DTHREADS_PER_ROW={t} -DVEC=4 -DITEMS={4096 // (4 * t)}")
                             for t in (128, 256, 512, 1024)]),
    }
    for kernel, (task, sizes, blocks) in sweeps.items():
        toml = task_toml(root, task)
        source = os.path.join(tasks_dir, task, "tunable", kernel + ".cu")
        plan = []
        for block_label, defines in blocks:
            lib = add_library(f"{kernel}__{block_label.replace('=', '')}", task, source, defines)
            for name, value in sizes:
                scalars = main_scalars(toml)
                scalars[name] = value
                point = f"{name}={value}_{block_label}"
                spec = add_spec(f"{kernel}__{point}", toml, scalars)
                plan.append(f"{point} {lib} {spec} 1")
        with open(os.path.join(work, f"plan_sweep_{kernel}.txt"), "w") as f:
            f.write("\n".join(plan) + "\n")
    # Noise: three references profiled 3 times each (same process, same stream): the spread of every
    # metric between identical launches.
    with open(os.path.join(work, "plan_repeat.txt"), "w") as f:
        for line in plan_time:
            label, lib, spec, _ = line.split()
            if label in ("saxpy__reference", "gelu__reference", "transpose__reference"):
                f.write(f"{label} {lib} {spec} 3\n")
    with open(os.path.join(work, "jobs.txt"), "w") as f:
        f.write("\n".join(jobs) + "\n")
    with open(os.path.join(work, "plan_time.txt"), "w") as f:
        f.write("\n".join(plan_time) + "\n")
    print(f"{len(jobs)} libraries, {len(plan_time)} timed items, sweeps: {', '.join(sweeps)}")


def pairs(root, work):
    selfcheck = load_selfcheck(root)
    tasks_dir = os.path.join(root, "examples", "tasks")
    for sub in ("src", "lib", "spec", "ptxas"):
        os.makedirs(os.path.join(work, sub), exist_ok=True)
    nvcc = os.environ.get("NVCC", "nvcc")
    jobs, plan_time, fixed = [], [], []

    def add_library(label, task, text):
        source = os.path.join(work, "src", label + ".cu")
        with open(source, "w") as f:
            f.write(text)
        wrapper = os.path.join(work, "src", label + ".wrapper.cu")
        wrapped = subprocess.run([os.path.join(tasks_dir, "check_compile.sh"), "--wrapper",
                                  os.path.join(tasks_dir, task), source], capture_output=True, text=True,
                                 check=True).stdout
        with open(wrapper, "w") as f:
            f.write(wrapped)
        lib = os.path.join(work, "lib", label + ".so")
        ptxas = os.path.join(work, "ptxas", label + ".txt")
        extra = " ".join(candidate_flags(text))
        jobs.append(f"{nvcc} {FLAGS} {extra} -o {lib} {wrapper} > {ptxas} 2>&1")
        return lib

    tasks = sorted(d for d in os.listdir(tasks_dir) if os.path.isfile(os.path.join(tasks_dir, d, "task.toml")))
    for task in tasks:
        toml = task_toml(root, task)
        spec = os.path.join(work, "spec", task + ".spec")
        with open(spec, "w") as f:
            f.write(selfcheck.spec_text(toml, main_scalars(toml), 11, False))
        tolerance = toml.get("tolerance", {}).get("f32", {})
        reference = add_library(f"{task}__reference", task,
                                open(os.path.join(tasks_dir, task, "reference.cu")).read())
        plan_time.append(f"reference {reference} {spec} {tolerance.get('rtol', 1e-4)} {tolerance.get('atol', 1e-5)}")
        plan_time.append(f"{task}__reference {reference} {spec} 1")
        kind, name = BEST.get(task, (None, None))
        if kind == "tunable":
            seed = open(os.path.join(tasks_dir, task, "tunable", f"{task}_tunable.cu")).read()
            label = f"{task}__{task}_tunable__{name}"
            lib = add_library(label, task, materialize(seed, name.split("_")))
            entries = [label]
        elif kind == "candidate":
            label = f"{task}__{name}"
            lib = add_library(label, task, open(os.path.join(tasks_dir, task, "candidates", name + ".cu")).read())
            entries = [label]
        else:
            entries = []
            for file in sorted(os.listdir(os.path.join(tasks_dir, task, "candidates"))):
                label = f"{task}__{file[:-3]}"
                lib = add_library(label, task, open(os.path.join(tasks_dir, task, "candidates", file)).read())
                plan_time.append(f"{label} {lib} {spec} 1")
            continue
        plan_time.append(f"{entries[0]} {lib} {spec} 1")
        fixed.append(f"{task} {entries[0]}")
    with open(os.path.join(work, "jobs.txt"), "w") as f:
        f.write("\n".join(jobs) + "\n")
    with open(os.path.join(work, "plan_time.txt"), "w") as f:
        f.write("\n".join(plan_time) + "\n")
    with open(os.path.join(work, "best_fixed.txt"), "w") as f:
        f.write("\n".join(fixed) + "\n")
    print(f"{len(jobs)} libraries, {len(tasks)} tasks")


def pick(work, times_path):
    times = {}
    if os.path.exists(times_path):
        for line in open(times_path):
            parts = line.split()
            if len(parts) == 3 and parts[0] == "TIME":
                times[parts[1]] = float(parts[2])
    by_task = {}
    for line in open(os.path.join(work, "plan_time.txt")):
        if not line.strip() or line.startswith("reference "):
            continue
        label = line.split()[0]
        task, name = label.split("__", 1)
        by_task.setdefault(task, []).append((name, line.strip()))
    plan = []
    for task, items in by_task.items():
        reference = next(line for name, line in items if name == "reference")
        candidates = [(times.get(f"{task}__{name}", math.inf), line) for name, line in items if name != "reference"]
        best = min(candidates, key=lambda c: c[0])[1] if candidates else None
        plan.append(reference)
        if best:
            plan.append(best)
    with open(os.path.join(work, "plan_pairs.txt"), "w") as f:
        f.write("\n".join(plan) + "\n")
    print("\n".join(line.split()[0] for line in plan))


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3]))
    elif sys.argv[1] == "pairs":
        pairs(os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3]))
    elif sys.argv[1] == "pick":
        pick(os.path.abspath(sys.argv[2]), sys.argv[3])
    else:
        sys.exit("usage: plan.py build ROOT WORK | pairs ROOT WORK | pick WORK TIMES")
