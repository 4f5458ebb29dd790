#!/usr/bin/env bash
# Issue 13: large tuning spaces measured exhaustively on the H200, each configuration timed AND
# profiled, so that the simulation's guided moves see the findings a real run would see
# (docs/tuning.md "Simulation"). Run from the repository root on the device:
#   OUT=/some/dir bash bench/tuning_capture/run.sh
# Needs: nvcc, ncu, python3 (torch for step 5), and carried binaries .carry/bin/{kopt,kopt-runner,
# tuning_space_tool} (scripts/package_for_device.sh; LD_LIBRARY_PATH=.carry/lib).
# Environment: TASKS (large spaces, default "reduce_sum stencil2d gemm_f32"), QUALITY_TASKS (default:
# all nine), STEPS (default "build time profile quality torch"), BUDGET_S (default 560: later steps
# are skipped once it is spent, and said so), TOP (configurations per task re-measured by kopt bench,
# default 4), TIMING_FROM (a folder with <task>/timing.txt of an earlier call: the quality step's picks;
# default: this call's results), FIRST_CHUNK (profile chunks from this one on: resumes a profile
# step an earlier call cut short; default 0).
# Writes $OUT/tuning.tar.gz holding tuning/:
#   env.txt, log.txt
#   <task>/timing.txt      drive --cold-time: "CHECK label ok|fail worst" (against the task's reference,
#                          the task's f32 tolerance), "TIME label µs" (median of 20 calls, each after a
#                          256 MiB L2 flush), "SPREAD label min max"
#   <task>/raw_plan_NN.csv.gz  ncu raw page (kopt's targeted metrics + LaunchStats, --clock-control none,
#                          caches flushed: what `kopt explain` collects), one launch per configuration,
#                          one new stream per configuration in the order of <task>/items_plan_NN.txt
#                          (chunks of 50 configurations, one ncu process each)
#   quality/<task>.bench.json   kopt bench of the TOP fastest configurations + hand-written candidates
#   torch.json            bench/torch_baselines.py (PyTorch call and a same-bytes copy per task)
# Never changes clocks or other device settings.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(pwd)"
OUT="${OUT:-$root/out}"
TASKS="${TASKS:-reduce_sum stencil2d gemm_f32}"
QUALITY_TASKS="${QUALITY_TASKS:-saxpy gelu reduce_sum softmax layernorm transpose stencil2d gemm_f32 gemm_bf16}"
STEPS="${STEPS:-build time profile quality torch}"
BUDGET_S="${BUDGET_S:-560}"
TOP="${TOP:-4}"
mkdir -p "$OUT"
WORK="${WORK:-/tmp/tuning_capture}"
RES="$WORK/tuning"
mkdir -p "$RES/quality"
pick_tool() { command -v "$1" 2>/dev/null || echo "/usr/local/cuda/bin/$1"; }
NCU="${NCU:-$(pick_tool ncu)}"
NVCC="${NVCC:-$(pick_tool nvcc)}"
export NVCC
export LD_LIBRARY_PATH="$root/.carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export KOPT_RUNNER="${KOPT_RUNNER:-$root/.carry/bin/kopt-runner}"
KOPT="${KOPT:-$root/.carry/bin/kopt}"
TOOL="${TOOL:-$root/.carry/bin/tuning_space_tool}"
log() { echo "[tuning $(date +%T) ${SECONDS}s] $*" | tee -a "$RES/log.txt"; }
finish() { tar -C "$WORK" -czf "$OUT/tuning.tar.gz" tuning; log "wrote $OUT/tuning.tar.gz"; }
trap finish EXIT
want() { [[ " $STEPS " == *" $1 "* ]]; }
left() { echo $((BUDGET_S - SECONDS)); }

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv
  "$NCU" --version | tail -1
  "$NVCC" --version | tail -2
} >"$RES/env.txt" 2>&1

if want build; then
  log "plan"
  python3 "$here/plan.py" build "$root" "$WORK" "$TOOL" $TASKS >>"$RES/log.txt" 2>&1 || { log "plan failed"; exit 1; }
  "$NVCC" -O2 -std=c++17 -cudart shared -o "$WORK/drive" "$root/scripts/h200_diff_capture/drive.cu" -ldl \
    >>"$RES/log.txt" 2>&1 || { log "driver build failed"; exit 1; }
  log "compile $(wc -l <"$WORK/jobs.txt") libraries on $(nproc) cores"
  xargs -P "$(nproc)" -I{} sh -c '{}' <"$WORK/jobs.txt" || log "some library builds failed"
  log "compiled"
fi

