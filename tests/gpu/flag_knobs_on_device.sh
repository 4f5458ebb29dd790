#!/usr/bin/env bash
# Benches tests/gpu/flag_knobs/*.cu against their tasks (README.md there), with
# the packaged kopt (.carry/bin, scripts/package_for_device.sh). Writes
# OUT_DIR/flag_knobs_<task>.json and .txt, and the nvcc command lines used.
# Usage (repository root): tests/gpu/flag_knobs_on_device.sh OUT_DIR
set -u
out=$1
mkdir -p "$out"
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/.carry/lib:/usr/local/cuda/lib64
kopt=$PWD/.carry/bin/kopt
export KOPT_RUNNER=$PWD/.carry/bin/kopt-runner
for task in gelu softmax; do
  "$kopt" bench "examples/tasks/$task" "examples/tasks/$task/tunable/${task}_tunable.cu" \
    tests/gpu/flag_knobs/${task}_*.cu --workspace "$out/workspace" -f json -o "$out/flag_knobs_$task.json" \
    > /dev/null 2> "$out/flag_knobs_$task.err"
  echo "$task: exit $?"
  # The same again as a table: every result is reused from the workspace.
  "$kopt" bench "examples/tasks/$task" "examples/tasks/$task/tunable/${task}_tunable.cu" \
    tests/gpu/flag_knobs/${task}_*.cu --workspace "$out/workspace" > "$out/flag_knobs_$task.txt" 2>&1
done
grep -rh '"command_line"' "$out/workspace" 2>/dev/null | grep -o 'nvcc.*' | sed 's/ -o .*//' | sort -u > "$out/nvcc_command_lines.txt"
exit 0
