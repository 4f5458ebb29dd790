#!/usr/bin/env bash
# `kopt plan` on a real program: one training step of a small PyTorch transformer (2 encoder layers,
# d_model 256, batch 8 x 128 tokens; scripts/device/issue34_program.py) profiled under
# `ncu --set full` (one forward, backward and Adam step: well over 30 kernel launches), exported as
# `--page raw --csv --print-units base` and trimmed (columns empty in every launch dropped) so it can
# become tests/fixtures/programs/transformer_step/raw.csv. When a kopt build is present
# (build/src/kopt or KOPT=path; BUILD_KOPT=1 builds it first, ~3 min on 16 cores) it also times `kopt plan` on the capture (json and term).
# Writes under $OUT: raw.csv, env.txt, ncu_log.txt, program.txt, plan.json, plan.txt, plan_time.txt.
# Runs from the repository root; about 2-4 minutes (ncu replays each launch ~40 times).
set -u
OUT=${OUT:-/tmp/issue34_out}
mkdir -p "$OUT"
W=$(mktemp -d)
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
  ncu --version | tail -1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
} > "$OUT/env.txt" 2>&1
timeout 120 python3 scripts/device/issue34_program.py > "$OUT/program.txt" 2>&1
LC_ALL=C timeout 330 ncu --set full --profile-from-start off --clock-control none -c 300 -f \
  -o "$W/step" python3 scripts/device/issue34_program.py > "$OUT/ncu_log.txt" 2>&1
LC_ALL=C ncu --import "$W/step.ncu-rep" --page raw --csv --print-units base > "$W/raw_full.csv" \
  2>> "$OUT/ncu_log.txt"
python3 scripts/device/issue34_trim.py "$W/raw_full.csv" "$OUT/raw.csv" 2>> "$OUT/ncu_log.txt"
tail -3 "$OUT/ncu_log.txt"
KOPT=${KOPT:-build/src/kopt}
if [ ! -x "$KOPT" ] && [ "${BUILD_KOPT:-0}" = 1 ]; then
  { cmake --preset default && cmake --build --preset default --target kopt; } > "$W/build.txt" 2>&1 || tail -20 "$W/build.txt"
fi
if [ -x "$KOPT" ]; then
  { time "$KOPT" plan "$OUT/raw.csv" -f json -o "$OUT/plan.json"; } 2> "$OUT/plan_time.txt"
  "$KOPT" plan "$OUT/raw.csv" --max-kernels 40 > "$OUT/plan.txt" 2>&1
  cat "$OUT/plan_time.txt"
else
  echo "no kopt build at $KOPT: plan not timed (run: kopt plan raw.csv)" | tee "$OUT/plan_time.txt"
fi
ls -la "$OUT"
