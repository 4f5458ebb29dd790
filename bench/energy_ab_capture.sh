#!/usr/bin/env bash
# The round-1 capture of issue 15's matched-speed A/B. It ran as
# .carry/capture/h15l/run.sh beside a copy of examples/tasks/swish (in swish/)
# and six materialized configurations of its tunable candidate (in configs/,
# tune_b<BLOCK_SIZE>_i<ITEMS>_m<MATH>_f<FTZ>.cu: the kopt:config prelude of
# docs/tuning.md, with `// kopt:nvcc -ftz=true` when FTZ=1), from the root of
# a tree with packed binaries (.carry/bin or .carry/build/src, libraries in
# .carry/lib):
#   OUT=/some/empty/dir bash .carry/capture/h15l/run.sh
# It measures the candidates and those configurations with `kopt bench
# --energy` (times with their noise, NVML energy per launch: dynamic = above
# idle), then the IEEE / intrinsics pair again in the other order. Writes
# $OUT/h15l.tar.gz; about 2 minutes on the H200, every step time-capped.
# Results: tests/fixtures/energy_ab/h200_swish_bench_energy.json (pass 1),
# h200_swish_bench_energy_repeat.json (pass 2); bench/results_h200/energy_ab/.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$PWD"
: "${OUT:?OUT must name an empty folder}"
result="$OUT/h15l"
mkdir -p "$result"
started=$(date +%s)
export LD_LIBRARY_PATH="$root/.carry/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
kopt=""
for candidate in "$root/.carry/bin/kopt" "$root/.carry/build/src/kopt"; do
  if [ -x "$candidate" ]; then kopt="$candidate"; break; fi
done
if [ -z "$kopt" ]; then
  echo "no kopt binary under .carry/bin or .carry/build/src" > "$result/error.txt"
else
  runner="$(dirname "$kopt")/kopt-runner"
  [ -x "$runner" ] || runner="$root/.carry/build/src/kopt-runner"
  export KOPT_RUNNER="$runner"
  echo "kopt=$kopt runner=$KOPT_RUNNER" > "$result/tools.txt"
  "$kopt" --version >> "$result/tools.txt" 2>&1
fi
{ nvidia-smi --query-gpu=name,driver_version,power.draw,power.limit,temperature.gpu,clocks.sm,clocks.mem --format=csv; } \
  > "$result/nvidia_smi_before.csv" 2>&1
task="$here/swish"
workspace="$result/ws"
if [ -n "$kopt" ]; then
  # Pass 1: the reference, the three hand-written candidates, six tunable configurations.
  timeout 170 "$kopt" bench "$task" "$task"/candidates/*.cu "$here"/configs/*.cu --energy \
    --workspace "$workspace" --seed 15 --format json -o "$result/pass1.json" \
    > "$result/pass1.stdout" 2> "$result/pass1.stderr"
  echo "pass1 exit $? after $(( $(date +%s) - started )) s" >> "$result/log.txt"
  # Pass 2 (when time is left): the A/B pair again, in the other order, measured afresh.
  if [ $(( $(date +%s) - started )) -lt 175 ]; then
    timeout 50 "$kopt" bench "$task" "$task"/candidates/swish_vec4_intrinsics.cu \
      "$task"/candidates/swish_vec4_ieee.cu --energy --rerun --workspace "$workspace" --seed 16 \
      --format json -o "$result/pass2.json" > "$result/pass2.stdout" 2> "$result/pass2.stderr"
    echo "pass2 exit $? after $(( $(date +%s) - started )) s" >> "$result/log.txt"
  fi
fi
nvidia-smi --query-gpu=name,power.draw,temperature.gpu,clocks.sm --format=csv > "$result/nvidia_smi_after.csv" 2>&1
# Keep the reports and logs, not the workspace's compiled libraries.
find "$workspace" -name '*.so' -delete 2>/dev/null
rm -rf "$workspace/compile-cache"
tar -C "$OUT" -czf "$OUT/h15l.tar.gz" h15l
rm -rf "$result"
