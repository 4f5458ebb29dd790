#!/usr/bin/env bash
# The smallest end-to-end check that kopt times candidates on this machine's GPU, with
# kopt-runner's sandbox as a user gets it (KOPT_RUNNER_SANDBOX unset: full) and off:
# `kopt bench examples/tasks/saxpy` must finish, exit 0 and time the reference and its candidate,
# within 120 s each. It catches a timing phase that hangs (a first kernel launch inside a gated
# sample under lazy module loading) and a sandbox the driver cannot start under.
#
# Usage: tests/gpu/bench_smoke.sh KOPT REPOSITORY_ROOT   (ctest `gpu_bench_smoke`)
# BENCH_SMOKE_TIMEOUT_S: the limit of each run (default 120 s).
# Exit status: 77 (skipped) without an NVIDIA GPU; 0 when both runs pass; 1 otherwise.
set -u
kopt=${1:?usage: bench_smoke.sh KOPT REPOSITORY_ROOT}
root=${2:?usage: bench_smoke.sh KOPT REPOSITORY_ROOT}
command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
limit=${BENCH_SMOKE_TIMEOUT_S:-120}
status=0
for mode in default off; do
  environment=()
  [ "$mode" = off ] && environment=(KOPT_RUNNER_SANDBOX=off)
  env "${environment[@]}" timeout "$limit" "$kopt" bench "$root/examples/tasks/saxpy" --workspace "$work/$mode" \
    -f json -o "$work/$mode.json" > "$work/$mode.log" 2>&1
  code=$?
  timed=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(sum(1 for e in [r['reference']]+r['candidates'] if e['timing']))" \
    "$work/$mode.json" 2>/dev/null || echo 0)
  if [ "$code" -ne 0 ] || [ "$timed" -lt 2 ]; then
    echo "FAIL sandbox $mode: exit $code ($([ $code = 124 ] && echo "timed out after $limit s" || echo 'see below')), $timed entries timed"
    tail -n 15 "$work/$mode.log"
    status=1
  else
    echo "ok   sandbox $mode: reference and candidate timed"
  fi
done
exit $status
