#!/usr/bin/env bash
# The correctness check's mutation score on the GPU (docs/harness-protocol.md
# §5, bench/mutation_score.py). Run from the repository root:
#   OUT=/some/empty/dir bash scripts/device/issue30_mutation.sh
# Uses the kopt under .carry/build/src, .carry/bin or build/src, else builds
# kopt and kopt-runner into build/ (cmake --preset default). Generates the
# mutants of every example task's correct candidates (about 570), checks
# each with `kopt bench --no-time` under x1, then x3, x0.01, negated and
# heavy-tailed inputs over the x1 misses and a fixed sample of 80, starting no
# new distribution after BUDGET seconds (default 200). Writes to $OUT:
# mutation_score.md (the score, per distribution, operator and task, the
# misses), mutation_score.json (every mutant's verdicts), mutation_runs.log,
# generate.txt, commit.txt.
set -u
root="$PWD"
: "${OUT:?OUT must name an empty folder}"
budget="${BUDGET:-200}"
export LD_LIBRARY_PATH="$root/.carry/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="/usr/local/cuda/bin:$PATH"
git -C "$root" log --oneline -1 > "$OUT/commit.txt" 2>&1
kopt=""
for candidate in "$root/.carry/build/src/kopt" "$root/.carry/bin/kopt" "$root/build/src/kopt"; do
  if [ -x "$candidate" ]; then kopt="$candidate"; break; fi
done
if [ -z "$kopt" ]; then
  started=$(date +%s)
  { cmake --preset default > /dev/null && cmake --build --preset default --target kopt kopt-runner; } \
    > "$OUT/build.log" 2>&1 || { echo "build failed" >> "$OUT/commit.txt"; exit 1; }
  echo "built in $(( $(date +%s) - started )) s" >> "$OUT/commit.txt"
  kopt="$root/build/src/kopt"
fi
export KOPT_RUNNER="$(dirname "$kopt")/kopt-runner"
work=$(mktemp -d "${TMPDIR:-/tmp}/kopt-issue30.XXXXXX")
python3 "$root/bench/mutation_score.py" generate --out "$work/mutants" > "$OUT/generate.txt" 2>&1
timeout 290 python3 "$root/bench/mutation_score.py" score --mutants "$work/mutants" --out "$OUT" \
  --kopt "$kopt" --workspace "$work/ws" --budget-seconds "$budget" > /dev/null 2>> "$OUT/generate.txt"
echo "score exit $?" >> "$OUT/generate.txt"
rm -rf "$work"
