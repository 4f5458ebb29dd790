#!/usr/bin/env bash
# Issue 14, round 3 (helper h14d): which of the time identity's counters ncu collects in one replay
# pass, and how far ρ = smsp__warps_active.sum / Σ smsp__warps_issue_stalled_<r>.sum moves over many
# launches when only the identity's counters are asked for. Run from the root of a kopt checkout:
#   OUT=/some/dir bash scripts/h200_diff_capture/passes.sh        (or .carry/h14d/passes.sh)
# Needs plan.py, drive.cu and passes.py beside it (or in scripts/h200_diff_capture/).
# Items (one ncu process per metric list, one stream per item, --clock-control none):
#   saxpy reference and saxpy_tunable 256_4_4: 20 launches each; reduce_sum reference (partials +
#   final) and reduce_sum_atomic, gelu reference and gelu_tunable 256_2_4: 8 launches each.
# Metric lists:
#   totals    the identity's totals: duration, SM elapsed cycles and clock, issued, warps_active,
#             cycles_active (sum/avg), issue_active
#   stalls    the 19 stall-reason counters + inst_issued.sum
#   identity  totals + stalls (what the counter form of docs/diff.md needs)
#   targeted  kopt's targeted collection list (src/analysis/collection_metrics.cc), 3 launches of the
#             saxpy pair only: its pass count
# Writes $OUT/h14d.tar.gz (h14d/: env.txt, log.txt, <list>/raw.csv + <list>.ncu.log (ncu's "N passes"
# lines), summary.txt) and prints summary.txt. Never changes clocks or device settings. < 3 minutes.
set -uo pipefail
root="$(pwd)"
self="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pick() { [[ -f "$self/$1" ]] && echo "$self/$1" || echo "$root/scripts/h200_diff_capture/$1"; }
OUT="${OUT:-$root/out}"
mkdir -p "$OUT"
WORK="$(mktemp -d /tmp/h14d.XXXXXX)"
RES="$WORK/h14d"
mkdir -p "$RES"
tool() { command -v "$1" 2>/dev/null || echo "/usr/local/cuda/bin/$1"; }
NCU="${NCU:-$(tool ncu)}"
NVCC="${NVCC:-$(tool nvcc)}"
export NVCC
log() { echo "[h14d $(date +%T) ${SECONDS}s] $*" | tee -a "$RES/log.txt"; }
finish() {
  python3 "$(pick passes.py)" "$RES" >"$RES/summary.txt" 2>&1
  cat "$RES/summary.txt"
  tar -C "$WORK" -czf "$OUT/h14d.tar.gz" h14d
  log "wrote $OUT/h14d.tar.gz ($(du -h "$OUT/h14d.tar.gz" | cut -f1))"
}
trap finish EXIT
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  "$NCU" --version
} >"$RES/env.txt" 2>&1

log "plan"
python3 "$(pick plan.py)" pairs "$root" "$WORK" >>"$RES/log.txt" 2>&1 || { log "plan failed"; exit 1; }
grep -E '/lib/(saxpy__reference|saxpy__saxpy_tunable__256_4_4|reduce_sum__reference|reduce_sum__reduce_sum_atomic|gelu__reference|gelu__gelu_tunable__256_2_4)\.so' \
  "$WORK/jobs.txt" >"$WORK/jobs_small.txt"
log "build driver and $(wc -l <"$WORK/jobs_small.txt") libraries"
"$NVCC" -O2 -std=c++17 -cudart shared -o "$WORK/drive" "$(pick drive.cu)" -ldl >>"$RES/log.txt" 2>&1 &
driver=$!
xargs -P "$(nproc)" -I{} sh -c '{}' <"$WORK/jobs_small.txt" || log "some library builds failed"
wait "$driver" || { log "driver build failed"; exit 1; }

item() {  # LABEL LAUNCHES: the plan_time.txt line of LABEL with its launch count
  awk -v l="$1" -v n="$2" '$1 == l {print $1, $2, $3, n; exit}' "$WORK/plan_time.txt"
}
{
  item saxpy__reference 20; item saxpy__saxpy_tunable__256_4_4 20
  item reduce_sum__reference 8; item reduce_sum__reduce_sum_atomic 8
  item gelu__reference 8; item gelu__gelu_tunable__256_2_4 8
} >"$WORK/plan_main.txt"
{ item saxpy__reference 3; item saxpy__saxpy_tunable__256_4_4 3; } >"$WORK/plan_targeted.txt"
cat "$WORK/plan_main.txt" >>"$RES/log.txt"

reasons="barrier branch_resolving dispatch_stall drain gmma imc_miss lg_throttle long_scoreboard math_pipe_throttle
  membar mio_throttle misc no_instruction not_selected selected short_scoreboard sleeping tex_throttle wait"
stalls="smsp__inst_issued.sum"
for r in $reasons; do stalls="$stalls,smsp__warps_issue_stalled_$r.sum"; done
totals="gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,smsp__cycles_elapsed.avg"
totals="$totals,smsp__inst_issued.sum,smsp__inst_issued.avg,smsp__warps_active.sum,smsp__cycles_active.sum"
totals="$totals,smsp__cycles_active.avg,smsp__issue_active.sum"
targeted="$(sed -n '/kMetrics\[\] = {/,/^};/p' "$root/src/analysis/collection_metrics.cc" | grep -oE '"[^"]+"' | tr -d '"' | paste -sd,)"

run() {  # NAME PLAN METRICS LIMIT_S
  local name="$1" plan="$2" metrics="$3" limit="$4"
  if (( SECONDS > 170 )); then log "skipping $name: ${SECONDS} s used"; return; fi
  log "ncu $name ($(echo "$metrics" | tr ',' '\n' | wc -l) metrics)"
  timeout "$limit" "$NCU" --metrics "$metrics" --clock-control none -f -o "$WORK/$name" "$WORK/drive" "$plan" \
    >"$RES/$name.ncu.log" 2>&1
  log "ncu $name: rc $? ($(grep -c ' pass' "$RES/$name.ncu.log") profiled launches)"
  mkdir -p "$RES/$name"
  LC_ALL=C "$NCU" --import "$WORK/$name.ncu-rep" --csv --page raw --print-units base >"$RES/$name/raw.csv" 2>>"$RES/$name.ncu.log"
  cp "$plan" "$RES/$name/items.txt"
}
run identity "$WORK/plan_main.txt" "$totals,$stalls" 60
run totals "$WORK/plan_main.txt" "$totals" 40
run stalls "$WORK/plan_main.txt" "$stalls" 40
[[ -n "$targeted" ]] && run targeted "$WORK/plan_targeted.txt" "$targeted" 40
log "done"