if want time; then
  for task in $TASKS; do
    mkdir -p "$RES/$task"
    timeout "$(left)" "$WORK/drive" "$WORK/$task/plan_time.txt" --cold-time >"$RES/$task/timing.txt" 2>&1 ||
      log "$task timing: some items failed"
    log "$task timed: $(grep -c '^TIME' "$RES/$task/timing.txt") times, $(grep -c '^CHECK .* ok' "$RES/$task/timing.txt") checks ok"
  done
fi

metrics="$(python3 "$here/plan.py" metrics "$root")"
if want profile; then
  # chunks of 50 configurations, one ncu process each: a chunk cut short by the budget loses only itself
  for task in $TASKS; do
    mkdir -p "$RES/$task" "$WORK/$task/chunks"
    rm -f "$WORK/$task/chunks"/*
    split -l 50 -d -a 2 "$WORK/$task/plan_profile.txt" "$WORK/$task/chunks/plan_"
    for plan in "$WORK/$task/chunks"/plan_??; do
      chunk="$(basename "$plan")"
      if (( 10#${chunk#plan_} < ${FIRST_CHUNK:-0} )); then continue; fi
      if (( $(left) < 45 )); then log "skipping $task $chunk: budget spent"; continue; fi
      rep="$WORK/$task/chunks/$chunk.profile"
      timeout "$(( $(left) - 30 ))" "$NCU" --section LaunchStats --metrics "$metrics" --clock-control none \
        -f -o "$rep" "$WORK/drive" "$plan" >>"$RES/$task/ncu.log" 2>&1
      rc=$?
      LC_ALL=C "$NCU" --import "$rep.ncu-rep" --csv --page raw --print-units base 2>>"$RES/$task/ncu.log" |
        gzip -9 >"$RES/$task/raw_$chunk.csv.gz"
      cp "$plan" "$RES/$task/items_$chunk.txt"
      log "$task $chunk profiled: rc $rc, $(($(zcat "$RES/$task/raw_$chunk.csv.gz" | wc -l) - 2)) launches"
    done
  done
fi

if want quality; then
  for task in $QUALITY_TASKS; do
    if (( $(left) < 40 )); then log "skipping the quality run of $task: budget spent"; continue; fi
    task_dir="examples/tasks/$task"
    picks="$WORK/quality/$task"
    rm -rf "$picks"; mkdir -p "$picks"
    timing="${TIMING_FROM:-$RES}/$task/timing.txt"
    if [ -f "$timing" ]; then
      if [ ! -d "$WORK/$task/configs" ]; then
        "$TOOL" materialize "$task_dir" "$task_dir/tunable/${task}_tunable.cu" "$WORK/$task/configs" >/dev/null
      fi
      # the TOP fastest configurations that passed the check
      python3 - "$timing" "$TOP" >"$picks/labels.txt" <<'PY'
import sys
ok, times = set(), {}
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) >= 3 and p[0] == "CHECK" and p[2] == "ok": ok.add(p[1])
    if len(p) == 3 and p[0] == "TIME": times[p[1]] = float(p[2])
print("\n".join(sorted((l for l in times if l in ok), key=times.get)[: int(sys.argv[2])]))
PY
      while read -r label; do cp "$WORK/$task/configs/$label.cu" "$picks/"; done <"$picks/labels.txt"
    else
      # a committed exhaustive cache: its TOP fastest verified configurations
      "$TOOL" materialize "$task_dir" "$task_dir/tunable/${task}_tunable.cu" "$picks/all" >/dev/null
      python3 - "tests/fixtures/tuning/$task.json" "$TOP" "${task}_tunable" >"$picks/labels.txt" <<'PY'
import json, sys
cache = json.load(open(sys.argv[1]))["cache"]
rows = sorted((v["time"], k) for k, v in cache.items() if v.get("kopt_status") == "verified")
print("\n".join(sys.argv[3] + "__" + k.replace(",", "_") for _, k in rows[: int(sys.argv[2])]))
PY
      while read -r label; do cp "$picks/all/$label.cu" "$picks/" 2>/dev/null; done <"$picks/labels.txt"
      rm -rf "$picks/all"
    fi
    timeout "$(( $(left) - 20 ))" "$KOPT" bench "$task_dir" "$picks"/*.cu "$task_dir"/candidates/*.cu -f json \
      -o "$RES/quality/$task.bench.json" -w "$WORK/workspace" --seeds 2 --timing-seconds 0.4 --max-noise 0.01 \
      --timeout 60 >"$RES/quality/$task.log" 2>&1
    log "$task quality: rc $? ($(ls "$picks"/*.cu 2>/dev/null | wc -l) configurations)"
  done
fi

if want torch; then
  if (( $(left) > 25 )); then
    timeout "$(( $(left) - 5 ))" python3 bench/torch_baselines.py examples/tasks >"$RES/torch.json" 2>"$RES/torch.log"
    log "torch baselines: rc $?"
  else
    log "skipping torch baselines: budget spent"
  fi
fi
log "done"
