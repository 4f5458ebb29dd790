#!/bin/bash
# Issue 18, fast live collection: where the seconds of live `kopt explain` go, on the H200.
# From the repository root, with kopt packed by scripts/package_for_device.sh into .carry:
#   OUT=<empty dir> bash tests/gpu/live/issue18_live_phases.sh
# Times `kopt explain` three times each on examples/kernels/{uncoalesced_loads,shared_bank_conflicts,
# memory_latency_low_mlp}.cu and on the 20,000-launch program (examples/blind_set/many_tiny_launches),
# once with --set full, printing each run's phase breakdown (the JSON report's collection_phases) and
# top finding; then a few direct ncu runs: the targeted set's replay passes and time per launch, ncu's
# rules on and off (time, raw-page columns), --kill on the 20,000-launch program, nvidia-smi's time.
# Everything lands in $OUT/h18live/ (summary.txt, and h18live.tar.gz: reports, bundles, logs).
# About 2 minutes of GPU time; every step has a timeout, and optional steps stop after BUDGET_S.
set -u
OUT=${OUT:?set OUT to an empty folder}
REPO=$PWD
KOPT=${KOPT:-$REPO/.carry/bin/kopt}
export KOPT_TIMELINE_LIBRARY=${KOPT_TIMELINE_LIBRARY:-$(dirname "$KOPT")/libkopt_timeline.so}
export LD_LIBRARY_PATH="$REPO/.carry/lib:${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64"
export LC_ALL=C
BUDGET_S=${BUDGET_S:-150}
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

# ---- kopt explain, three times each (the first run of each also writes the terminal report, --verbose) ----
for round in 1 2 3; do
  for kernel in uncoalesced_loads shared_bank_conflicts memory_latency_low_mlp; do
    dir=$R/runs/${kernel}_$round
    timed "${kernel}_$round" 60 "$KOPT" explain --work-dir "$dir" -f json -o "$dir.json" \
      "examples/kernels/$kernel.cu"
    describe "$dir.json"
    rm -f "$dir/$kernel"  # the binary
  done
  dir=$R/runs/tiny_$round
  timed "tiny_$round" 60 "$KOPT" explain --work-dir "$dir" -f json -o "$dir.json" -- "$R/many_tiny_launches"
  describe "$dir.json"
done
# The terminal reports, for comparison with the goldens' wording (offline: kopt explain on the bundles).
dir=$R/runs/full_uncoalesced_loads
timed full_uncoalesced_loads 60 "$KOPT" explain --set full --work-dir "$dir" -f json -o "$dir.json" \
  examples/kernels/uncoalesced_loads.cu
describe "$dir.json"
rm -f "$dir/uncoalesced_loads" "$dir/profile.ncu-rep"

# ---- direct ncu runs (optional, as time allows) ----
METRICS=$(python3 - <<'PY'
import re
text = open("src/analysis/collection_metrics.cc").read()
body = text[text.index("kMetrics[] = {"):]
body = body[: body.index("};")]
print(",".join(re.findall(r'"([^"]+)"', body)))
PY
)
NOSASS=$(echo "$METRICS" | tr ',' '\n' | grep -v -E '^(smsp|sm)__sass_' | paste -sd, -)
say "targeted metrics: $(echo "$METRICS" | tr ',' '\n' | wc -l), of them SASS-instrumented: $(echo "$METRICS" | tr ',' '\n' | grep -c -E '^(smsp|sm)__sass_')"
BIN=$R/runs/bins
mkdir -p "$BIN"
nvcc -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -o "$BIN/memory_latency_low_mlp" \
  examples/kernels/memory_latency_low_mlp.cu >"$R/logs/nvcc_mll.log" 2>&1
nvcc -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -o "$BIN/uncoalesced_loads" \
  examples/kernels/uncoalesced_loads.cu >"$R/logs/nvcc_unc.log" 2>&1
stamp() { while IFS= read -r line; do echo "$(date +%s.%N | cut -c1-14) $line"; done; }
export -f stamp
ncu_base=(ncu --section LaunchStats --section Occupancy --clock-control none --target-processes all)
if [ "$(elapsed_s)" -lt "$BUDGET_S" ]; then
  # Passes and seconds per launch (ncu prints its progress lines only without --csv).
  timed ncu_passes_mll 60 bash -c "stdbuf -oL -eL $(printf '%q ' "${ncu_base[@]}") --metrics $METRICS --apply-rules no --page raw $BIN/memory_latency_low_mlp 2>&1 | stamp"
  grep -E "Profiling|Connected|Disconnected" "$R/logs/ncu_passes_mll.log" | cut -c1-160 | tee -a "$SUMMARY"
fi
if [ "$(elapsed_s)" -lt "$BUDGET_S" ]; then
  timed ncu_passes_nosass_mll 60 bash -c "stdbuf -oL -eL $(printf '%q ' "${ncu_base[@]}") --metrics $NOSASS --apply-rules no --page raw $BIN/memory_latency_low_mlp 2>&1 | stamp"
  grep -E "Profiling|Connected|Disconnected" "$R/logs/ncu_passes_nosass_mll.log" | cut -c1-160 | tee -a "$SUMMARY"
fi
for rules in yes no; do
  if [ "$(elapsed_s)" -lt "$BUDGET_S" ]; then
    timed "ncu_rules_${rules}_unc" 60 "${ncu_base[@]}" --metrics "$METRICS" --apply-rules "$rules" \
      --csv --page raw --print-units base "$BIN/uncoalesced_loads"
    grep '^"ID"' "$R/logs/ncu_rules_${rules}_unc.log" | tr ',' '\n' | sort >"$R/ncu/columns_rules_$rules.txt"
  fi
done
if [ -s "$R/ncu/columns_rules_yes.txt" ] && [ -s "$R/ncu/columns_rules_no.txt" ]; then
  say "raw-page columns, rules on: $(wc -l <"$R/ncu/columns_rules_yes.txt"), off: $(wc -l <"$R/ncu/columns_rules_no.txt"); differing: $(diff "$R/ncu/columns_rules_yes.txt" "$R/ncu/columns_rules_no.txt" | grep -c '^[<>]')"
  diff "$R/ncu/columns_rules_yes.txt" "$R/ncu/columns_rules_no.txt" | head -20 | tee -a "$SUMMARY"
fi
if [ "$(elapsed_s)" -lt "$BUDGET_S" ]; then
  timed ncu_kill_tiny 60 "${ncu_base[@]}" --metrics "$METRICS" --apply-rules no --launch-count 5 --kill yes \
    --csv --page raw --print-units base "$R/many_tiny_launches"
  say "  --kill: $(grep -c '^"[0-9]' "$R/logs/ncu_kill_tiny.log") launch rows; ncu lines:"
  grep -E "^==" "$R/logs/ncu_kill_tiny.log" | cut -c1-200 | tee -a "$SUMMARY"
fi
for i in 1 2 3; do timed "nvidia_smi_$i" 30 nvidia-smi --query-gpu=compute_cap --format=csv,noheader; done
timed cuobjdump_unc 30 cuobjdump -sass "$BIN/uncoalesced_loads"
timed nvcc_unc 60 nvcc -O3 -lineinfo -Xptxas -v -gencode=arch=compute_90a,code=sm_90a -o "$BIN/u2" \
  examples/kernels/uncoalesced_loads.cu
timed nvcc_unc_cubin 60 nvcc -O3 -lineinfo -Xptxas -v -gencode=arch=compute_90a,code=sm_90a -cubin \
  -o "$BIN/u2.cubin" examples/kernels/uncoalesced_loads.cu
rm -rf "$BIN" "$R/many_tiny_launches"
