#!/bin/bash
# Issue 18, fast live collection: where the seconds of live `kopt explain` go, on the H200.
# From the repository root, with kopt packed by scripts/package_for_device.sh into .carry:
#   OUT=<empty dir> bash tests/gpu/live/issue18_live_phases.sh
# Times `kopt explain` three times each on examples/kernels/{uncoalesced_loads,shared_bank_conflicts,
# memory_latency_low_mlp}.cu and on the 20,000-launch program (examples/blind_set/many_tiny_launches),
# printing each run's phase breakdown (the JSON report's collection_phases) and top finding, and the
# main branch's kopt once each (.carry/bin/kopt_main, when packed); then direct measurements: ncu's
# own time line, nvcc --threads 0, and the replay passes per metric family of the targeted set.
# (Round 1, 2026-12-02 03:03 UTC, also measured: 27 passes per launch, 26 without the SASS-instrumented
# metrics; --apply-rules no 0.3 s faster with the same 925 raw-page columns; --kill ends the program
# after the sample; nvidia-smi 25 ms; nvcc 2.16 s, -cubin alone 0.72 s; cuobjdump 0.94 s. Round 2,
# 03:34 UTC, tried ncu started before nvcc on a shell launcher polling for the build with `sleep`: each
# .cu took 20-23 s instead of 5.6-7.0 s (about 0.5 s per `sleep` process started under ncu, ~35 of them;
# reverted); the same session measured main's kopt at 5.6, 5.7, 7.0 s per .cu and 8.7 s for the
# 20,000-launch program, this branch's at 5.6 s for the latter.)
# Everything lands in $OUT/h18live/ (summary.txt, and h18live.tar.gz: reports, bundles, logs).
# About 2 minutes of GPU time; every step has a timeout, and optional steps stop after BUDGET_S.
set -u
OUT=${OUT:?set OUT to an empty folder}
REPO=$PWD
KOPT=${KOPT:-$REPO/.carry/bin/kopt}
export KOPT_TIMELINE_LIBRARY=${KOPT_TIMELINE_LIBRARY:-$(dirname "$KOPT")/libkopt_timeline.so}
export LD_LIBRARY_PATH="$REPO/.carry/lib:${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64"
export LC_ALL=C
BUDGET_S=${BUDGET_S:-155}
mkdir -p "$OUT/h18live"
WORK=$(mktemp -d)
R=$WORK/h18live
mkdir -p "$R"/runs "$R"/logs "$R"/ncu
SUMMARY=$OUT/h18live/summary.txt
START_NS=$(date +%s%N)
elapsed_s() { echo $((($(date +%s%N) - START_NS) / 1000000000)); }
say() { echo "$*" | tee -a "$SUMMARY"; }
timed() {  # NAME LIMIT_S CMD...: output to logs/NAME.log; "NAME exit=RC ms=MS" to times.txt
  local name=$1 limit=$2 t0 rc
  shift 2
  t0=$(date +%s%N)
  timeout "$limit" "$@" >"$R/logs/$name.log" 2>&1
  rc=$?
  echo "$name exit=$rc ms=$((($(date +%s%N) - t0) / 1000000))" | tee -a "$R/times.txt" >>"$SUMMARY"
  return $rc
}
finish() {
  say "total_s=$(elapsed_s)"
  find "$R" -type f \( -name '*.jsonl' -o -name 'raw.csv' -o -name '*.log' \) -size +256k -exec gzip -9 {} \;
  cp "$R/times.txt" "$OUT/h18live/" 2>/dev/null
  tar -C "$WORK" -czf "$OUT/h18live/h18live.tar.gz" h18live
  rm -rf "$WORK"
}
trap finish EXIT

{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,persistence_mode,clocks.max.sm --format=csv,noheader
  ncu --version | tail -1
  nvcc --version | tail -1
  ls -la "$KOPT" "$KOPT_TIMELINE_LIBRARY"
  git -C "$REPO" log --oneline -1 2>/dev/null
} >"$R/env.txt" 2>&1
cat "$R/env.txt" >>"$SUMMARY"

# One line per phase, and the top finding of each kernel, from a JSON report.
describe() {  # REPORT.json
  python3 - "$1" <<'PY' | tee -a "$SUMMARY"
import json, sys
try:
    report = json.load(open(sys.argv[1]))
except Exception as error:  # a failed run leaves no report
    print(f"    (no report: {error})")
    sys.exit(0)
for phase in report.get("collection_phases", []):
    end = phase["start_s"] + phase["seconds"]
    print(f"    {phase['start_s']:6.2f}-{end:6.2f} s {phase['seconds']:6.2f} s  {phase['name']}")
for kernel in report.get("kernels", []):
    findings = kernel.get("findings", [])
    top = findings[0] if findings else None
    text = f"{top.get('tool', '?')} ({top.get('severity', '?')}): {top.get('title', '')}" if top else "no finding"
    print(f"    kernel {kernel.get('function_name', '?')}: top = {text[:150]}")
    if top and top.get("tool") == "launch_overhead":
        for evidence in top.get("evidence", []):
            if "gap" in str(evidence.get("metric", "")):
                print(f"      evidence: {evidence.get('metric')} = {evidence.get('value')}")
for note in report.get("notes", []):
    print(f"    note: {note[:200]}")
PY
}

