#!/usr/bin/env bash
# Compile-checks the adversarial suite without a GPU: every case of
# expected.toml is built exactly as `kopt bench` builds it (via
# examples/tasks/check_compile.sh). Cases whose intended kind is
# compile_error or missing_entry_point must FAIL to build (and, for
# missing_entry_point, with nvcc's 'more than one instance of overloaded
# function "X" has "C" linkage', a "conflicting declaration" or an
# undefined-symbol message); every other case must build.
# Usage: tests/adversarial/check_compile.sh [FILE.cu ...]   (default: all cases)
# Exit status: 0 when every case behaved as expected, 1 otherwise.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tasks="$(cd "$here/../../examples/tasks" && pwd)"
checker="$tasks/check_compile.sh"

cases="$(python3 - "$here/expected.toml" "$@" <<'PY'
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    manifest = tomllib.load(f)
only = set(a.rsplit("/", 1)[-1] for a in sys.argv[2:])
for case in manifest["case"]:
    if only and case["file"] not in only:
        continue
    print(case["file"], case["task"], case["expect"][0])
PY
)" || exit 1

status=0
while read -r file task kind; do
  [ -n "$file" ] || continue
  output="$("$checker" "$tasks/$task" "$here/$file" 2>&1)"
  built=$?
  case "$kind" in
    compile_error)
      if [ $built -ne 0 ]; then echo "OK    $file: does not compile, as expected"
      else echo "WRONG $file: compiled, expected compile_error"; status=1; fi ;;
    missing_entry_point)
      if [ $built -ne 0 ] && grep -qiE "conflicting declaration|\"C\" linkage|undefined (symbol|reference)" <<<"$output"; then
        echo "OK    $file: entry point rejected: $(grep -iE -m1 "conflicting declaration|\"C\" linkage|undefined (symbol|reference)" <<<"$output")"
      else echo "WRONG $file: expected a 'C linkage', conflicting-declaration or undefined-symbol failure"; echo "$output"; status=1; fi ;;
    *)
      if [ $built -eq 0 ]; then echo "OK    $file: compiles (runtime kind $kind)"
      else echo "WRONG $file: does not compile"; echo "$output"; status=1; fi ;;
  esac
done <<<"$cases"
exit $status
