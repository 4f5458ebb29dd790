#!/bin/bash
# Issue 16, helper h16e: cost per candidate with the outputs pulled from the
# child's memory (core/channel_pull.h, the default now), on the GPU machine,
# in one run beside KernelBench's own evaluation of the same candidates:
#   bench/kernelbench_compare.py --steps import,cost for level1/88 and
#   level1/12: KernelBench's eval_kernel_against_ref cold (fresh build
#   directory, both problems at once) and warm; kopt bench of the example
#   ModelNew file and 3 distinct copies, cold (empty workspace) and warm
#   (--rerun, compile cache hit), for both problems; then, for level1/88, the
#   warm run again with --output-channel pipe (the A/B against run 4's
#   channel; the reference-output cache spares it the reference child).
#   Each candidate's marginal cost, the parent's phases (measure.parent in
#   kopt's JSON report) and the children's event lines (their timelines);
#   then bench/output_channel_throughput (the channel alone, no GPU: 2
#   children x 8 x 256 MiB, lent to the pipe against pulled).
# Runs from the root of a copy of the repository with:
#   .carry/h16e/bin.tar.xz (bin/{kopt,kopt-runner,output_channel_throughput} and lib/, built on the
#   development machine from branch h16e: bench/kernelbench_capture/package_h16e.sh),
#   .carry/h16e/kernelbench_compare.py (this branch's), and the KernelBench
#   files .carry/capture/h16/problems/level1/{88_MinGPTNewGelu,12_Matmul_with_diagonal_matrices_}.py
#   and .carry/capture/h16/kernelbench/{eval,timing,dataset,utils}.py (KernelBench 423217d).
# SKIP_KB=1: kopt's runs only. About 220 s (the compare capped at CAP=230 s,
# the channel benchmark at 25 s).
# Writes $OUT/h16e.tar.gz (summary.md, summary.json, compare.log, env.txt,
# channel_throughput.txt, raw/ with the kopt reports and logs, children/ with
# the children's event lines) and prints
# a short summary.
set -u
H=.carry/h16e
C=.carry/capture/h16
R=$(mktemp -d)/h16e
mkdir -p "$R"
T=$(mktemp -d)
[ -d "$H/bin" ] || python3 -c "import tarfile,sys;tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$H/bin.tar.xz" "$H"
export LD_LIBRARY_PATH=$PWD/$H/lib:/usr/local/cuda/lib64
export KOPT_RUNNER=$PWD/$H/bin/kopt-runner
cp "$H/kernelbench_compare.py" bench/kernelbench_compare.py
# An empty level folder makes the import of the whole folder exit 2.
find "$C/problems" -mindepth 1 -maxdepth 1 -type d -empty -delete 2>/dev/null
pack() {
  cp "$T/out/summary.md" "$T/out/summary.json" "$R/" 2>/dev/null
  mkdir -p "$R/raw" "$R/children"
  (cd "$T/out" 2>/dev/null && cp -r kopt_cost_*.json kopt_cost_*.log kb_eval_*.log "$R/raw/" 2>/dev/null)
  # The children's event lines (small): runs/<id>/<entry>.stdout in each cost workspace.
  (cd "$T/scratch" 2>/dev/null && find . -name '*.stdout' -size -2M | while read -r f; do
     mkdir -p "$R/children/$(dirname "$f")"; cp "$f" "$R/children/$f"; done)
  tar -czf "$OUT/h16e.tar.gz" -C "$(dirname "$R")" h16e 2>/dev/null
}
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import sys,torch;print(sys.version.split()[0], torch.__version__)"
  echo "cores $(nproc)  kernel $(uname -r)"
  echo "thp $(cat /sys/kernel/mm/transparent_hugepage/enabled) shmem $(cat /sys/kernel/mm/transparent_hugepage/shmem_enabled)"
  echo "yama ptrace_scope $(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo none)  uid $(id -u)"
  free -g | head -2; git log --oneline -1 | cat; ls -la "$H/bin"; } > "$R/env.txt" 2>&1
S=$(date +%s.%N)
timeout ${CAP:-230} python3 bench/kernelbench_compare.py --kopt "$H/bin/kopt" --problems "$C/problems" \
  --kb-package "$C/kernelbench" --out "$T/out" --scratch "$T/scratch" --steps import,cost \
  --cost-problems 88,12 --cost-candidates 4 --cost-reps 1 --kb-cold-parallel --timing-seconds 1 \
  --cost-channel-ab --cost-ab-pipe-only --cost-no-single ${SKIP_KB:+--cost-skip-kernelbench} > "$R/compare.log" 2>&1 &
P=$!
# Packed as it grows: a run cut from outside still leaves what it measured.
while kill -0 $P 2>/dev/null; do pack; sleep 5; done
wait $P
echo "rc=$? wall=$(python3 -c "import time;print(round(time.time()-$S,1))")" >> "$R/compare.log"
pack
timeout 25 "$H/bin/output_channel_throughput" --children 2 --modes splice,pull > "$R/channel_throughput.txt" 2>&1
echo "rc=$?" >> "$R/channel_throughput.txt"
pack
grep -A14 "^Cost per candidate" "$R/summary.md" 2>/dev/null | cut -c1-400
tail -1 "$R/compare.log"
grep -E "^median|cores" "$R/channel_throughput.txt"
