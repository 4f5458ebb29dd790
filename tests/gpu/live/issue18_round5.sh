#!/bin/bash
# Issue 18, fast live collection, round 5 (helper h18live3): the overlapped build measured end to end
# with and without the launcher's warm-up kernel (round 4: issue18_round4.sh; results in
# tests/gpu/results_h200/issue18_round4/).
# From the root of a copy of the repository, with .carry/h18live3/ holding kopt_bundle.tar.xz (kopt,
# kopt-launcher, libkopt_timeline.so, lib/) and this script:
#   OUT=<empty dir> bash .carry/h18live3/issue18_round5.sh
#  1. kopt explain on examples/kernels/{uncoalesced_loads,shared_bank_conflicts,memory_latency_low_mlp}.cu:
#     "base" (KOPT_LAUNCHER=none: nvcc, then ncu) once per kernel, then 3 rounds of "overlap"
#     (KOPT_LAUNCHER_WARMUP=0) and "warmup" (the new default: the launcher's warm-up kernel).
#  2. Four blind-set .cu kernels (no cuBLAS), base against warmup, for the findings.
#  3. --set full on uncoalesced_loads.cu, base against warmup (the report and its exports).
# Everything lands in $OUT/h18live3.tar.gz (summary.txt inside; the summary is also printed).
set -u
OUT=${OUT:?set OUT to an empty folder}
REPO=$PWD
C=$REPO/.carry/h18live3
[ -x "$C/bin/kopt" ] || tar -C "$C" -xJf "$C/kopt_bundle.tar.xz"
KOPT=$C/bin/kopt
export KOPT_TIMELINE_LIBRARY=$C/bin/libkopt_timeline.so
export LD_LIBRARY_PATH="$C/lib:${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64"
export LC_ALL=C
export PATH="$PATH:/usr/local/cuda/bin"
BUDGET_S=${BUDGET_S:-170}
WORK=$(mktemp -d)
R=$WORK/h18live3
mkdir -p "$R"/runs "$R"/logs
SUMMARY=$R/summary.txt
START_NS=$(date +%s%N)
elapsed_s() { echo $((($(date +%s%N) - START_NS) / 1000000000)); }
left() { [ "$(elapsed_s)" -lt "$BUDGET_S" ]; }
say() { echo "$*" | tee -a "$SUMMARY"; }
finish() {
  say "total_s=$(elapsed_s)"
  find "$R" -type f \( -name '*.jsonl' -o -name 'raw.csv' -o -name 'source.csv' -o -name '*.log' -o -name 'sass.txt' \) \
    -size +128k -exec gzip -9 {} \;
  find "$R" -type f \( -name '*.so' -o -name '*.ncu-rep' \) -delete
  find "$R" -type f -perm -u+x -size +64k -delete  # binaries
  tar -C "$WORK" -czf "$OUT/h18live3.tar.gz" h18live3
  rm -rf "$WORK"
}
trap finish EXIT
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,persistence_mode,clocks.max.sm --format=csv,noheader
  ncu --version | tail -1
  ls -la "$C/bin"
  ncu --list-sections 2>&1 | head -40
} >"$R/env.txt" 2>&1
head -3 "$R/env.txt" >>"$SUMMARY"

# One line: wall, the phases, the top findings of each kernel.
explain() {  # NAME VARIANT SOURCE [kopt options...]
  local name=$1 variant=$2 source=$3 dir=$R/runs/$1 t0 rc
  shift 3
  t0=$(date +%s%N)
  case $variant in
    base) KOPT_LAUNCHER=none timeout 60 "$KOPT" explain --work-dir "$dir" -f json -o "$dir.json" "$@" "$source" ;;
    overlap) KOPT_LAUNCHER="$C/bin/kopt-launcher" KOPT_LAUNCHER_WARMUP=0 timeout 60 "$KOPT" explain --work-dir "$dir" \
      -f json -o "$dir.json" "$@" "$source" ;;
    warmup) KOPT_LAUNCHER="$C/bin/kopt-launcher" timeout 60 "$KOPT" explain --work-dir "$dir" -f json -o "$dir.json" \
      "$@" "$source" ;;
  esac >"$R/logs/$name.log" 2>&1
  rc=$?
  python3 - "$dir.json" "$name" "$rc" "$((($(date +%s%N) - t0) / 1000000))" <<'PY' | tee -a "$SUMMARY"
import json, sys
path, name, rc, ms = sys.argv[1:]
try:
    report = json.load(open(path))
except Exception as error:
    print(f"{name} exit={rc} ms={ms} (no report: {error})")
    sys.exit(0)
phases = "; ".join(f"{p['name'].split(' (')[0]} {p['start_s']:.2f}+{p['seconds']:.2f}" for p in report.get("collection_phases", []))
kernels = " | ".join(
    f"{k.get('function_name')}: " + (", ".join(f"{f.get('tool')}/{f.get('severity', '?')[:3]}" for f in k.get("findings", [])[:3]) or "-")
    for k in report.get("kernels", []))
print(f"{name} exit={rc} ms={ms} :: {kernels}\n    {phases}")
PY
}

KERNELS="uncoalesced_loads shared_bank_conflicts memory_latency_low_mlp"
for kernel in $KERNELS; do explain "base_${kernel}" base "examples/kernels/$kernel.cu"; done
for round in 1 2 3; do
  for variant in overlap warmup; do
    for kernel in $KERNELS; do explain "${variant}_${kernel}_$round" $variant "examples/kernels/$kernel.cu"; done
  done
done
for kernel in fp64_exp_decay scan_hillis_steele triangular_rows mufu_softplus_sigmoid; do
  left || break
  explain "blind_base_$kernel" base "examples/blind_set/$kernel.cu"
  explain "blind_warmup_$kernel" warmup "examples/blind_set/$kernel.cu"
done
if left; then
  explain full_base_uncoalesced_loads base examples/kernels/uncoalesced_loads.cu --set full
  explain full_warmup_uncoalesced_loads warmup examples/kernels/uncoalesced_loads.cu --set full
fi
