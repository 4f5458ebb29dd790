#!/usr/bin/env bash
# Issue 37's GPU measurements (docs/tuning.md "GEMM tasks"): the builtin
# generator's CUTLASS path against cuBLAS (through PyTorch) and on KernelBench
# GEMM-class problems, with no LLM.
#
# Steps (STEPS, default "optimize sizes kernelbench"; each writes under $OUT):
#   optimize    `kopt optimize examples/tasks/{gemm_bf16,gemm_f32} --generator
#               builtin` at the tasks' main sizes (EVALUATIONS each, default
#               16; every candidate checked at every variant size of the task):
#               optimize_<task>.json / .md, the run's best.cu.
#   sizes       each task at three sizes, one of them a multiple of no tile
#               (bf16: 4096^3, 8192x8192x4096, 3000x5000x4008; f32: 2048^3,
#               4096^3, 3004x2996x2004: multiples of 4 and of no tile, rows
#               16-byte aligned, as the bf16 one is): a portfolio of configurations of the
#               emitted seed (tuning_space_tool gemm-seed / materialize --keys)
#               plus the optimize step's best.cu, all in one `kopt bench` per
#               size (the task's checks: every variant size too), then
#               PyTorch's call at the same size timed the same way (cold L2,
#               TF32 off): sizes.md (best kopt / PyTorch per size) and the
#               bench JSON reports.
#   kernelbench the KernelBench GEMM-class problems (12 of level 1, 3 of level 2;
#               all recognised by kopt's import probe) imported, their eager
#               and TF32-allowed PyTorch baselines timed
#               (bench/kernelbench_baselines.py --task-baselines), then
#               `kopt suite --generator builtin` over every GPU of the host
#               (KB_EVALUATIONS per problem, default 6; KB_SECONDS per call,
#               default 540: call the step again on the warm machine to
#               resume): suite.md with the speedups against both.
#   simulation  a sub-space of each example task's CUTLASS space (the knobs
#               narrowed with gemm-seed --values: bf16_subspace, f32_subspace
#               below) measured exhaustively by `kopt bench`, turned into a
#               Kernel Tuner cache (tuning_space_tool cache) and replayed
#               (bench/tuning_simulation: guided vs unguided vs random search
#               at equal budgets): simulation.md and caches/*.json.
#
# Needs, carried from the build machine (scripts/device/package_issue37.sh):
# .carry/bin/{kopt,kopt-runner,tuning_space_tool,tuning_simulation} with
# .carry/lib, .carry/cutlass.tar.xz (the nvidia-cutlass wheel's headers, used
# when the wheel is not installed here), .carry/KernelBench/level{1,2} for the
# kernelbench step; nvcc (/usr/local/cuda/bin), python3 with PyTorch.
# Usage (repository root): OUT=DIR [STEPS="..."] [TASKS="gemm_bf16 gemm_f32"] scripts/device/issue37_gemm.sh
# (TASKS limits the optimize and sizes steps to some of the two example tasks.)
# Estimates (not yet measured): optimize about 4-6 minutes and sizes about 5
# on one H100 with 16 CPU cores compiling; kernelbench about 15 on one GPU,
# 5 on four; simulation about 6. Run them as separate calls under the
# 10-minute limit; WORK keeps workspaces (compile caches, runs) between calls
# while the machine stays warm.
set -u
: "${OUT:?set OUT to the results folder}"
root=$PWD
export PATH=/usr/local/cuda/bin:$PATH
STEPS=${STEPS:-optimize sizes kernelbench}
EVALUATIONS=${EVALUATIONS:-16}
KB_EVALUATIONS=${KB_EVALUATIONS:-6}
# Workspaces and imported tasks live under WORK (an ignored folder of the repository, kept while
# the machine stays warm), results under OUT.
WORK=${WORK:-$root/out/issue37}
mkdir -p "$OUT" "$WORK"
summary=$OUT/summary.txt
note() { echo "$*" | tee -a "$summary"; }
command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 || { note "no GPU: skipped"; exit 77; }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nvcc --version | tail -1
  git log --oneline -1 2> /dev/null; } >> "$summary" 2>&1

