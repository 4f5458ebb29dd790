#!/bin/bash
# Issue 16, cost per candidate on the GPU machine: KernelBench's own
# eval_kernel_against_ref of examples/kernelbench/88_MinGPTNewGelu_modelnew.py
# cold + 2 warm, then kopt bench of the same file cold + 2 warm (a new process
# each; docs/kernelbench.md "Cost per candidate"), all in one run, with the
# kopt children's event timelines. Run from the repo root, with this folder
# carried as .carry/capture/h16/ next to problems/level1/88_MinGPTNewGelu.py
# and kernelbench/{eval,timing,dataset,utils}.py (KernelBench 423217d, not
# committed), kopt from .carry/bin (main's packaging; or bin.tar.xz beside
# this script) and its libraries in .carry/lib. Writes $OUT/h16.tar.gz;
# about 150-200 s (the compare step is cut at 195 s, then the tar).
set -u
C=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
if [ -f "$C/bin.tar.xz" ]; then tar -xJf "$C/bin.tar.xz" -C "$T"; else mkdir -p "$T/bin"; cp .carry/bin/kopt .carry/bin/kopt-runner "$T/bin/"; fi
export LD_LIBRARY_PATH=$PWD/.carry/lib:/usr/local/cuda/lib64
export KOPT_RUNNER=$T/bin/kopt-runner
R=$T/h16; mkdir -p "$R" "$T/scratch"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import sys,torch;print(sys.version.split()[0], torch.__version__)"; nproc; } > "$R/env.txt" 2>&1
S=$(date +%s.%N)
timeout 195 python3 bench/kernelbench_compare.py --kopt "$T/bin/kopt" --problems "$C/problems" \
  --kb-package "$C/kernelbench" --out "$R" --scratch "$T/scratch" --steps import,cost --cost-problems 88 \
  --cost-reps 2 --timing-seconds 1 > "$R/compare.log" 2>&1
echo "rc=$? wall=$(python3 -c "import time;print(round(time.time()-$S,1))")" >> "$R/compare.log"
du -sh "$T"/scratch/* >> "$R/compare.log" 2>&1
tar -czf "$OUT/h16.tar.gz" -C "$T" --exclude='problem.py' --exclude='*.so' h16