# The 20,000-launch program, built here like the blind-set capture built it.
nvcc -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -I examples/kernels -o "$R/many_tiny_launches" \
  examples/blind_set/many_tiny_launches.cu >"$R/logs/nvcc_tiny.log" 2>&1 || say "nvcc of many_tiny_launches failed"

# ---- kopt explain, three times each; the main branch's kopt (.carry/bin/kopt_main, when packed) once each,
# in the same session, for the before/after comparison ----
KOPT_MAIN=$(dirname "$KOPT")/kopt_main
explain_all() {  # ROUND BINARY TAG
  local round=$1 binary=$2 tag=$3 kernel dir
  for kernel in uncoalesced_loads shared_bank_conflicts memory_latency_low_mlp; do
    dir=$R/runs/${tag}${kernel}_$round
    timed "${tag}${kernel}_$round" 60 "$binary" explain --work-dir "$dir" -f json -o "$dir.json" \
      "examples/kernels/$kernel.cu"
    describe "$dir.json"
    rm -f "$dir/$kernel"  # the binary
  done
  dir=$R/runs/${tag}tiny_$round
  timed "${tag}tiny_$round" 60 "$binary" explain --work-dir "$dir" -f json -o "$dir.json" -- "$R/many_tiny_launches"
  describe "$dir.json"
}
for round in 1 2 3; do
  explain_all "$round" "$KOPT" ""
  if [ "$round" = 1 ] && [ -x "$KOPT_MAIN" ]; then explain_all 1 "$KOPT_MAIN" main_; fi
done

# ---- direct measurements (optional, as time allows, most useful first) ----
METRICS=$(python3 - <<'PY'
import re
text = open("src/analysis/collection_metrics.cc").read()
body = text[text.index("kMetrics[] = {"):]
body = body[: body.index("};")]
print(",".join(re.findall(r'"([^"]+)"', body)))
PY
)
BIN=$R/runs/bins
mkdir -p "$BIN"
stamp() { while IFS= read -r line; do echo "$(date +%s.%N | cut -c1-14) $line"; done; }
export -f stamp
NVCC=(nvcc -O3 -lineinfo -Xptxas -v -gencode=arch=compute_90a,code=sm_90a)
NCU=(ncu --section LaunchStats --section Occupancy --metrics "$METRICS" --clock-control none --apply-rules no
     --target-processes all --csv --page raw --print-units base)
# Where ncu's own time goes: its start, the program's connection, the end (targeted set, 2 kernels).
"${NVCC[@]}" -o "$BIN/sbc" examples/kernels/shared_bank_conflicts.cu >/dev/null 2>&1
if [ "$(elapsed_s)" -lt "$BUDGET_S" ]; then
  { echo "$(date +%s.%N | cut -c1-14) start"; "${NCU[@]}" "$BIN/sbc" 2>&1 | grep --line-buffered '^==' | stamp
    echo "$(date +%s.%N | cut -c1-14) end"; } >"$R/logs/ncu_stamps.log"
  cut -c1-140 "$R/logs/ncu_stamps.log" | tee -a "$SUMMARY"
fi
# nvcc with --threads 0 against without (one architecture).
for i in 1 2; do
  [ "$(elapsed_s)" -lt "$BUDGET_S" ] || break
  timed "nvcc_plain_$i" 60 "${NVCC[@]}" -o "$BIN/np" examples/kernels/uncoalesced_loads.cu
  timed "nvcc_threads0_$i" 60 "${NVCC[@]}" --threads 0 -o "$BIN/nt" examples/kernels/uncoalesced_loads.cu
done
# Replay passes per metric family (one launch of shared_bank_conflicts), the sections alone first.
passes() {  # NAME [METRIC LIST]
  local name=$1 list=${2:-}
  [ "$(elapsed_s)" -lt "$BUDGET_S" ] || return
  timeout 60 ncu --section LaunchStats --section Occupancy ${list:+--metrics "$list"} --clock-control none \
    --apply-rules no -k regex:^shared_bank -c 1 "$BIN/sbc" >"$R/logs/passes_$name.log" 2>&1
  say "passes $name ($(echo "$list" | tr ',' '\n' | grep -c .) metrics): $(grep -o '[0-9]* passes' "$R/logs/passes_$name.log" | head -1)"
}
family() { echo "$METRICS" | tr ',' '\n' | grep -E "$1" | grep -v -E "${2:-^$}" | paste -sd, -; }
passes sections_only
passes all "$METRICS"
passes dram "$(family '^dram__')"
passes gpc_gpu "$(family '^(gpc|gpu)__')"
passes l1tex "$(family '^l1tex__')"
passes lts "$(family '^lts__')"
passes sm_pipes "$(family '^sm__inst_executed_pipe')"
passes sm_other "$(family '^sm__' '^sm__(inst_executed_pipe|sass)')"
passes stalls "$(family '^smsp__average_warps_issue_stalled')"
passes sass_instrumented "$(family '^(smsp|sm)__sass_')"
passes smsp_other "$(family '^smsp__' '^smsp__(average_warps_issue_stalled|sass_)')"
rm -rf "$BIN" "$R/many_tiny_launches"
