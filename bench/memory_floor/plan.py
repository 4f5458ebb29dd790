#!/usr/bin/env python3
"""Plans bench/memory_floor/run.sh: the issue-13 memory-floor sweep of reduce_sum and stencil2d.

  plan.py ROOT WORK ROUND
                        ROUND: 1 or 2 (the item lists ROUND1, ROUND2 below, one per device call);
                        writes WORK/jobs.txt (one nvcc command per library, built as `kopt bench`
                        builds a candidate: the wrapper of examples/tasks/check_compile.sh, the flags
                        of bench/tuning_capture/plan.py, each configuration's parameters as -D),
                        WORK/<task>/time.txt (a "reference" line on the main size, seed 11, then every
                        item: the drive plan of the timed runs) and WORK/<task>/check.txt (per
                        [[variant]] size of task.toml: a reference line, then every candidate item:
                        the correctness plan at the odd sizes, and EXTRA_CHECKS).

Items per task (ROUND1, ROUND2 below): the current best configuration of the committed space, the
hand-written candidates, a small sweep of each new tunable file's knobs, and the probes of this
folder (a same-bytes device-to-device copy; for reduce_sum a pure-read kernel). Labels follow the
tuning caches: <file stem>__<values in declaration order joined by _>.
"""
import os
import sys
import tomllib

FLAGS = "-O3 -std=c++17 -lineinfo -arch=sm_90a -cudart shared -Xcompiler -fPIC -shared -Xlinker -z,defs"

# (source relative to the repository, parameter names in declaration order, list of value tuples)
ROUND1 = {
    "reduce_sum": [
        ("examples/tasks/reduce_sum/tunable/reduce_sum_tunable.cu", ["BLOCK_SIZE", "VEC", "UNROLL", "BLOCKS_PER_SM"],
         [(512, 4, 4, 2), (1024, 2, 4, 2)]),
        ("examples/tasks/reduce_sum/candidates/reduce_sum_atomic.cu", [], [()]),
        ("examples/tasks/reduce_sum/tunable/reduce_sum_stream.cu",
         ["BLOCK_SIZE", "UNROLL", "BLOCKS_PER_SM", "CHUNKED", "HINT"],
         [(512, 8, 2, c, h) for c in (0, 1) for h in (0, 1, 2, 3)] +
         [(256, 16, 2, 1, 1), (1024, 4, 2, 1, 1), (512, 4, 4, 1, 1), (256, 8, 4, 1, 1), (1024, 8, 1, 1, 1),
          (512, 16, 1, 1, 1), (256, 4, 8, 1, 1), (1024, 4, 2, 0, 1), (512, 4, 4, 0, 1), (1024, 4, 2, 1, 0),
          (512, 4, 4, 1, 0)]),
        ("bench/memory_floor/kernels/reduce_sum_bulk.cu",
         ["BLOCK_SIZE", "STAGE_KB", "STAGES", "BLOCKS_PER_SM", "HINT"],
         [(256, 16, 4, 2, 0), (256, 16, 4, 2, 1), (256, 32, 3, 2, 1), (256, 16, 6, 2, 1), (512, 32, 4, 1, 1),
          (128, 8, 8, 3, 1), (256, 8, 8, 2, 1), (256, 16, 3, 4, 1), (512, 16, 8, 1, 1), (256, 32, 6, 1, 1),
          (256, 8, 4, 4, 1), (512, 32, 6, 1, 0)]),
        ("bench/memory_floor/read_probe.cu", ["BLOCKS_PER_SM", "UNROLL", "HINT"],
         [(2, 8, 0), (2, 8, 1), (4, 4, 0), (1, 16, 1)]),
        ("bench/memory_floor/copy_probe_reduce_sum.cu", [], [()]),
    ],
    "stencil2d": [
        ("examples/tasks/stencil2d/tunable/stencil2d_tunable.cu", ["BLOCK_X", "BLOCK_Y", "VEC", "ROWS"],
         [(128, 2, 4, 4), (64, 4, 4, 4)]),
        ("bench/memory_floor/kernels/stencil2d_hint.cu", ["BLOCK_X", "BLOCK_Y", "ROWS", "HINT"],
         [(128, 2, 4, h) for h in (0, 1, 2)] + [(64, 4, 4, 1), (64, 4, 4, 2), (256, 1, 4, 1), (256, 1, 4, 2),
                                               (128, 2, 8, 1), (128, 4, 2, 1), (128, 2, 2, 1), (32, 4, 4, 1)]),
        ("bench/memory_floor/kernels/stencil2d_bulk.cu", ["TILE_W", "ROWS_PER_BLOCK", "STAGES", "STREAM_STORES"],
         [(512, 64, 6, 0), (512, 64, 6, 1), (512, 32, 8, 0), (512, 128, 8, 0), (256, 64, 8, 0), (256, 32, 12, 0),
          (1024, 64, 4, 0), (512, 256, 12, 0), (256, 128, 12, 0), (512, 64, 12, 0), (1024, 32, 6, 0),
          (256, 16, 12, 0), (512, 16, 8, 0)]),
        ("bench/memory_floor/copy_probe_stencil2d.cu", [], [()]),
    ],
}


