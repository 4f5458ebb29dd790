#!/bin/bash
# Issue 16, helper h16e: the harness's trust checks on the GPU machine with
# the pulled output channel and the comparisons made while outputs arrive
# (the defaults of branch h16e): every cheating or broken candidate must
# still be rejected with an expected kind, every control must pass.
#   1. tests/adversarial/run_suite.py: the native adversarial suite (one kopt
#      bench per task of examples/tasks/, --rerun, --timeout 20);
#   2. bench/kernelbench_compare.py --steps import,cheats: the KernelBench
#      ModelNew cheats of tests/adversarial/kernelbench on the imported
#      fixture problems (relu_small, softmax_small; PyTorch reference bridge).
# Runs from the root of a copy of branch h16e with .carry/h16e/bin.tar.xz
# (bench/kernelbench_capture/package_h16e.sh) and .carry/capture/h16/problems
# (for the import step). About 3.5 minutes (capped at 170 s and 80 s).
# Writes $OUT/h16e_trust.tar.gz (adversarial.log, adversarial_results.md,
# the per-task JSON reports, cheats.log, cheats_summary.md/json, env.txt).
set -u
H=.carry/h16e
C=.carry/capture/h16
R=$(mktemp -d)/h16e_trust
mkdir -p "$R"
T=$(mktemp -d)
[ -d "$H/bin" ] || python3 -c "import tarfile,sys;tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$H/bin.tar.xz" "$H"
export LD_LIBRARY_PATH=$PWD/$H/lib:/usr/local/cuda/lib64
export KOPT_RUNNER=$PWD/$H/bin/kopt-runner
export PATH=/usr/local/cuda/bin:$PATH
find "$C/problems" -mindepth 1 -maxdepth 1 -type d -empty -delete 2>/dev/null
pack() {
  cp "$T/adv/results.md" "$R/adversarial_results.md" 2>/dev/null
  mkdir -p "$R/adversarial"
  cp "$T"/adv/*.json "$R/adversarial/" 2>/dev/null
  cp "$T/kb/summary.md" "$R/cheats_summary.md" 2>/dev/null
  cp "$T/kb/summary.json" "$R/cheats_summary.json" 2>/dev/null
  tar -czf "$OUT/h16e_trust.tar.gz" -C "$(dirname "$R")" h16e_trust 2>/dev/null
}
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2
  echo "cores $(nproc)  kernel $(uname -r)  yama $(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo none)  uid $(id -u)"
  git log --oneline -1 | cat; ls -la "$H/bin"; } > "$R/env.txt" 2>&1
S=$(date +%s)
timeout 170 python3 tests/adversarial/run_suite.py --kopt "$H/bin/kopt" --out "$T/adv" --timeout 20 \
  > "$R/adversarial.log" 2>&1
echo "rc=$? wall=$(( $(date +%s) - S ))" >> "$R/adversarial.log"
pack
S=$(date +%s)
timeout 80 python3 bench/kernelbench_compare.py --kopt "$H/bin/kopt" --problems "$C/problems" \
  --kb-package "$C/kernelbench" --out "$T/kb" --steps import,cheats --timing-seconds 1 > "$R/cheats.log" 2>&1
echo "rc=$? wall=$(( $(date +%s) - S ))" >> "$R/cheats.log"
pack
tail -4 "$R/adversarial.log"
grep -c "| ok |" "$R/adversarial_results.md" 2>/dev/null
grep -E "WRONG" "$R/adversarial_results.md" "$R/cheats_summary.md" 2>/dev/null | head
tail -1 "$R/cheats.log"
