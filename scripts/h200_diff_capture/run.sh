#!/usr/bin/env bash
# Issue 14 capture (kopt diff and sweeps), round 1 on the H200. Run from the repository root:
#   OUT=/some/dir bash .carry/capture/h14/run.sh
# Writes ONE file, $OUT/h14.tar.gz, holding h14/:
#   env.txt                      nvidia-smi, ncu and nvcc versions, the sections used
#   timing_pairs.txt             CUDA-event times (mean of 20 calls, warm) of every example task's
#                                reference and candidates, no profiler ("TIME LABEL US")
#   pairs/items.txt, raw.csv     per task the reference and its fastest candidate, profiled in ONE ncu
#                                process (--set full, --clock-control none), raw page in base units;
#                                rows grouped per item by their Stream column (drive.cu: a new stream
#                                per item), items in the order of items.txt
#   sweep_<kernel>/items.txt, raw.csv, timing.txt
#                                saxpy_tunable (8 sizes x 4 block sizes) and softmax_tunable (7 x 4):
#                                a targeted section set + the per-pipe instruction counts, one launch per
#                                point, one ncu process per sweep
#   repeat/items.txt, raw.csv   three references (saxpy, gelu, transpose) profiled 3 times each with
#                                --set full: the launch-to-launch noise of every metric
#   sass/<label>.txt, ptxas/<label>.txt   cuobjdump -sass and ptxas -v of every library profiled
# Never changes clocks or other device settings. Budget: about 2-3 minutes.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(pwd)"
OUT="${OUT:-$root/out}"
mkdir -p "$OUT"
WORK="$(mktemp -d /tmp/h14.XXXXXX)"
RES="$WORK/h14"
mkdir -p "$RES/pairs" "$RES/sass" "$RES/ptxas"
pick_tool() { command -v "$1" 2>/dev/null || echo "/usr/local/cuda/bin/$1"; }
NCU="${NCU:-$(pick_tool ncu)}"
NVCC="${NVCC:-$(pick_tool nvcc)}"
CUOBJDUMP="${CUOBJDUMP:-$(pick_tool cuobjdump)}"
export NVCC
log() { echo "[h14 $(date +%T)] $*" | tee -a "$RES/log.txt"; }
finish() {
  cp "$WORK"/ptxas/*.txt "$RES/ptxas/" 2>/dev/null
  tar -C "$WORK" -czf "$OUT/h14.tar.gz" h14
  log "wrote $OUT/h14.tar.gz ($(du -h "$OUT/h14.tar.gz" | cut -f1))"
}
trap finish EXIT

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv
  "$NCU" --version
  "$NVCC" --version | tail -2
} >"$RES/env.txt" 2>&1

log "plan"
python3 "$here/plan.py" build "$root" "$WORK" >>"$RES/log.txt" 2>&1 || { log "plan failed"; exit 1; }
log "build driver and $(wc -l <"$WORK/jobs.txt") libraries"
"$NVCC" -O2 -std=c++17 -cudart shared -o "$WORK/drive" "$here/drive.cu" -ldl >>"$RES/log.txt" 2>&1 || {
  log "driver build failed"; exit 1; }
xargs -P "$(nproc)" -I{} sh -c '{}' <"$WORK/jobs.txt" || log "some library builds failed (see ptxas/)"

log "timing (no profiler)"
timeout 40 "$WORK/drive" "$WORK/plan_time.txt" --time >"$RES/timing_pairs.txt" 2>&1 || log "timing: some items failed"
python3 "$here/plan.py" pick "$WORK" "$RES/timing_pairs.txt" >>"$RES/log.txt" 2>&1
cp "$WORK/plan_pairs.txt" "$RES/pairs/items.txt"

# The sweeps' sections: those of this list that this ncu knows.
sections=()
known="$("$NCU" --list-sections 2>/dev/null)"
for s in SpeedOfLight SpeedOfLight_RooflineChart LaunchStats Occupancy WarpStateStats SchedulerStats \
         MemoryWorkloadAnalysis MemoryWorkloadAnalysis_Chart ComputeWorkloadAnalysis; do
  if grep -qw "$s" <<<"$known"; then sections+=(--section "$s"); fi
done
echo "sweep sections: ${sections[*]}" >>"$RES/env.txt"
pipes=""
for p in adu alu cbu fma fp64 lsu tex uniform xu tensor_op_hmma tensor_op_gmma tensor_op_imma tensor_op_dmma; do
  pipes="${pipes:+$pipes,}sm__inst_executed_pipe_${p}.sum"
done
metrics="$pipes,smsp__inst_executed.sum,smsp__inst_issued.sum,sm__cycles_active.avg,smsp__cycles_active.avg"

# ncu_run SECONDS NAME PLAN ARGS...: one ncu process over the plan, raw page exported; retried without the
# extra metrics if ncu rejects them.
ncu_run() {
  local limit="$1" name="$2" plan="$3"; shift 3
  local rep="$WORK/$name"
  if (( SECONDS > 150 )); then log "skipping $name: ${SECONDS} s used of the ~180 s allowance"; return; fi
  (( limit > 175 - SECONDS )) && limit=$((175 - SECONDS))
  log "ncu $name ($(wc -l <"$plan") items)"
  timeout "$limit" "$NCU" "$@" --metrics "$metrics" --clock-control none -f -o "$rep" "$WORK/drive" "$plan" \
    >"$RES/$name.ncu.log" 2>&1
  local rc=$?
  # A non-zero exit with a report is an item that failed (kept); no report and no timeout: ncu refused
  # the options (an unknown metric), so once more without the extra metrics.
  if [[ ! -s "$rep.ncu-rep" && $rc -ne 124 ]]; then
    log "ncu $name with extra metrics failed (rc $rc); retrying without them"
    timeout "$limit" "$NCU" "$@" --clock-control none -f -o "$rep" "$WORK/drive" "$plan" >>"$RES/$name.ncu.log" 2>&1
    rc=$?
  fi
  log "ncu $name: rc $rc"
  mkdir -p "$RES/$name"
  LC_ALL=C "$NCU" --import "$rep.ncu-rep" --csv --page raw --print-units base >"$RES/$name/raw.csv" 2>>"$RES/$name.ncu.log"
  cp "$plan" "$RES/$name/items.txt"
  log "ncu $name: $(($(wc -l <"$RES/$name/raw.csv") - 2)) rows"
}

ncu_run 90 pairs "$WORK/plan_pairs.txt" --set full --import-source yes
for plan in "$WORK"/plan_sweep_*.txt; do
  kernel="$(basename "$plan" .txt)"; kernel="${kernel#plan_sweep_}"
  timeout 20 "$WORK/drive" "$plan" --time >"$WORK/timing_$kernel.txt" 2>&1 || log "sweep timing $kernel failed"
  ncu_run 45 "sweep_$kernel" "$plan" "${sections[@]}"
  cp "$WORK/timing_$kernel.txt" "$RES/sweep_$kernel/timing.txt"
done

ncu_run 40 repeat "$WORK/plan_repeat.txt" --set full

log "sass"
for lib in $(awk '{print $2}' "$WORK/plan_pairs.txt" "$WORK"/plan_sweep_*.txt | sort -u); do
  "$CUOBJDUMP" -sass "$lib" >"$RES/sass/$(basename "$lib" .so).txt" 2>&1 || true
done
log "done"