# Round 2 (device call 2): the winners of round 1 beside the current best, the probes, a copy
# kernel, more knobs around the best streaming reduce_sum, and the pipelined stencil window.
ROUND2 = {
    "reduce_sum": [
        ("examples/tasks/reduce_sum/tunable/reduce_sum_tunable.cu", ["BLOCK_SIZE", "VEC", "UNROLL", "BLOCKS_PER_SM"],
         [(512, 4, 4, 2)]),
        ("examples/tasks/reduce_sum/candidates/reduce_sum_atomic.cu", [], [()]),
        ("examples/tasks/reduce_sum/tunable/reduce_sum_stream.cu",
         ["BLOCK_SIZE", "UNROLL", "BLOCKS_PER_SM", "CHUNKED", "HINT"],
         [(512, 8, 2, 0, 1), (512, 8, 2, 0, 0), (1024, 4, 2, 0, 1), (512, 8, 3, 0, 1), (256, 16, 3, 0, 1),
          (512, 4, 3, 0, 1), (256, 8, 4, 0, 1), (256, 16, 2, 0, 1), (1024, 8, 1, 0, 1), (512, 16, 1, 0, 1),
          (1024, 2, 2, 0, 1), (512, 8, 3, 0, 0)]),
        ("bench/memory_floor/read_probe.cu", ["BLOCKS_PER_SM", "UNROLL", "HINT"],
         [(2, 8, 1), (4, 4, 0), (3, 8, 1), (2, 8, 0)]),
        ("bench/memory_floor/copy_probe_reduce_sum.cu", [], [()]),
    ],
    "stencil2d": [
        ("examples/tasks/stencil2d/tunable/stencil2d_tunable.cu", ["BLOCK_X", "BLOCK_Y", "VEC", "ROWS"],
         [(128, 2, 4, 4), (64, 4, 4, 4)]),
        ("examples/tasks/stencil2d/tunable/stencil2d_pipe.cu", ["BLOCK_X", "ROWS", "PF"],
         [(128, 64, 4), (128, 64, 2), (128, 64, 3), (128, 64, 6), (128, 32, 4), (128, 16, 4), (128, 128, 4),
          (64, 64, 4), (256, 64, 4), (256, 32, 2), (256, 16, 3), (64, 32, 2), (512, 16, 2), (128, 8, 4),
          (64, 128, 3), (256, 128, 2), (128, 32, 8), (64, 16, 6)]),
        ("bench/memory_floor/copy_kernel_probe_stencil2d.cu", ["BLOCKS_PER_SM", "UNROLL"], [(4, 4), (2, 8)]),
        ("bench/memory_floor/copy_probe_stencil2d.cu", [], [()]),
    ],
}
ROUNDS = {"1": ROUND1, "2": ROUND2}

# Sizes checked beside the task's [[variant]]s: stencil2d's variants all have W % 4 != 0 (the bulk
# kernel's fallback path); these take its copy-engine path with a ragged last strip and row block.
EXTRA_CHECKS = {"stencil2d": [{"H": 1000, "W": 1028}, {"H": 67, "W": 1540}]}


def selfcheck_module(root):
    sys.path.insert(0, os.path.join(root, "examples", "tasks", "tools"))
    import selfcheck  # noqa: E402
    return selfcheck


