#!/usr/bin/env bash
# The H200 validation of issue 12 (a kopt bench verdict hostile candidate code
# cannot forge), in one device run, with both harness versions:
#   .carry/bin      the new kopt, kopt-runner, kopt_tests (scripts/package_for_device.sh)
#   .carry/old/bin  kopt and kopt-runner of 6610a78 (scripts/package_old_harness.sh)
# Steps, most important first (OUT_DIR/summary.txt, one line each;
# OUT_DIR/../results.tgz refreshed after every step):
#   adversarial   the whole suite (old and new cases) with the new harness
#   versions      the honest example candidates timed by both versions (within 2 %)
#   throughput    bench/harness_throughput.py with each version (within 25 %)
#   repeatability bench/timing_repeatability.py with the new harness (< 1 % spread)
#   unit          the GPU-dependent unit tests (kopt_tests, runner binary tests)
# Usage (repository root): tests/gpu/issue12_on_device.sh OUT_DIR   (STEPS="adversarial versions" limits)
# Exit status: 77 without a GPU; otherwise 0 (read summary.txt: each step's exit code).
set -u
out=$1
mkdir -p "$out"
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
export PATH=/usr/local/cuda/bin:$PATH
libraries=$PWD/.carry/lib:/usr/local/cuda/lib64
wrap() {  # name binary: a launcher that sets the carried libraries for kopt only
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$libraries" "$2" > "$PWD/.carry/$1"
  chmod +x "$PWD/.carry/$1"
  echo "$PWD/.carry/$1"
}
new=$(wrap kopt-new "$PWD/.carry/bin/kopt")
old=$(wrap kopt-old "$PWD/.carry/old/bin/kopt")
wanted() {
  [ -z "${STEPS:-}" ] && return 0
  local s; for s in $STEPS; do case $1 in "$s"*) return 0 ;; esac; done
  return 1
}
save() { tar czf "${RESULTS_TGZ:-$out/../results.tgz}" -C "$out" . 2>/dev/null; }
step() {  # name command...
  local name=$1; shift
  wanted "$name" || return 0
  local start=$(date +%s.%N)
  "$@" > "$out/$name.out" 2> "$out/$name.err"
  local code=$?
  printf '%-16s exit %-3s %6.1f s  %s\n' "$name" "$code" "$(awk "BEGIN{print $(date +%s.%N) - $start}")" \
    "$(tail -c 200 "$out/$name.out" | tr '\n' ' ')" | tee -a "$out/summary.txt"
  save
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv > "$out/device.txt"
step adversarial python3 tests/adversarial/run_suite.py --kopt "$new" --out "$out/adversarial" --timeout 20
step versions python3 bench/compare_harness_versions.py --old "$old" --new "$new" --out "$out/versions.md" \
  --tasks gelu softmax gemm_bf16 reduce_sum saxpy transpose --rounds 2
step throughput_old python3 bench/harness_throughput.py --kopt "$old" --skip-peer --out "$out/throughput_old.md"
step throughput_new python3 bench/harness_throughput.py --kopt "$new" --skip-peer --out "$out/throughput_new.md"
step repeatability python3 bench/timing_repeatability.py --kopt "$new" --out "$out/timing_repeatability.md"
step unit env LD_LIBRARY_PATH=$libraries KOPT_RUNNER=$PWD/.carry/bin/kopt-runner .carry/bin/kopt_tests \
  --gtest_filter='*Runner*:*Bench*:*OutputFrames*:*Verdict*'
exit 0
