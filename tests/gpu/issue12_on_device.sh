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
# Usage (repository root): tests/gpu/issue12_on_device.sh OUT_DIR   (STEPS="adversarial throughput_" limits;
# the words of STEPS are matched as scripts/device/common.sh says)
# Exit status: 77 without a GPU; otherwise 0 (read summary.txt: each step's exit code).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/device/common.sh"
out=$1
mkdir -p "$out"
device_require_gpu
new=$(device_wrap kopt-new "$PWD/.carry/bin/kopt" "$PWD/.carry")
old=$(device_wrap kopt-old "$PWD/.carry/old/bin/kopt" "$PWD/.carry")
save() { tar czf "${RESULTS_TGZ:-$out/../results.tgz}" -C "$out" . 2>/dev/null; }
STEP_DIR=$out STEP_SUMMARY=$out/summary.txt STEP_AFTER=save
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv > "$out/device.txt"
step adversarial python3 tests/adversarial/run_suite.py --kopt "$new" --out "$out/adversarial" --timeout 20
step versions python3 bench/compare_harness_versions.py --old "$old" --new "$new" --out "$out/versions.md" \
  --tasks gelu softmax gemm_bf16 reduce_sum saxpy transpose --rounds 2
step throughput_old python3 bench/harness_throughput.py --kopt "$old" --skip-peer --out "$out/throughput_old.md"
step throughput_new python3 bench/harness_throughput.py --kopt "$new" --skip-peer --out "$out/throughput_new.md"
step repeatability python3 bench/timing_repeatability.py --kopt "$new" --out "$out/timing_repeatability.md"
if [ -x .carry/bin/kopt_tests ]; then
  step unit env LD_LIBRARY_PATH=$DEVICE_LIBRARIES KOPT_RUNNER=$PWD/.carry/bin/kopt-runner .carry/bin/kopt_tests \
    --gtest_filter='*Runner*:*Bench*:*OutputFrames*:*Verdict*'
else
  step_skip unit "no .carry/bin/kopt_tests (scripts/package_for_device.sh packs it with the tests built)"
fi
exit 0
