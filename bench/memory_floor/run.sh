#!/usr/bin/env bash
# Issue 13's last two memory-floor targets (reduce_sum, stencil2d within 1.25x of the roofline
# floor): the new tunable kernels (a small sweep of each one's knobs) beside the current best
# configuration, the hand-written candidates, a same-bytes device-to-device copy and (reduce_sum) a
# pure-read kernel, all timed in ONE process the way bench/tuning_capture/run.sh's time step does
# (scripts/h200_diff_capture/drive.cu --cold-time: a 256 MiB memset before each of 20 calls, CUDA
# events around the call alone, median), checked against the task's reference on the main size
# (seed 11) and at every [[variant]] size. Run from the repository root on the device:
#   OUT=/some/dir bash bench/memory_floor/run.sh
# Needs nvcc and python3 (no torch, no carried binaries). Never changes clocks or device settings.
# Writes $OUT/h13/summary.txt (the table printed at the end) and $OUT/h13/memory_floor.tar.gz
# holding memory_floor/: env.txt, log.txt, summary.txt,
#   <task>.cold1.txt   drive --cold-time, plan order
#   <task>.cold2.txt   drive --cold-time, reverse order (drift and noise between the passes)
#   <task>.clean.txt   drive --cold-time-clean (the flush reads 256 MiB instead of writing it: the
#                      timed call then writes back no dirty lines of the flush)
#   <task>.check.txt   the variant sizes: "CHECK label ok|fail worst" per candidate
# Environment: ROUND (the item list of plan.py, default 2), BUDGET_S (default 300: later steps are
# skipped once it is spent).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(pwd)"
OUT="${OUT:-$root/out}"
WORK="${WORK:-/tmp/memory_floor}"
RES="$WORK/results/memory_floor"
BUDGET_S="${BUDGET_S:-300}"
ROUND="${ROUND:-2}"
rm -rf "$WORK/results"
mkdir -p "$RES" "$OUT/h13"
pick_tool() { command -v "$1" 2>/dev/null || echo "/usr/local/cuda/bin/$1"; }
NVCC="${NVCC:-$(pick_tool nvcc)}"
export NVCC
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
log() { echo "[memory_floor $(date +%T) ${SECONDS}s] $*" | tee -a "$RES/log.txt"; }
left() { echo $((BUDGET_S - SECONDS)); }
finish() {
  tar -C "$WORK/results" -czf "$OUT/h13/memory_floor.tar.gz" memory_floor
  [ -f "$RES/summary.txt" ] && cp "$RES/summary.txt" "$OUT/h13/"
  log "wrote $OUT/h13/memory_floor.tar.gz"
}
trap finish EXIT

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv
  "$NVCC" --version | tail -2
  git -C "$root" log -1 --format='%H %s' 2>/dev/null
} >"$RES/env.txt" 2>&1

log "plan, round $ROUND"
python3 "$here/plan.py" "$root" "$WORK" "$ROUND" >>"$RES/log.txt" 2>&1 || { log "plan failed"; exit 1; }
"$NVCC" -O2 -std=c++17 -arch=sm_90 -cudart shared -o "$WORK/drive" "$root/scripts/h200_diff_capture/drive.cu" -ldl \
  >>"$RES/log.txt" 2>&1 || { log "driver build failed"; exit 1; }
log "compile $(wc -l <"$WORK/jobs.txt") libraries on $(nproc) cores"
xargs -P "$(nproc)" -I{} sh -c '{}' <"$WORK/jobs.txt" || log "some library builds failed"
for f in "$WORK"/*/lib/*.so.log; do [ -s "$f" ] && { echo "== $f"; cat "$f"; } >>"$RES/log.txt"; done
log "compiled: $(ls "$WORK"/*/lib/*.so | wc -l) libraries"

for task in reduce_sum stencil2d; do
  plan="$WORK/$task/time.txt"
  { head -1 "$plan"; tail -n +2 "$plan" | tac; } >"$WORK/$task/time_reversed.txt"
  for pass in cold1:time.txt:--cold-time clean:time.txt:--cold-time-clean cold2:time_reversed.txt:--cold-time; do
    IFS=: read -r name file mode <<<"$pass"
    if (( $(left) < 20 )); then log "skipping $task $name: budget spent"; continue; fi
    timeout "$(( $(left) - 10 ))" "$WORK/drive" "$WORK/$task/$file" "$mode" >"$RES/$task.$name.txt" 2>&1 ||
      log "$task $name: some items failed (probes fail their CHECK by design)"
    log "$task $name: $(grep -c '^TIME' "$RES/$task.$name.txt") times"
  done
  if (( $(left) > 15 )); then
    timeout "$(( $(left) - 5 ))" "$WORK/drive" "$WORK/$task/check.txt" >"$RES/$task.check.txt" 2>&1
    log "$task variants: $(grep -c '^CHECK .* ok' "$RES/$task.check.txt") ok, $(grep -c '^CHECK .* fail' "$RES/$task.check.txt") failed"
  fi
done
python3 "$here/summary.py" "$RES" | tee "$RES/summary.txt"
log "done"
