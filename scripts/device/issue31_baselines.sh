#!/bin/bash
# The three PyTorch baselines (eager, TF32 allowed, torch.compile default mode)
# of KernelBench level-1 and level-2 problems, timed by kopt's protocol
# (bench/kernelbench_baselines.py), with each call's peak device memory.
# Run from the repository root on the GPU machine. KernelBench's problem files
# are data, not part of the repository: carry them as .carry/KernelBench
# (its KernelBench/ folder with level1/ and level2/), or set KB_DIR.
# First, which of the 50 level-3 problems import with PyTorch installed
# (bench/kernelbench_import_survey.py: kopt's import probe with its meta-device
# fallback; about 30 s). Writes $OUT/baselines.md, $OUT/baselines.json,
# $OUT/import_survey.md, $OUT/import_survey.json and $OUT/log.txt; at most
# about 6 minutes (BUDGET seconds for the baselines, default 280, plus the survey).
set -u
KB_DIR=${KB_DIR:-.carry/KernelBench}
BUDGET=${BUDGET:-280}
OUT=${OUT:?set OUT to the results folder}
if [ ! -d "$KB_DIR/level1" ] || [ ! -d "$KB_DIR/level2" ]; then
  echo "no KernelBench problems under $KB_DIR (expected level1/ and level2/)" | tee "$OUT/log.txt"
  exit 2
fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$OUT/log.txt" 2>&1
timeout 60 python3 bench/kernelbench_import_survey.py --out "$OUT" --jobs 16 --timeout 40 "$KB_DIR/level3" \
  > /dev/null 2>> "$OUT/log.txt"
head -n 3 "$OUT/import_survey.md" >> "$OUT/log.txt"
export TORCHINDUCTOR_CACHE_DIR=$(mktemp -d)/inductor TRITON_CACHE_DIR=$(mktemp -d)/triton
# 25 level-1 and 15 level-2 problems in KernelBench's order; problems the budget
# does not reach are listed as such in the table.
timeout $((BUDGET + 30)) python3 bench/kernelbench_baselines.py --out "$OUT" --budget-seconds "$BUDGET" \
  "$KB_DIR/level1@${LEVEL1:-25}" "$KB_DIR/level2@${LEVEL2:-15}" >> "$OUT/log.txt" 2>&1
echo "rc=$?" >> "$OUT/log.txt"
tail -n 60 "$OUT/log.txt"
