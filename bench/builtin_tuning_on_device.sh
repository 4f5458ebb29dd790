#!/usr/bin/env bash
# The builtin generator's H200 measurements (issue 13, docs/tuning.md):
#  1. every configuration of each example task's tunable candidate
#     (examples/tasks/<task>/tunable/<task>_tunable.cu) is materialized and
#     measured with `kopt bench` beside the hand-written candidates, in one
#     run per task (same cold-L2 timing for all);
#  2. each run becomes a Kernel Tuner cache: $OUT/caches/<task>.json (the
#     exhaustive spaces for the simulation fixtures: copy them to
#     tests/fixtures/tuning/), and one row of $OUT/quality.md (best
#     configuration, best found by guided MCTS in 60 evaluations replayed
#     over the cache, best hand-written candidate, reference, roofline floor);
#  3. the PyTorch/cuBLAS call of each task is timed the same way
#     (bench/torch_baselines.py; skipped with a note when torch is missing);
#  4. bench/tuning_simulation replays every cache (100 repeats):
#     $OUT/simulation.md.
# Everything is written under $OUT (default bench/results/builtin_tuning).
# Environment: BUILD (build directory, default build; kopt, kopt-runner,
# tuning_space_tool and tuning_simulation are built there when missing),
# TASKS (default: all nine), BUDGET_S (default 420: tasks that would start
# after it are skipped, and said so), TIMING_S (per-candidate timing limit,
# default 0.4).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
OUT="${OUT:-$here/bench/results/builtin_tuning}"
BUILD="${BUILD:-build}"
BUDGET_S="${BUDGET_S:-420}"
TIMING_S="${TIMING_S:-0.4}"
TASKS="${TASKS:-saxpy gelu reduce_sum softmax layernorm transpose stencil2d gemm_f32 gemm_bf16}"
mkdir -p "$OUT/caches" "$OUT/configs" "$OUT/logs"

if [ ! -x "$BUILD/src/kopt" ] || [ ! -x "$BUILD/bench/tuning_space_tool" ] || [ ! -x "$BUILD/bench/tuning_simulation" ]; then
  cmake --preset default >/dev/null && ninja -C "$BUILD" kopt kopt-runner tuning_space_tool tuning_simulation \
    >"$OUT/logs/build.log" 2>&1 || { echo "build failed: $OUT/logs/build.log"; tail -20 "$OUT/logs/build.log"; exit 2; }
fi
KOPT="$BUILD/src/kopt"
TOOL="$BUILD/bench/tuning_space_tool"
SIMULATION="$BUILD/bench/tuning_simulation"

{
  echo "# Builtin generator on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null)"
  echo
  echo "| task | configurations | best configuration µs | guided MCTS, 60 evaluations µs | best hand-written µs | reference µs | roofline floor µs |"
  echo "|---|---|---|---|---|---|---|"
} >"$OUT/quality.md"

start=$SECONDS
for task in $TASKS; do
  if [ $((SECONDS - start)) -ge "$BUDGET_S" ]; then
    echo "| $task | skipped: the time budget ($BUDGET_S s) was spent |  |  |  |  |  |" >>"$OUT/quality.md"
    continue
  fi
  task_dir="examples/tasks/$task"
  tunable="$task_dir/tunable/${task}_tunable.cu"
  rm -rf "$OUT/configs/$task"
  count=$("$TOOL" materialize "$task_dir" "$tunable" "$OUT/configs/$task") || { echo "$task: materialize failed"; continue; }
  echo "$task: $count configurations ($((SECONDS - start)) s so far)"
  "$KOPT" bench "$task_dir" "$OUT/configs/$task"/*.cu "$task_dir"/candidates/*.cu -f json -o "$OUT/$task.bench.json" \
    -w "$OUT/workspace" --seeds 1 --timing-seconds "$TIMING_S" --max-noise 0.01 --timeout 60 \
    >"$OUT/logs/$task.bench.log" 2>&1
  status=$?
  if [ $status -ne 0 ] || [ ! -s "$OUT/$task.bench.json" ]; then
    echo "| $task | kopt bench exited $status: logs/$task.bench.log |  |  |  |  |  |" >>"$OUT/quality.md"
    continue
  fi
  "$TOOL" cache "$task_dir" "$tunable" "$OUT/$task.bench.json" "$OUT/caches/$task.json" >>"$OUT/quality.md" \
    2>>"$OUT/logs/$task.cache.log" || echo "| $task | cache failed: logs/$task.cache.log |  |  |  |  |  |" >>"$OUT/quality.md"
done

if python3 bench/torch_baselines.py examples/tasks >"$OUT/torch.json" 2>"$OUT/logs/torch.log"; then
  python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
torch = json.load(open(f"{out}/torch.json"))
rows = [l for l in open(f"{out}/quality.md") if l.startswith("| ") and not l.startswith("| task")]
lines = ["", "## Against PyTorch/cuBLAS (same run, cold L2)", "",
         "| task | best configuration µs | PyTorch call | PyTorch µs | best / PyTorch | best / roofline floor |", "|---|---|---|---|---|---|"]
ahead = 0
for row in rows:
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    task = cells[0]
    try:
        best = float(cells[2].split()[0])
    except (ValueError, IndexError):
        continue
    floor = float(cells[6]) if len(cells) > 6 and cells[6] not in ("", "—") else None
    t = torch.get(task)
    ratio = best / t["median_us"] if t else None
    ahead += 1 if ratio is not None and ratio <= 1.0 else 0
    lines.append(f"| {task} | {best:.1f} | {t['call'] if t else '—'} | {t['median_us']:.1f} | {ratio:.3f} | "
                 f"{(best / floor) if floor else float('nan'):.3f} |" if t else f"| {task} | {best:.1f} | — | — | — | — |")
lines.append("")
lines.append(f"At or ahead of PyTorch on {ahead} of {len(rows)} tasks.")
open(f"{out}/quality.md", "a").write("\n".join(lines) + "\n")
PY
else
  printf '\nPyTorch baselines not measured: %s\n' "$(tail -1 "$OUT/logs/torch.log")" >>"$OUT/quality.md"
fi

caches=("$OUT"/caches/*.json)
if [ -e "${caches[0]}" ]; then
  "$SIMULATION" --repeats 100 --budget 60 "${caches[@]}" >"$OUT/simulation.md" 2>"$OUT/logs/simulation.log" ||
    echo "simulation failed: $OUT/logs/simulation.log"
fi
cat "$OUT/quality.md"
echo "($((SECONDS - start)) s)"
