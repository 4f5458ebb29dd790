#!/usr/bin/env bash
# Rebuilds the reference→best pair fixtures from a pairs.sh capture (run from the repository root, with
# kopt built):
#   bash scripts/h200_diff_capture/rebuild_pairs.sh PATH/h14_pairs.tar.gz|PATH/h14_pairs [KOPT]
# 1. unpacks the capture and trims it into tests/fixtures/h200_diff (trim.py pairs);
# 2. adds a golden case diff_h200_<task> for a task that has none, and rewrites the expectations of
#    every golden case (KOPT_UPDATE_GOLDEN=1: check `git diff tests/golden` for changes beyond the
#    pairs');
# 3. prints docs/diff.md's table (table.py) and writes it to $TMPDIR/h14_table.md.
set -euo pipefail
tarball="$1"
kopt="${2:-build/src/kopt}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ -d "$tarball" ]]; then
  capture="$tarball"
else
  unpacked="$(mktemp -d /tmp/h14res.XXXXXX)"
  tar -C "$unpacked" -xzf "$tarball"
  capture="$unpacked/h14_pairs"
fi
python3 "$here/trim.py" pairs "$capture" tests/fixtures/h200_diff
for dir in tests/fixtures/h200_diff/pairs/*/; do
  task="$(basename "$dir")"
  case="tests/golden/cases/diff_h200_$task"
  [[ -d "$case" || -d "${case}_pair" ]] && continue
  mkdir -p "$case"
  echo "diff tests/fixtures/h200_diff/pairs/$task/before.csv tests/fixtures/h200_diff/pairs/$task/after.csv" >"$case/args"
  echo "added golden case $case"
done
KOPT_UPDATE_GOLDEN=1 bash tests/golden/run_golden.sh "$kopt" tests/golden | tail -1
python3 "$here/table.py" "$kopt" tests/fixtures/h200_diff | tee "${TMPDIR:-/tmp}/h14_table.md"
