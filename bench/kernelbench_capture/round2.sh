#!/bin/bash
# h16 round 2 (issue 16): on merged main with main's binaries under .carry/build/.
# Imports the carried KernelBench problems (27 level 1, 7 level 2), times their
# references with PyTorch, benches the five example candidates (native and
# ModelNew), the KernelBench cheats of tests/adversarial/kernelbench (kopt and
# KernelBench's own eval), and the cost per candidate beside KernelBench's
# eval. Writes $OUT/h16-round2.tar.gz.
set -u
D=$(cd "$(dirname "$0")" && pwd)
R=$(mktemp -d)/h16r2
mkdir -p "$R"
export KOPT_RUNNER=$PWD/.carry/build/src/kopt-runner
timeout 560 python3 bench/kernelbench_compare.py --kopt .carry/build/src/kopt --problems "$D/problems" \
  --kb-package "$D/kernelbench" --out "$R" --timing-seconds 1 --torch-compile > "$R/compare.log" 2>&1
echo "rc=$?" >> "$R/compare.log"
tar -czf "$OUT/h16-round2.tar.gz" -C "$(dirname "$R")" --exclude='ws_*' --exclude='kb_build*' --exclude='problem.py' h16r2
