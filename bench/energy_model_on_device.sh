#!/usr/bin/env bash
# Issue 15 on the GPU machine: kopt calibrate --energy (19 probes + the example tasks' references),
# then bench/energy_model_validation measure over the held-out set (the example tasks' candidates and
# tunable configurations, gemm included, and swish). Run from the repository root with the binaries
# packed by scripts/package_for_device.sh (plus build/bench/energy_model_validation stripped into
# .carry/bin):
#   OUT=/some/empty/dir bash bench/energy_model_on_device.sh [EARLIER]
# EARLIER: the unpacked energy_model/ folder of an earlier call that was cut short; its work
# directories are copied in and both steps resume from them (a finished calibration is kept) (measurements from the workspaces,
# counts from the profile bundles). Each call stops its steps at KOPT_DEVICE_SECONDS (default 540 s)
# so that what was measured is packed; a later call with EARLIER goes on.
# Writes $OUT/energy_model.tar.gz: the table, fit.samples.json, held_out.samples.json, the logs and
# the work directories without compiled code. About 12 minutes cold on the H200 (28 + 38 kernels at
# about 10-17 s each): two calls.
# Then, on any machine: build/bench/energy_model_validation report --fit fit.samples.json --held-out held_out.samples.json
set -u
root="$PWD"
: "${OUT:?}"
r="$OUT/energy_model"; mkdir -p "$r"
export LD_LIBRARY_PATH="$root/.carry/lib:/usr/local/cuda/lib64"
bin="$root/.carry/bin"
export KOPT_RUNNER="$bin/kopt-runner"
started=$(date +%s)
deadline=$((started + ${KOPT_DEVICE_SECONDS:-540}))
left() { echo $((deadline - $(date +%s))); }
tasks=(gelu gemm_bf16 gemm_f32 layernorm reduce_sum saxpy softmax stencil2d transpose)
if [ -n "${1:-}" ]; then
  for part in work energy-validation-work held_out.samples.json fit.samples.json nvidia-h200.energy.toml \
              nvidia-h200.energy.toml.samples.json calibrate.stdout calibrate.stderr log.txt; do
    [ -e "$1/$part" ] && cp -r "$1/$part" "$r/"
  done
fi
mkdir -p "$r/work"
options=(); for t in "${tasks[@]}"; do options+=(--task "examples/tasks/$t"); done
# A table from an earlier call means the calibration finished there.
[ -s "$r/nvidia-h200.energy.toml" ] || timeout "$(left)" "$bin/kopt" calibrate --energy "${options[@]}" -o "$r/nvidia-h200.energy.toml" \
  --work-dir "$r/work" >> "$r/calibrate.stdout" 2>> "$r/calibrate.stderr"
echo "calibrate exit $? after $(( $(date +%s) - started )) s" >> "$r/log.txt"
cp "$r/nvidia-h200.energy.toml.samples.json" "$r/fit.samples.json" 2>/dev/null
if [ "$(left)" -gt 20 ]; then
  timeout "$(left)" "$bin/energy_model_validation" measure --out "$r/held_out.samples.json" \
    examples/tasks/{gelu,saxpy,softmax,layernorm,reduce_sum,transpose,stencil2d,swish,gemm_f32,gemm_bf16} \
    >> "$r/validate.stdout" 2>> "$r/validate.stderr"
  echo "validate exit $? after $(( $(date +%s) - started )) s" >> "$r/log.txt"
fi
find "$r" \( -name '*.so' -o -name '*.o' -o -name '*.cubin' -o -name '*.fatbin' \) -delete 2>/dev/null
find "$r" -type d -name compile-cache -prune -exec rm -rf {} + 2>/dev/null
tar -C "$OUT" -czf "$OUT/energy_model.tar.gz" energy_model
rm -rf "$r"
