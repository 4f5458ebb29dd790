#!/usr/bin/env bash
# Issue 14, round 2 on the H200: every example task's reference against its best candidate, with the
# counters behind the time identity (docs/diff.md "Where the time went"). Run from the repository root:
#   OUT=/some/dir bash scripts/h200_diff_capture/pairs.sh
# Writes $OUT/h14/summary.txt and $OUT/h14/h14_pairs.tar.gz holding h14_pairs/:
#   env.txt                 nvidia-smi, ncu and nvcc versions
#   metrics_query.txt       the lines of `ncu --query-metrics` naming the identity's counters
#   stall_counters.txt      the smsp__warps_issue_stalled_<reason> counters this ncu knows (used below)
#   timing_cold.txt         drive --cold-time over every reference and candidate (CHECK against the
#                           reference's outputs, TIME: median of 20 calls each after an L2 flush, SPREAD)
#   timing_warm.txt         drive --time (mean of 20 warm calls)
#   pairs/items.txt, raw.csv   per task the reference and its best candidate (plan.py BEST; swish: the
#                           fastest hand-written candidate by cold time), ONE ncu process, --set full
#                           --import-source yes plus the per-pipe counts and the identity's counters
#                           (--clock-control none), one launch per item, one stream per item
#   repeat/items.txt, raw.csv  the same items, 5 launches each, ONLY the time model's metrics (few
#                           passes): the launch-to-launch noise of the duration and of the identity
#   ptxas/<label>.txt       ptxas -v of every library
# Never changes clocks or other device settings. Budget: under 4 minutes; later steps are skipped
# when the earlier ones ran long.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(pwd)"
OUT="${OUT:-$root/out}"
mkdir -p "$OUT/h14"
WORK="$(mktemp -d /tmp/h14p.XXXXXX)"
RES="$WORK/h14_pairs"
mkdir -p "$RES/ptxas"
pick_tool() { command -v "$1" 2>/dev/null || echo "/usr/local/cuda/bin/$1"; }
NCU="${NCU:-$(pick_tool ncu)}"
NVCC="${NVCC:-$(pick_tool nvcc)}"
export NVCC
log() { echo "[h14 $(date +%T) ${SECONDS}s] $*" | tee -a "$RES/log.txt"; }
finish() {
  cp "$WORK"/ptxas/*.txt "$RES/ptxas/" 2>/dev/null
  python3 "$here/identity.py" summary "$RES" >"$RES/summary.txt" 2>&1
  cp "$RES/summary.txt" "$OUT/h14/summary.txt"
  cat "$RES/summary.txt"
  tar -C "$WORK" -czf "$OUT/h14/h14_pairs.tar.gz" h14_pairs
  log "wrote $OUT/h14/h14_pairs.tar.gz ($(du -h "$OUT/h14/h14_pairs.tar.gz" | cut -f1))"
}
trap finish EXIT

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv
  "$NCU" --version
  "$NVCC" --version | tail -2
} >"$RES/env.txt" 2>&1

log "plan"
python3 "$here/plan.py" pairs "$root" "$WORK" >>"$RES/log.txt" 2>&1 || { log "plan failed"; exit 1; }
log "build driver and $(wc -l <"$WORK/jobs.txt") libraries"
"$NVCC" -O2 -std=c++17 -cudart shared -o "$WORK/drive" "$here/drive.cu" -ldl >>"$RES/log.txt" 2>&1 &
driver=$!
# The counters behind the stall ratios, as this ncu names them (queried while the libraries build).
timeout 60 "$NCU" --query-metrics >"$WORK/query.txt" 2>&1 ||
  timeout 60 "$NCU" --query-metrics --chip gh100 >"$WORK/query.txt" 2>&1
grep -E '^(smsp__warps_issue_stalled|smsp__warps_active|smsp__inst_issued|smsp__issue_active|smsp__cycles_active|smsp__average_warps_issue_stalled)' \
  "$WORK/query.txt" >"$RES/metrics_query.txt"
stall_sums=""
for reason in barrier branch_resolving dispatch_stall drain gmma imc_miss lg_throttle long_scoreboard \
              math_pipe_throttle membar mio_throttle misc no_instruction not_selected selected \
              short_scoreboard sleeping tex_throttle wait warpgroup_arrive; do
  if grep -qE "^smsp__warps_issue_stalled_${reason}[[:space:]]" "$WORK/query.txt"; then
    stall_sums="${stall_sums},smsp__warps_issue_stalled_${reason}.sum"
    echo "$reason" >>"$RES/stall_counters.txt"
  fi
done
if [[ -z "$stall_sums" ]]; then  # the query said nothing usable: ask for the 19 reasons' counters anyway
  for reason in barrier branch_resolving dispatch_stall drain gmma imc_miss lg_throttle long_scoreboard \
                math_pipe_throttle membar mio_throttle misc no_instruction not_selected selected \
                short_scoreboard sleeping tex_throttle wait; do
    stall_sums="${stall_sums},smsp__warps_issue_stalled_${reason}.sum"
  done
  echo "(query gave none; all 19 asked for)" >"$RES/stall_counters.txt"
fi
log "stall counters: $(tr '\n' ' ' <"$RES/stall_counters.txt")"
xargs -P "$(nproc)" -I{} sh -c '{}' <"$WORK/jobs.txt" || log "some library builds failed (see ptxas/)"
wait "$driver" || { log "driver build failed"; exit 1; }

log "timing (no profiler)"
timeout 60 "$WORK/drive" "$WORK/plan_time.txt" --cold-time >"$RES/timing_cold.txt" 2>&1 || log "cold timing: some items failed"
timeout 30 "$WORK/drive" "$WORK/plan_time.txt" --time >"$RES/timing_warm.txt" 2>&1 || log "warm timing: some items failed"
python3 "$here/plan.py" pick "$WORK" "$RES/timing_cold.txt" >>"$RES/log.txt" 2>&1
awk '{print $1, $2, $3, 5}' "$WORK/plan_pairs.txt" >"$WORK/plan_repeat.txt"

pipes=""
for p in adu alu cbu fma fp64 lsu tex uniform xu tensor_op_hmma tensor_op_gmma tensor_op_imma tensor_op_dmma; do
  pipes="${pipes:+$pipes,}sm__inst_executed_pipe_${p}.sum"
done
identity="smsp__inst_issued.sum,smsp__inst_issued.avg,smsp__issue_active.sum,smsp__warps_active.sum"
identity="$identity,smsp__warps_active.avg.per_cycle_active,smsp__cycles_active.sum,smsp__cycles_active.avg"
identity="$identity,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum"
ratios=""
for reason in barrier branch_resolving dispatch_stall drain gmma imc_miss lg_throttle long_scoreboard \
              math_pipe_throttle membar mio_throttle misc no_instruction not_selected selected \
              short_scoreboard sleeping tex_throttle wait; do
  ratios="${ratios},smsp__average_warps_issue_stalled_${reason}_per_issue_active.ratio"
done

# ncu_run SECONDS NAME PLAN METRICS FALLBACK_METRICS ARGS...: one ncu process over the plan, raw page
# exported; once more with FALLBACK_METRICS when ncu made no report (an unknown metric).
ncu_run() {
  local limit="$1" name="$2" plan="$3" metrics="$4" fallback="$5"; shift 5
  local rep="$WORK/$name"
  if (( SECONDS > 200 )); then log "skipping $name: ${SECONDS} s used of the 4-minute allowance"; return; fi
  (( limit > 225 - SECONDS )) && limit=$((225 - SECONDS))
  log "ncu $name ($(wc -l <"$plan") items, limit ${limit} s)"
  timeout "$limit" "$NCU" "$@" --metrics "$metrics" --clock-control none -f -o "$rep" "$WORK/drive" "$plan" \
    >"$RES/$name.ncu.log" 2>&1
  local rc=$?
  if [[ ! -s "$rep.ncu-rep" && $rc -ne 124 ]]; then
    log "ncu $name failed (rc $rc); retrying with the fallback metrics"
    timeout "$limit" "$NCU" "$@" --metrics "$fallback" --clock-control none -f -o "$rep" "$WORK/drive" "$plan" \
      >>"$RES/$name.ncu.log" 2>&1
    rc=$?
  fi
  log "ncu $name: rc $rc"
  mkdir -p "$RES/$name"
  LC_ALL=C "$NCU" --import "$rep.ncu-rep" --csv --page raw --print-units base >"$RES/$name/raw.csv" 2>>"$RES/$name.ncu.log"
  cp "$plan" "$RES/$name/items.txt"
  log "ncu $name: $(($(wc -l <"$RES/$name/raw.csv") - 2)) rows"
}

base="$pipes,smsp__inst_executed.sum,smsp__inst_issued.sum,sm__cycles_active.avg,smsp__cycles_active.avg"
ncu_run 120 pairs "$WORK/plan_pairs.txt" "$base,smsp__warps_active.sum,smsp__cycles_active.sum,smsp__issue_active.sum$stall_sums" \
  "$base" --set full --import-source yes
ncu_run 60 repeat "$WORK/plan_repeat.txt" "$identity$ratios$stall_sums" "$identity$ratios" --section LaunchStats
log "done"