bin=$root/.carry/bin
lib=$root/.carry/lib
for program in kopt kopt-runner tuning_space_tool tuning_simulation; do
  [ -x "$bin/$program" ] || { note "missing $bin/$program: scripts/device/package_issue37.sh"; exit 2; }
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$lib:/usr/local/cuda/lib64" "$bin/$program" \
    > "$bin/$program-with-libraries"
  chmod +x "$bin/$program-with-libraries"
done
kopt=$bin/kopt-with-libraries
tool=$bin/tuning_space_tool-with-libraries
simulation=$bin/tuning_simulation-with-libraries
export KOPT_RUNNER=$bin/kopt-runner

# The CUTLASS headers: the wheel when installed, else the carried tarball.
if python3 -c "import importlib.util as u, sys; sys.exit(0 if u.find_spec('cutlass_library') else 1)" 2> /dev/null; then
  cutlass=$(python3 -c "import importlib.util as u, os; print(os.path.join(os.path.dirname(u.find_spec('cutlass_library').origin), 'source'))")
else
  cutlass=$(mktemp -d)/cutlass
  mkdir -p "$cutlass"
  tar -xJf "$root/.carry/cutlass.tar.xz" -C "$cutlass" || { note "no CUTLASS headers (.carry/cutlass.tar.xz)"; exit 2; }
fi
note "CUTLASS headers: $cutlass"
measure=(--cutlass-dir "$cutlass" --allow dynamic_loading --jobs "$(nproc)")

# A copy of example task $1 at M=$2 N=$3 K=$4 under $OUT/tasks/ (its variants kept).
sized_task() {
  local task=$1 m=$2 n=$3 k=$4 dir=$OUT/tasks/$1_$2x$3x$4
  rm -rf "$dir"; mkdir -p "$dir"
  cp "examples/tasks/$task/reference.cu" "$dir/"
  python3 - "examples/tasks/$task/task.toml" "$dir/task.toml" "$m" "$n" "$k" << 'PY'
import re, sys
text = open(sys.argv[1]).read()
head, sep, tail = text.partition("[[variant]]")
for name, value in zip("MNK", sys.argv[3:6]):
    head = re.sub(r'(name = "%s"\ntype = "i32"\nvalue = )\d+' % name, r"\g<1>" + value, head)
open(sys.argv[2], "w").write(head + sep + tail)
PY
  echo "$dir"
}

# The portfolio of configurations benched at every size, as Kernel Tuner keys of the emitted seed.
# sm90 (TILE_M,TILE_N,TILE_K,CLUSTER_M,CLUSTER_N,STAGES,SCHEDULE,SCHEDULER,SPLIT,RASTER,SWIZZLE):
bf16_keys="128,256,64,2,1,0,2,0,1,0,1 128,256,64,1,2,0,2,0,1,0,1 256,128,64,2,1,0,2,0,1,0,1 256,128,64,1,2,0,2,0,1,0,1
128,128,64,2,1,0,2,0,1,0,1 128,128,64,2,1,0,1,0,1,0,1 128,128,64,1,2,0,1,0,1,0,1 64,256,64,1,2,0,1,0,1,0,1
128,256,64,2,1,0,2,1,1,0,1 128,256,64,2,1,0,2,0,1,2,4 128,256,64,2,1,3,2,0,1,0,1 128,128,128,2,1,0,2,0,1,0,1"
# sm80 f32 (BLOCK_M,BLOCK_N,BLOCK_K,WARPS_M,WARPS_N,STAGES,SPLIT,SWIZZLE,F32_PATH,ALIGN): SIMT, then 3xTF32.
f32_keys="128,128,8,2,2,4,1,1,0,1 128,128,8,2,2,3,1,1,0,1 256,128,8,4,2,3,1,1,0,1 128,256,8,2,4,3,1,1,0,1
128,64,8,2,2,4,1,1,0,1 64,128,8,2,2,4,1,1,0,1 128,128,16,2,2,3,1,1,0,1 256,128,8,4,2,4,1,2,0,1
128,128,16,2,2,4,1,1,1,4 128,128,32,2,2,3,1,1,1,4 256,128,16,4,2,3,1,1,1,4 128,256,16,2,4,3,1,1,1,4
64,128,16,2,2,4,1,1,1,4 128,128,16,2,2,4,1,1,1,1"

