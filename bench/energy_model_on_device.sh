#!/usr/bin/env bash
# Issue 15 on the GPU machine: kopt calibrate --energy (19 probes + the example tasks' references),
# then bench/energy_model_validation measure over the held-out set (the example tasks' candidates and
# tunable configurations, and swish). Run from the repository root with the binaries packed by
# scripts/package_for_device.sh (plus build/bench/energy_model_validation stripped into .carry/bin):
#   OUT=/some/empty/dir bash bench/energy_model_on_device.sh [WORK0]
# WORK0: the work directory of an earlier, cut-short run (the calibration resumes from it).
# Writes $OUT/energy_model.tar.gz: the table, fit.samples.json, held_out.samples.json and the logs.
# On the H200 about 8 minutes cold (28 + 28 kernels at about 10-17 s each); resumed parts are fast.
# Then, on any machine: build/bench/energy_model_validation report --fit fit.samples.json --held-out held_out.samples.json
set -u
root="$PWD"
: "${OUT:?}"
r="$OUT/energy_model"; mkdir -p "$r"
export LD_LIBRARY_PATH="$root/.carry/lib:/usr/local/cuda/lib64"
bin="$root/.carry/bin"
export KOPT_RUNNER="$bin/kopt-runner"
started=$(date +%s)
tasks=(gelu gemm_bf16 gemm_f32 layernorm reduce_sum saxpy softmax stencil2d transpose)
if [ -n "${1:-}" ]; then cp -r "$1" "$r/work"; else mkdir -p "$r/work"; fi
options=(); for t in "${tasks[@]}"; do options+=(--task "examples/tasks/$t"); done
"$bin/kopt" calibrate --energy "${options[@]}" -o "$r/nvidia-h200.energy.toml" --work-dir "$r/work" \
  > "$r/calibrate.stdout" 2> "$r/calibrate.stderr"
echo "calibrate exit $? after $(( $(date +%s) - started )) s" >> "$r/log.txt"
cp "$r/nvidia-h200.energy.toml.samples.json" "$r/fit.samples.json" 2>/dev/null
"$bin/energy_model_validation" measure --out "$r/held_out.samples.json" \
  examples/tasks/{gelu,saxpy,softmax,layernorm,reduce_sum,transpose,stencil2d,swish} \
  > "$r/validate.stdout" 2> "$r/validate.stderr"
echo "validate exit $? after $(( $(date +%s) - started )) s" >> "$r/log.txt"
rm -rf "$r/work" "$r/energy-validation-work"
tar -C "$OUT" -czf "$OUT/energy_model.tar.gz" energy_model
rm -rf "$r"
