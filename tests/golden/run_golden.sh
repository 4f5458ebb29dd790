#!/usr/bin/env bash
# Golden end-to-end tests: runs the kopt binary on fixtures and compares its
# output with the expected files. Usage: run_golden.sh KOPT_BINARY GOLDEN_DIR
# Each case is a directory GOLDEN_DIR/cases/NAME with a file `args` (the
# arguments, one line, paths relative to the repository root), an optional
# `env` (VAR=value words put before the command, e.g. PATH=/nonexistent to
# simulate a machine without ncu), `expected_exit` and `expected_output`
# (stdout+stderr). Set KOPT_UPDATE_GOLDEN=1 to rewrite the expectations.
set -u
kopt=$1
golden_dir=$2
repo_root=$(cd "$golden_dir/../.." && pwd)
passed=0
failed=0
for case_dir in "$golden_dir"/cases/*/; do
  name=$(basename "$case_dir")
  args=$(cat "$case_dir/args")
  environment=""
  [ -f "$case_dir/env" ] && environment=$(cat "$case_dir/env")
  # KOPT_CEILINGS_DIR: no measured ceilings table of the machine's user (kopt calibrate) changes the output.
  actual=$(cd "$repo_root" && eval "env NO_COLOR=1 KOPT_NO_GPU_QUERY=1 KOPT_CEILINGS_DIR=/nonexistent-kopt-ceilings $environment \"$kopt\" $args" 2>&1)
  exit_code=$?
  if [ "${KOPT_UPDATE_GOLDEN:-0}" = 1 ]; then
    printf '%s\n' "$actual" > "$case_dir/expected_output"
    echo "$exit_code" > "$case_dir/expected_exit"
  fi
  expected_exit=$(cat "$case_dir/expected_exit")
  if [ "$exit_code" != "$expected_exit" ]; then
    echo "FAIL $name: exit $exit_code, expected $expected_exit"
    printf '%s\n' "$actual" | head -20
    failed=$((failed + 1))
    continue
  fi
  if ! diff -u "$case_dir/expected_output" <(printf '%s\n' "$actual") > /tmp/kopt_golden_diff.$$; then
    echo "FAIL $name: output differs"
    head -40 /tmp/kopt_golden_diff.$$
    failed=$((failed + 1))
    continue
  fi
  passed=$((passed + 1))
done
rm -f /tmp/kopt_golden_diff.$$
echo "golden: $passed passed, $failed failed"
[ "$failed" = 0 ]
