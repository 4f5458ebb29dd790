#!/usr/bin/env bash
# The GPU validation of issue 30's runtime half (sandbox, host time counted,
# staged + reservoir-verified timed samples), both harness versions in one run:
#   .carry/bin      the new kopt, kopt-runner, kopt_tests (scripts/package_for_device.sh)
#   .carry/old/bin  kopt and kopt-runner of the baseline (scripts/package_old_harness.sh 6014c8a)
# Steps, most important first ($OUT/summary.txt, one line each):
#   adversarial      issue 30's cases and controls (+ patch_event_timer.cu) with the new harness
#   adversarial_old  the same cases with the old harness (what they got before)
#   versions         honest example candidates timed by both versions (within 2 %)
#   throughput_*     bench/harness_throughput.py with each version (within 25 %)
#   unit             the GPU-dependent unit tests (runner binary, sandbox); skipped with a
#                    note when .carry/bin/kopt_tests was not carried
#   suite_all        (only with STEPS=suite_all) the whole adversarial suite with the new harness
# About 5 minutes on an H100 without suite_all (most of it nvcc and the two throughput runs).
# Usage (repository root): scripts/device/issue30_runtime.sh [OUT]   (STEPS="adversarial versions" limits;
# the words of STEPS are matched as scripts/device/common.sh says)
# Writes at most 8 files to OUT (default $OUT): summary.txt, adversarial.md, adversarial_old.md,
# versions.md, throughput_old.md, throughput_new.md, unit.txt, device.txt.
# Exit status: 77 without a GPU; otherwise 0 (read summary.txt: each step's exit code).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out=${1:-${OUT:-issue30-out}}
mkdir -p "$out"
work=$(mktemp -d)
device_require_gpu
new=$(device_wrap kopt-new "$PWD/.carry/bin/kopt" "$work")
old=$(device_wrap kopt-old "$PWD/.carry/old/bin/kopt" "$work")
STEP_DIR=$work STEP_SUMMARY=$out/summary.txt STEP_OPTIONAL=suite_all
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/device.txt"
uname -r >> "$out/device.txt"
# The sandbox on this machine's kernel and driver: Landlock's ABI, then one honest candidate benched with
# the sandbox full and off (their stderr kept: "file writes not restricted" names a kernel without it).
python3 -c "import ctypes; l=ctypes.CDLL(None, use_errno=True); print('landlock abi', l.syscall(444, None, 0, 1), ctypes.get_errno())" \
  >> "$out/device.txt" 2>&1
probe() {  # mode
  KOPT_RUNNER_SANDBOX=$1 "$new" bench examples/tasks/gelu examples/tasks/gelu/candidates/$(ls examples/tasks/gelu/candidates | head -1) \
    --workspace "$work/probe_$1" 2>&1 | tail -n 12
}
marker=$(mktemp)
step sandbox_probe_full probe full
step sandbox_probe_off probe off
# What the driver opens for writing (with the sandbox off): decides what stage 0 must allow.
{ echo "files under /dev/shm changed by the probes:"; find /dev/shm -newer "$marker" 2>&1 | head -20; } >> "$out/device.txt"
if command -v strace > /dev/null; then
  KOPT_RUNNER_SANDBOX=off strace -f -qq -e trace=open,openat,creat -o "$work/strace.txt" "$new" bench examples/tasks/gelu \
    --workspace "$work/probe_strace" > /dev/null 2>&1
  { echo "writable opens (strace, sandbox off):"; grep -E 'O_WRONLY|O_RDWR|O_CREAT|creat\(' "$work/strace.txt" |
      sed -E 's/^[0-9]+ +//' | sed -E 's/= [0-9]+$/= fd/' | sort | uniq -c | sort -rn | head -30; } >> "$out/device.txt"
else
  echo "no strace on this machine" >> "$out/device.txt"
fi
issue30_cases=$(python3 - <<'PY'
import tomllib
manifest = tomllib.load(open("tests/adversarial/expected.toml", "rb"))
issue30 = [c["file"] for c in manifest["case"] if "class " in c["why"]]
issue30 += ["legit_programmatic_dependent_launch.cu", "legit_persistent_cooperative.cu",
            "legit_graph_updated_in_place.cu", "legit_cuda_graph.cu", "patch_event_timer.cu"]
print(" ".join(issue30))
PY
)
# shellcheck disable=SC2086
step adversarial python3 tests/adversarial/run_suite.py --kopt "$new" --out "$work/adversarial" --timeout 20 \
  $issue30_cases
cp "$work/adversarial/results.md" "$out/adversarial.md" 2>/dev/null
# shellcheck disable=SC2086
step adversarial_old python3 tests/adversarial/run_suite.py --kopt "$old" --out "$work/adversarial_old" \
  --timeout 20 $issue30_cases
cp "$work/adversarial_old/results.md" "$out/adversarial_old.md" 2>/dev/null
step versions python3 bench/compare_harness_versions.py --old "$old" --new "$new" --out "$out/versions.md" \
  --tasks gelu softmax saxpy reduce_sum --rounds 2
step throughput_old python3 bench/harness_throughput.py --kopt "$old" --skip-peer --out "$out/throughput_old.md"
step throughput_new python3 bench/harness_throughput.py --kopt "$new" --skip-peer --out "$out/throughput_new.md"
if [ -x .carry/bin/kopt_tests ]; then
  step unit env LD_LIBRARY_PATH=$DEVICE_LIBRARIES KOPT_RUNNER=$PWD/.carry/bin/kopt-runner .carry/bin/kopt_tests \
    --gtest_filter='*RunnerBinary*:*ProcessSandbox*:*FileWrite*:*Verdict*'
  cat "$work/unit.out" "$work/unit.err" 2>/dev/null | tail -60 > "$out/unit.txt"
else
  step_skip unit "no .carry/bin/kopt_tests (scripts/package_for_device.sh packs it with the tests built)"
fi
step suite_all python3 tests/adversarial/run_suite.py --kopt "$new" --out "$work/suite_all" --timeout 20
[ -f "$work/suite_all/results.md" ] && cp "$work/suite_all/results.md" "$out/adversarial.md"
# Where a step failed, its error tail goes into the summary (the 8-file limit keeps the rest here).
for name in adversarial adversarial_old versions throughput_old throughput_new; do
  [ -s "$work/$name.err" ] && { echo "--- $name stderr (tail)"; tail -n 15 "$work/$name.err"; } >> "$out/summary.txt"
done
exit 0
