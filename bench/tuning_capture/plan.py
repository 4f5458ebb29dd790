#!/usr/bin/env python3
"""Plans the issue-13 capture of large tuning spaces (run.sh).

  plan.py build ROOT WORK TOOL TASK...
                                    for each TASK: WORK/<task>/configs/*.cu (every valid configuration of
                                    examples/tasks/<task>/tunable/<task>_tunable.cu, materialized by
                                    tuning_space_tool), their wrappers and one nvcc command each in
                                    WORK/jobs.txt, WORK/<task>.spec (the task's inputs, seed 11),
                                    WORK/<task>/plan_time.txt (a "reference" line, then every
                                    configuration) and WORK/<task>/plan_profile.txt (every configuration,
                                    one launch each, no reference)
  plan.py metrics ROOT              prints kopt's targeted metric list (src/analysis/collection_metrics.cc),
                                    comma-separated: the metrics kopt's own live collection asks ncu for

Configurations are labelled by their file stem (<task>_tunable__<v1>_<v2>...), the key of the cache.
The libraries are built as `kopt bench` builds them (docs/harness-protocol.md §2, the wrapper of
examples/tasks/check_compile.sh).
"""
import os
import re
import subprocess
import sys
import tomllib

FLAGS = "-O3 -std=c++17 -lineinfo -arch=sm_90a -cudart shared -Xcompiler -fPIC -shared -Xlinker -z,defs"


def selfcheck_module(root):
    sys.path.insert(0, os.path.join(root, "examples", "tasks", "tools"))
    import selfcheck  # noqa: E402
    return selfcheck


def f32_tolerance(toml):
    tolerance = toml.get("tolerance", {}).get("f32", {})
    return tolerance.get("rtol", 1e-5), tolerance.get("atol", 1e-5)


def build(root, work, tasks, tool):
    selfcheck = selfcheck_module(root)
    tasks_dir = os.path.join(root, "examples", "tasks")
    nvcc = os.environ.get("NVCC", "nvcc")
    jobs = []
    os.makedirs(work, exist_ok=True)
    for task in tasks:
        task_dir = os.path.join(tasks_dir, task)
        with open(os.path.join(task_dir, "task.toml"), "rb") as f:
            toml = tomllib.load(f)
        scalars = {s["name"]: s["value"] for s in toml.get("scalar", [])}
        spec = os.path.join(work, f"{task}.spec")
        with open(spec, "w") as f:
            f.write(selfcheck.spec_text(toml, scalars, 11, False))
        configs = os.path.join(work, task, "configs")
        os.makedirs(configs, exist_ok=True)
        os.makedirs(os.path.join(work, task, "lib"), exist_ok=True)
        tunable = os.path.join(task_dir, "tunable", f"{task}_tunable.cu")
        subprocess.run([tool, "materialize", task_dir, tunable, configs], check=True, capture_output=True)

        wrappers = {}  # the wrapper is the same for every source of the task but for its #include

        def library(label, source):
            source = os.path.abspath(source)
            if not wrappers:
                wrappers["text"] = subprocess.run(
                    [os.path.join(tasks_dir, "check_compile.sh"), "--wrapper", task_dir, source],
                    capture_output=True, text=True, check=True).stdout
                wrappers["source"] = source
            wrapper = os.path.join(work, task, "lib", label + ".wrapper.cu")
            with open(wrapper, "w") as f:
                f.write(wrappers["text"].replace(f'#include "{wrappers["source"]}"', f'#include "{source}"'))
            lib = os.path.join(work, task, "lib", label + ".so")
            jobs.append(f"{nvcc} {FLAGS} -o {lib} {wrapper} > {lib}.log 2>&1")
            return lib

        rtol, atol = f32_tolerance(toml)
        reference = library("reference", os.path.join(task_dir, "reference.cu"))
        timed = [f"reference {reference} {spec} {rtol} {atol}"]
        profiled = []
        for name in sorted(os.listdir(configs)):
            label = name[:-3]
            lib = library(label, os.path.join(configs, name))
            timed.append(f"{label} {lib} {spec} 1")
            profiled.append(f"{label} {lib} {spec} 1")
        with open(os.path.join(work, task, "plan_time.txt"), "w") as f:
            f.write("\n".join(timed) + "\n")
        with open(os.path.join(work, task, "plan_profile.txt"), "w") as f:
            f.write("\n".join(profiled) + "\n")
        print(f"{task}: {len(profiled)} configurations")
    with open(os.path.join(work, "jobs.txt"), "w") as f:
        f.write("\n".join(jobs) + "\n")


def metrics(root):
    text = open(os.path.join(root, "src", "analysis", "collection_metrics.cc")).read()
    body = text[text.index("kMetrics[] = {"):]
    body = body[:body.index("};")]
    print(",".join(re.findall(r'"([^"]+)"', body)))


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3]), sys.argv[5:], sys.argv[4])
    elif sys.argv[1] == "metrics":
        metrics(sys.argv[2])
    else:
        sys.exit(__doc__)
