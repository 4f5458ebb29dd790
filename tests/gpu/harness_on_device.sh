#!/usr/bin/env bash
# The GPU checks of `kopt bench` (issue 4) on a machine with an NVIDIA GPU and
# nvcc (our H200 device), using binaries packed by scripts/package_for_device.sh.
# Usage (from the repository root): tests/gpu/harness_on_device.sh OUT_DIR
# Runs: the runner smoke test; `kopt bench` on every example task (energy on
# three); the adversarial suite; timing repeatability; harness throughput
# beside a KernelBench-style load_inline evaluation. Writes every output under
# OUT_DIR (and OUT_DIR/../results.tgz, or $RESULTS_TGZ); prints one line per step. Exits 77
# (skip) without a GPU.
set -u
out=$1
mkdir -p "$out/bench"
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/device/common.sh"
device_require_gpu
# The carried libraries are for kopt's binaries only (Python must keep its own).
kopt=$(device_wrap kopt-with-libraries "$PWD/.carry/bin/kopt")
workspace=$(mktemp -d)/ws
# STEPS (space-separated step names, or prefixes such as "bench_") limits the
# run to those steps; default: all (scripts/device/common.sh).
STEP_DIR=$out STEP_SUMMARY=$out/summary.txt STEP_TAIL_BYTES=200
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv > "$out/device.txt"
nvcc --version | tail -1 >> "$out/device.txt"
# Most important first: what the run reaches before a time limit still counts
# (results.tgz under OUT_DIR is refreshed after every step).
save() { tar czf "${RESULTS_TGZ:-$out/../results.tgz}" -C "$out" . 2>/dev/null; }
step adversarial python3 tests/adversarial/run_suite.py --kopt "$kopt" --out "$out/adversarial" --timeout 20; save
step throughput python3 bench/harness_throughput.py --kopt "$kopt" --out "$out/harness_throughput.md"; save
step repeatability python3 bench/timing_repeatability.py --kopt "$kopt" --out "$out/timing_repeatability.md"; save
for task in gelu softmax gemm_bf16 transpose layernorm reduce_sum gemm_f32 stencil2d saxpy; do
  energy=()
  case $task in gelu|gemm_bf16) energy=(--energy) ;; esac
  step "bench_$task" "$kopt" bench "examples/tasks/$task" --workspace "$workspace" "${energy[@]}" \
    -f json -o "$out/bench/$task.json"
  wanted "bench_$task" && "$kopt" bench "examples/tasks/$task" --workspace "$workspace" -f md > "$out/bench/$task.md" 2>&1
  # The runner's events (check steps, elapsed times) of every child so far.
  [ -f "$workspace/kopt.db" ] && cp "$workspace/kopt.db" "$out/bench/workspace.db"
  save
done
step runner_smoke env LD_LIBRARY_PATH=$DEVICE_LIBRARIES tests/gpu/runner_smoke.sh "$PWD/.carry/bin/kopt-runner" "$(mktemp -d)"; save
