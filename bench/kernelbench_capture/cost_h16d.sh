#!/bin/bash
# Issue 16, helper h16d: cost per candidate with the outputs lent to the pipe
# (vmsplice) and read straight into reused memory, against sealed channel
# memory (core/channel_memory.h), on the GPU machine, in one run beside
# KernelBench's own evaluation of the same candidate:
#   1. bench/kernelbench_compare.py --steps import,cost for level1/88 and
#      level1/12: KernelBench's eval_kernel_against_ref cold (fresh build
#      directory, both problems at once) and warm; kopt bench of the example
#      ModelNew file and 3 distinct copies, cold (empty workspace), warm
#      (--rerun, compile cache hit); for level1/88 warm again with
#      --output-channel memory and with KOPT_OUTPUT_SPLICE=0 (the channel's
#      A/B: the reference-output cache spares the second its reference
#      child); each candidate's marginal cost and the parent's phases
#      (measure.parent in kopt's JSON report);
#   2. bench/output_channel_throughput: the channel alone with a synthetic
#      child (8 x 256 MiB per child; pipe appended as before, pipe read straight in, pipe lent, memory), no GPU.
# Runs from the root of a copy of the main checkout with:
#   .carry/h16d/bin.tar.xz (bin/{kopt,kopt-runner,output_channel_throughput}
#   and lib/, built on the development machine from branch h16d,
#   bench/kernelbench_capture/package_h16d.sh), .carry/h16d/kernelbench_compare.py
#   (this branch's bench/kernelbench_compare.py: --cost-channel-ab,
#   --cost-no-single, the parent's phases), and the KernelBench files
#   .carry/capture/h16/problems/level1/{88_MinGPTNewGelu,12_Matmul_with_diagonal_matrices_}.py and
#   .carry/capture/h16/kernelbench/{eval,timing,dataset,utils}.py (KernelBench 423217d).
# SKIP_KB=1: kopt's runs only. About 235 s (compare capped at CAP=210 s, the
# synthetic benchmark at 20 s). Writes $OUT/h16d.tar.gz (summary.md,
# summary.json, compare.log, channel_throughput.txt, env.txt, raw/ with the
# kopt reports, logs and children's timelines) and prints a short summary.
set -u
H=.carry/h16d
C=.carry/capture/h16
R=$(mktemp -d)/h16d
mkdir -p "$R"
T=$(mktemp -d)
# bin/ and lib/ come packed (bench/kernelbench_capture/package_h16d.sh).
[ -d "$H/bin" ] || python3 -c "import tarfile,sys;tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$H/bin.tar.xz" "$H"
export LD_LIBRARY_PATH=$PWD/$H/lib:/usr/local/cuda/lib64
export KOPT_RUNNER=$PWD/$H/bin/kopt-runner
cp "$H/kernelbench_compare.py" bench/kernelbench_compare.py
# An empty level folder makes the import of the whole folder exit 2 (run 1 of this request).
find "$C/problems" -mindepth 1 -maxdepth 1 -type d -empty -delete 2>/dev/null
pack() {
  cp "$T/out/summary.md" "$T/out/summary.json" "$R/" 2>/dev/null
  mkdir -p "$R/raw"
  (cd "$T/out" 2>/dev/null && cp -r kopt_cost_*.json kopt_cost_*.log kb_eval_*.log "$R/raw/" 2>/dev/null)
  tar -czf "$OUT/h16d.tar.gz" -C "$(dirname "$R")" h16d 2>/dev/null
}
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import sys,torch;print(sys.version.split()[0], torch.__version__)"
  echo "cores $(nproc)  kernel $(uname -r)"
  echo "thp $(cat /sys/kernel/mm/transparent_hugepage/enabled) shmem $(cat /sys/kernel/mm/transparent_hugepage/shmem_enabled)"
  free -g | head -2; git log --oneline -1 | cat; ls -la "$H/bin"; } > "$R/env.txt" 2>&1
S=$(date +%s.%N)
timeout ${CAP:-210} python3 bench/kernelbench_compare.py --kopt "$H/bin/kopt" --problems "$C/problems" \
  --kb-package "$C/kernelbench" --out "$T/out" --scratch "$T/scratch" --steps import,cost \
  --cost-problems 88,12 --cost-candidates 4 --cost-reps 1 --kb-cold-parallel --timing-seconds 1 \
  --cost-channel-ab --cost-no-single ${SKIP_KB:+--cost-skip-kernelbench} > "$R/compare.log" 2>&1 &
P=$!
# Packed as it grows: a run cut from outside still leaves what it measured.
while kill -0 $P 2>/dev/null; do pack; sleep 5; done
wait $P
echo "rc=$? wall=$(python3 -c "import time;print(round(time.time()-$S,1))")" >> "$R/compare.log"
pack
timeout 20 "$H/bin/output_channel_throughput" --children 2 > "$R/channel_throughput.txt" 2>&1
echo "rc=$?" >> "$R/channel_throughput.txt"
pack
grep -A14 "^Cost per candidate" "$R/summary.md" 2>/dev/null | cut -c1-400
tail -1 "$R/compare.log"
grep -E "^median|cores" "$R/channel_throughput.txt"
