#!/usr/bin/env bash
# Runs several device scripts in one call of the GPU machine, each under its own
# time limit, and packs each one's results into one archive so that the call's
# 8-file limit holds: $OUT/summary.txt (one line per step: exit code, seconds)
# and $OUT/<step>.tgz. Binaries come carried (.carry/bin, .carry/lib:
# scripts/package_for_device.sh; the baseline harness in .carry/old/bin).
# Usage (repository root): OUT=DIR scripts/device/batch.sh STEP[:SECONDS]...
# Steps: issue30_runtime issue30_mutation issue31_suite issue31_baselines
#        issue34_program explain_engine
set -u
: "${OUT:?set OUT}"
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
export PATH=/usr/local/cuda/bin:$PATH
kopt=$(device_wrap kopt-with-libraries "$PWD/.carry/bin/kopt")
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; git log --oneline -1 2>/dev/null; } \
  > "$OUT/summary.txt" 2>&1
run_step() {  # name seconds
  local name=$1 seconds=$2 dir
  dir=$(mktemp -d)/$name
  mkdir -p "$dir"
  local start=$(date +%s)
  case $name in
    issue30_runtime) timeout "$seconds" scripts/device/issue30_runtime.sh "$dir" ;;
    issue30_mutation) OUT=$dir BUDGET=${MUTATION_BUDGET:-120} timeout "$seconds" scripts/device/issue30_mutation.sh ;;
    issue31_suite) OUT=$dir timeout "$seconds" scripts/device/issue31_suite.sh ;;
    issue31_baselines) OUT=$dir BUDGET=$((seconds - 90)) timeout "$seconds" scripts/device/issue31_baselines.sh ;;
    issue34_program) OUT=$dir KOPT=$kopt timeout "$seconds" scripts/device/issue34_program.sh ;;
    explain_engine) OUT=$dir KOPT=$kopt timeout "$seconds" tests/gpu/explain_engine_on_device.sh ;;
    *) echo "unknown step $name" ;;
  esac > "$dir/stdout.txt" 2>&1
  local code=$?
  printf '%-18s exit %-4s %5s s\n' "$name" "$code" "$(($(date +%s) - start))" >> "$OUT/summary.txt"
  tail -n 25 "$dir/stdout.txt" | sed "s/^/  $name| /" >> "$OUT/summary.txt"
  tar czf "$OUT/$name.tgz" -C "$(dirname "$dir")" "$name" 2> /dev/null
}
for spec in "$@"; do run_step "${spec%%:*}" "${spec#*:}"; done
cat "$OUT/summary.txt"