# The sub-spaces the simulation step measures exhaustively (tuning_space_tool gemm-seed --values).
bf16_subspace="--values TILE_M=128,256 --values TILE_N=128,256 --values TILE_K=64 --values STAGES=0 --values SPLIT=1
--values RASTER=0 --values SWIZZLE=1,4"
f32_subspace="--values BLOCK_M=64,128,256 --values BLOCK_N=64,128,256 --values BLOCK_K=8,16 --values WARPS_M=2,4
--values WARPS_N=2,4 --values STAGES=3,4 --values SPLIT=1 --values SWIZZLE=1"

step_optimize() {
  local best
  for task in ${TASKS:-gemm_bf16 gemm_f32}; do
    local start=$SECONDS
    "$kopt" optimize "examples/tasks/$task" --generator builtin --max-evaluations "$EVALUATIONS" --seed 37 \
      -w "$WORK/ws_$task" "${measure[@]}" --timing-seconds 0.5 -f json -q \
      > "$OUT/optimize_$task.json" 2> "$OUT/optimize_$task.log"
    note "optimize $task: exit $?, $((SECONDS - start)) s"
    "$kopt" report -w "$WORK/ws_$task" -f md > "$OUT/optimize_$task.md" 2>> "$OUT/optimize_$task.log"
    best=$(ls -t "$WORK"/ws_"$task"/runs/*/best.cu 2> /dev/null | head -n 1)  # the latest run's
    [ -n "$best" ] && cp "$best" "$WORK/best_$task.cu" && cp "$best" "$OUT/best_$task.cu"
    grep -m3 -i "builtin generator\|best" "$OUT/optimize_$task.md" | tee -a "$summary"
    # Compile cost: every compile the run made (seconds; cache hits included) from the workspace.
    python3 - "$WORK/ws_$task/kopt.db" << 'PY' | tee -a "$summary"
import sqlite3, statistics, sys
rows = sqlite3.connect(sys.argv[1]).execute("SELECT seconds, status FROM compiles").fetchall()
slow = [s for s, _ in rows if s > 2]
print(f"  compiles: {len(rows)} ({len(rows) - len(slow)} under 2 s: cache hits, compiled ahead),"
      f" nvcc median {statistics.median(slow):.1f} s" if slow else f"  compiles: {len(rows)}")
PY
  done
}

step_sizes() {
  {
    echo "# GEMM tasks against cuBLAS (PyTorch), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
    echo
    echo "| task | size | best kopt configuration | kopt µs | PyTorch call | PyTorch µs | kopt / PyTorch | verified configurations |"
    echo "|---|---|---|---|---|---|---|---|"
  } > "$OUT/sizes.md"
  for spec in "gemm_bf16 4096 4096 4096" "gemm_bf16 8192 8192 4096" "gemm_bf16 3000 5000 4008" \
              "gemm_f32 2048 2048 2048" "gemm_f32 4096 4096 4096" "gemm_f32 3004 2996 2004"; do
    set -- $spec
    case " ${TASKS:-gemm_bf16 gemm_f32} " in *" $1 "*) ;; *) continue ;; esac
    local task=$1 size=$2x$3x$4 dir keys start=$SECONDS
    dir=$(sized_task "$@")
    [ "$task" = gemm_bf16 ] && keys=$bf16_keys || keys=$f32_keys
    "$tool" gemm-seed "$dir" "$OUT/seeds/$task.cu" >> "$OUT/sizes.log" 2>&1
    local valid=""
    for key in $keys; do
      "$tool" materialize "$dir" "$OUT/seeds/$task.cu" "$OUT/configs/$task" --keys "$key" > /dev/null 2>> "$OUT/sizes.log" \
        && valid="$valid $OUT/configs/$task/${task}__$(echo "$key" | tr , _).cu"
    done
    local extra=""
    [ -f "$WORK/best_$task.cu" ] && extra="$WORK/best_$task.cu"  # the optimize step's, same machine
    "$kopt" bench "$dir" $valid $extra -w "$WORK/ws_sizes" "${measure[@]}" --timing-seconds 1 --max-noise 0.01 \
      -f json -o "$OUT/bench_${task}_$size.json" > "$OUT/bench_${task}_$size.log" 2>&1
    note "bench $task $size: exit $?, $(echo $valid $extra | wc -w) candidates, $((SECONDS - start)) s"
    python3 bench/gemm_torch_baseline.py "$task" "$2" "$3" "$4" > "$OUT/torch_${task}_$size.json" 2>> "$OUT/sizes.log"
    python3 - "$OUT/bench_${task}_$size.json" "$OUT/torch_${task}_$size.json" "$task" "$size" << 'PY' | tee -a "$OUT/sizes.md"
import json, os, re, sys
bench, torch, task, size = sys.argv[1:5]
try:
    entries = json.load(open(bench)).get("candidates", [])
except (OSError, ValueError):
    entries = []
def median_us(entry):
    timing = entry.get("timing") or {}
    median = timing.get("median") or {}
    return median.get("value") * 1e6 if isinstance(median, dict) and median.get("value") else None
def f32_path(entry):  # the configuration's F32_PATH (0 SIMT, 1 3xTF32), from its kopt:config line
    try:
        first = open(entry.get("path") or "").readline()
    except OSError:
        return None
    match = re.search(r"F32_PATH=(\d)", first)
    return int(match.group(1)) if match else None
verified = [(median_us(e), os.path.basename(e.get("path") or e.get("name", "")), f32_path(e)) for e in entries
            if e.get("status") == "ok" and median_us(e)]
ref = json.load(open(torch)) if os.path.exists(torch) and os.path.getsize(torch) else {}
def row(label, rows):
    best = min(rows) if rows else (None, "none verified", None)
    ratio = f"{best[0] / ref['median_us']:.3f}" if best[0] and ref.get("median_us") else "?"
    print(f"| {task}{label} | {size} | {best[1]} | {best[0] or 0:.1f} | {ref.get('call', '?')} | "
          f"{ref.get('median_us', 0):.1f} | {ratio} | {len(rows)} of {len(entries)} |")
row("", verified)
if task == "gemm_f32":  # the pure-FFMA (SIMT) configurations alone, for a strict TF32-off reading
    row(" (SIMT only)", [v for v in verified if v[2] == 0])
PY
  done
}

step_kernelbench() {
  local kb=${KERNELBENCH_DIR:-$root/.carry/KernelBench} problems=() start=$SECONDS
  [ -d "$kb/level1" ] || { note "no KernelBench problems under $kb"; return 2; }
  for name in 1_Square_matrix_multiplication_ 2_Standard_matrix_multiplication_ 3_Batched_matrix_multiplication \
              4_Matrix_vector_multiplication_ 6_Matmul_with_large_K_dimension_ 7_Matmul_with_small_K_dimension_ \
              8_Matmul_with_irregular_shapes_ 9_Tall_skinny_matrix_multiplication_ 13_Matmul_for_symmetric_matrices \
              16_Matmul_with_transposed_A 17_Matmul_with_transposed_B 18_Matmul_with_transposed_both; do
    problems+=("$kb/level1/$name.py")
  done
  for name in 63_Gemm_ReLU_Divide 76_Gemm_Add_ReLU 86_Matmul_Divide_GELU; do problems+=("$kb/level2/$name.py"); done
  if [ ! -d "$WORK/kb_tasks" ]; then
    "$kopt" task import-kernelbench "${problems[@]}" --out "$WORK/kb_tasks" > "$OUT/kb_import.log" 2>&1
    note "import: exit $?, $(ls "$WORK/kb_tasks" | wc -l) tasks, $(grep -l '^\[gemm\]' "$WORK"/kb_tasks/*/task.toml | wc -l) with [gemm]"
    python3 bench/kernelbench_baselines.py --task-baselines --out "$WORK/kb_baselines" \
      --budget-seconds "${BASELINE_SECONDS:-120}" "$WORK"/kb_tasks/*/ > "$OUT/kb_baselines.log" 2>&1
    note "baselines: exit $?, $((SECONDS - start)) s"
  fi
  # All GPUs of the host, one problem each at a time; run the step again (same WORK, machine still
  # warm) to go on where a time limit stopped it: kopt suite resumes what has not ended.
  local devices
  devices=${DEVICES:-$(nvidia-smi --query-gpu=index --format=csv,noheader | paste -sd, -)}
  timeout "${KB_SECONDS:-540}" "$kopt" suite "$WORK/kb_tasks" --name issue37 --workspace "$WORK/kb_ws" \
    --devices "$devices" --generator builtin --seed 37 --max-evaluations "$KB_EVALUATIONS" --max-seconds 300 \
    -f md -o "$OUT/suite.md" -- "${measure[@]}" --timing-seconds 0.5 > "$OUT/kb_suite.log" 2>&1
  note "suite: exit $?, $((SECONDS - start)) s (exit 124: the time limit; run the step again to resume)"
  "$kopt" suite status -w "$WORK/kb_ws" --name issue37 -f md -o "$OUT/suite_status.md" >> "$OUT/kb_suite.log" 2>&1
  tail -n 30 "$OUT/suite.md" "$OUT/suite_status.md" 2> /dev/null | tee -a "$summary"
}

step_simulation() {
  mkdir -p "$OUT/caches" "$OUT/seeds"
  local narrow
  for task in gemm_bf16 gemm_f32; do
    local start=$SECONDS
    [ "$task" = gemm_bf16 ] && narrow=$bf16_subspace || narrow=$f32_subspace
    # shellcheck disable=SC2086
    "$tool" gemm-seed "examples/tasks/$task" "$OUT/seeds/${task}_sub.cu" $narrow | tee -a "$summary"
    rm -rf "$OUT/sample/$task"
    "$tool" materialize "examples/tasks/$task" "$OUT/seeds/${task}_sub.cu" "$OUT/sample/$task" > /dev/null
    "$kopt" bench "examples/tasks/$task" "$OUT/sample/$task"/*.cu -w "$WORK/ws_sample" "${measure[@]}" --seeds 1 \
      --timing-seconds 0.3 --max-noise 0.02 -f json -o "$OUT/sample_$task.json" > "$OUT/sample_$task.log" 2>&1
    note "sub-space $task: exit $?, $(ls "$OUT/sample/$task" | wc -l) configurations, $((SECONDS - start)) s"
    "$tool" cache "examples/tasks/$task" "$OUT/seeds/${task}_sub.cu" "$OUT/sample_$task.json" "$OUT/caches/$task.json" \
      >> "$OUT/simulation.md" 2>> "$OUT/sample_$task.log"
  done
  "$simulation" --repeats 100 --budget 40 "$OUT"/caches/*.json >> "$OUT/simulation.md" 2>&1
  tail -n 30 "$OUT/simulation.md" | tee -a "$summary"
}

mkdir -p "$OUT/seeds" "$OUT/configs"
for step in $STEPS; do
  note "=== $step"
  "step_$step"
done