def wrapper_text(toml, source):
    """The wrapper of examples/tasks/check_compile.sh (docs/harness-protocol.md §2)."""
    ctype = {"f64": "double", "f32": "float", "f16": "__half", "bf16": "__nv_bfloat16",
             "i64": "int64_t", "i32": "int32_t", "u8": "uint8_t"}
    stype = {"i32": "int", "i64": "int64_t", "f32": "float", "f64": "double"}
    entry = toml["task"]["entry"]
    params, args = [], []
    for i, t in enumerate(toml.get("tensor", [])):
        c = ctype[t["dtype"]]
        const = "const " if t["role"] == "input" else ""
        params.append(f"{const}{c}* {t['name']}")
        args.append(f"static_cast<{const}{c}*>(tensors[{i}])")
    for i, s in enumerate(toml.get("scalar", [])):
        c = stype[s["type"]]
        params.append(f"{c} {s['name']}")
        args.append(f"*static_cast<const {c}*>(scalars[{i}])")
    params.append("cudaStream_t stream")
    args.append("stream")
    return "\n".join([
        "#include <cstdint>\n#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>",
        f'extern "C" void {entry}({", ".join(params)});',
        f'#include "{source}"',
        'extern "C" int kopt_abi_version(void) { return 1; }',
        'extern "C" void kopt_launch(void* const* tensors, const void* const* scalars, cudaStream_t stream) {',
        f'  {entry}({", ".join(args)});',
        "}", ""])


def main(root, work, items):
    selfcheck = selfcheck_module(root)
    nvcc = os.environ.get("NVCC", "nvcc")
    jobs = []
    for task, groups in items.items():
        task_dir = os.path.join(root, "examples", "tasks", task)
        with open(os.path.join(task_dir, "task.toml"), "rb") as f:
            toml = tomllib.load(f)
        scalars = {s["name"]: s["value"] for s in toml.get("scalar", [])}
        tolerance = toml.get("tolerance", {}).get("f32", {})
        rtol, atol = tolerance.get("rtol", 1e-5), tolerance.get("atol", 1e-5)
        lib_dir = os.path.join(work, task, "lib")
        os.makedirs(lib_dir, exist_ok=True)

        def library(label, source, defines):
            wrapper = os.path.join(lib_dir, label + ".wrapper.cu")
            with open(wrapper, "w") as f:
                f.write(wrapper_text(toml, os.path.join(root, source)))
            lib = os.path.join(lib_dir, label + ".so")
            flags = " ".join(f"-D{k}={v}" for k, v in defines)
            jobs.append(f"{nvcc} {FLAGS} {flags} -o {lib} {wrapper} > {lib}.log 2>&1")
            return lib

        reference = library("reference", os.path.join("examples", "tasks", task, "reference.cu"), [])
        items = []  # (label, lib, is_probe)
        for source, names, configurations in groups:
            stem = os.path.basename(source)[:-3]
            for values in configurations:
                label = stem + ("__" + "_".join(str(v) for v in values) if values else "")
                items.append((label, library(label, source, list(zip(names, values))), "probe" in stem))
        spec = os.path.join(work, f"{task}.spec")
        with open(spec, "w") as f:
            f.write(selfcheck.spec_text(toml, scalars, 11, False))
        with open(os.path.join(work, task, "time.txt"), "w") as f:
            f.write(f"reference {reference} {spec} {rtol} {atol}\n")
            f.writelines(f"{label} {lib} {spec} 1\n" for label, lib, _ in items)
        with open(os.path.join(work, task, "check.txt"), "w") as f:
            for k, variant in enumerate(toml.get("variant", []) + EXTRA_CHECKS.get(task, [])):
                variant_spec = os.path.join(work, f"{task}.variant{k}.spec")
                with open(variant_spec, "w") as g:
                    g.write(selfcheck.spec_text(toml, {**scalars, **variant}, 12 + k, False))
                f.write(f"reference {reference} {variant_spec} {rtol} {atol}\n")
                f.writelines(f"{label} {lib} {variant_spec} 1\n" for label, lib, probe in items if not probe)
        print(f"{task}: {len(items)} items")
    with open(os.path.join(work, "jobs.txt"), "w") as f:
        f.write("\n".join(jobs) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[3] not in ROUNDS:
        sys.exit(__doc__)
    main(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), ROUNDS[sys.argv[3]])
