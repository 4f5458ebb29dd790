#!/bin/bash
# Issue 16, cost per candidate on the GPU machine, in one run, beside
# KernelBench's own evaluation of the same candidate (docs/kernelbench.md
# "Cost per candidate"; bench/kernelbench_compare.py step `cost`):
#   - KernelBench's eval_kernel_against_ref of the example ModelNew file of
#     level1/88_MinGPTNewGelu and level1/12_Matmul_with_diagonal_matrices_:
#     cold (fresh extension build directory; the two cold evaluations at the
#     same time) and warm (same build directory), each a new process;
#   - kopt bench of the same file and 3 distinct copies in one command, cold
#     (empty workspace) then warm (--rerun, compile cache populated), each
#     candidate's marginal cost from the progress line's time stamps; and the
#     file alone, cold (the whole first invocation for one candidate).
# Run from the repository root with:
#   .carry/bin/{kopt,kopt-runner} built from this branch, libraries in .carry/lib
#     (scripts/package_for_device.sh);
#   .carry/capture/h16/problems/level1/{88_MinGPTNewGelu,12_Matmul_with_diagonal_matrices_}.py and
#   .carry/capture/h16/kernelbench/{eval,timing,dataset,utils}.py (KernelBench 423217d,
#     from the search tool's fetch of ScalingIntelligence/KernelBench; not committed).
# SKIP_KB=1: kopt's runs only (KernelBench's evaluation measured by an
# earlier run of this script): about 135 s for both problems (level1/88's
# three commands 86 s, level1/12's about 50 s); PROBLEMS=88 alone about 90 s.
# CAP: the compare's time limit (default 225 s).
# Writes $OUT/h16/ (summary.md, summary.json, compare.log, env.txt) and
# $OUT/h16/raw.tar.gz (reports, logs, children's timelines). About 200 s; the
# compare is cut at 225 s (what it finished is in the summary).
set -u
C=.carry/capture/h16
R=$OUT/h16
mkdir -p "$R"
T=$(mktemp -d)
export LD_LIBRARY_PATH=$PWD/.carry/lib:/usr/local/cuda/lib64
export KOPT_RUNNER=$PWD/.carry/bin/kopt-runner
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import sys,torch;print(sys.version.split()[0], torch.__version__)"
  nproc; git log --oneline -1 | cat; } > "$R/env.txt" 2>&1
S=$(date +%s.%N)
timeout ${CAP:-225} python3 bench/kernelbench_compare.py --kopt .carry/bin/kopt --problems "$C/problems" \
  --kb-package "$C/kernelbench" --out "$T/out" --scratch "$T/scratch" --steps import,cost \
  --cost-problems ${PROBLEMS:-88,12} --cost-candidates 4 --cost-reps 1 --kb-cold-parallel --timing-seconds 1 \
  ${SKIP_KB:+--cost-skip-kernelbench} > "$R/compare.log" 2>&1 &
P=$!
# The summary is copied out as it grows: a run cut from outside still leaves what it measured.
while kill -0 $P 2>/dev/null; do cp "$T/out/summary.md" "$T/out/summary.json" "$R/" 2>/dev/null; sleep 3; done
wait $P
echo "rc=$? wall=$(python3 -c "import time;print(round(time.time()-$S,1))")" >> "$R/compare.log"
cp "$T/out/summary.md" "$T/out/summary.json" "$R/" 2>/dev/null
tar -czf "$R/raw.tar.gz" -C "$T/out" --exclude='tasks' . 2>/dev/null
cat "$R/summary.md" 2>/dev/null | grep -A12 "^Cost per candidate"
tail -1 "$R/compare.log"
