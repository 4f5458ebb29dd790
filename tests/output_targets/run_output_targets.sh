#!/usr/bin/env bash
# Every kopt command that writes a report, with -o naming what it must never
# replace or overwrite: a device that discards (/dev/null), a device that
# fails (/dev/full), a FIFO, a symbolic link, one of the command's input files
# and one of its input directories. Usage: run_output_targets.sh KOPT REPO_ROOT
# Devices and FIFO keep their kind and are written through, the link stays a
# link and its target gets the report, and an input is refused (exit 2, naming
# it) and left byte for byte as it was. Runs without a GPU (fake nvcc and
# kopt-runner of the golden tests); as root it makes its own device nodes when
# it can, so a regression replaces only those.
set -u
kopt=$(realpath "$1")
repo=$(cd "$2" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kopt-output-targets.XXXXXX")
trap 'rm -rf "$work"' EXIT
export NO_COLOR=1 KOPT_NO_GPU_QUERY=1 KOPT_CEILINGS_DIR=/nonexistent-kopt-ceilings
export KOPT_NVCC=$repo/tests/golden/fake_tools/bench/nvcc KOPT_RUNNER=$repo/tests/golden/fake_tools/bench/kopt-runner
passed=0
failed=0

null_device=/dev/null
full_device=/dev/full
if [ "$(id -u)" = 0 ]; then
  mknod "$work/null" c 1 3 2>/dev/null && [ -c "$work/null" ] && : > "$work/null" 2>/dev/null && null_device=$work/null
  mknod "$work/full" c 1 7 2>/dev/null && [ -c "$work/full" ] && full_device=$work/full
fi

# Fresh inputs for every run: what a failing run damages is a copy.
prepare() {
  rm -rf "$work/in" "$work/ws_bench" "$work/ws_opt"
  mkdir -p "$work/in/versions" "$work/in/after"
  cp -r "$repo/tests/fixtures/h200/uncoalesced_loads" "$work/in/bundle"
  cp "$repo/tests/fixtures/h200_diff/pairs/saxpy/before.csv" "$work/in/before.csv"
  cp "$repo/tests/fixtures/h200_diff/pairs/saxpy/after.csv" "$work/in/after/raw.csv"
  cp "$repo/tests/fixtures/h200_diff/sweep_saxpy/n=16777216_block=128.csv" "$work/in/versions/v1.csv"
  cp "$repo/tests/fixtures/h200_diff/sweep_saxpy/n=16777216_block=256.csv" "$work/in/versions/v2.csv"
  cp -r "$repo/tests/fixtures/h200_diff/sweep_saxpy" "$work/in/sweep"
  cp -r "$repo/tests/golden/inputs/bench_task" "$work/in/task"
  cp -r "$repo/tests/golden/inputs/optimize_script" "$work/in/script"
  cp -r "$work/report_workspace" "$work/in/workspace"
}

optimize_arguments="--generator scripted --script $work/in/script --search greedy --seed 3 --max-evaluations 1 \
--arch sm_90a --seeds 2 --timeout 5 --no-profile --quiet"

# A stored run for `kopt report`.
mkdir -p "$work/in"
cp -r "$repo/tests/golden/inputs/bench_task" "$work/in/task"
cp -r "$repo/tests/golden/inputs/optimize_script" "$work/in/script"
(cd "$work" && "$kopt" optimize "$work/in/task" $optimize_arguments --workspace "$work/report_workspace" \
  > "$work/setup.log" 2>&1) || { echo "FAIL setup: kopt optimize"; cat "$work/setup.log"; exit 1; }

# name | arguments | an input file | an input directory
commands=(
  "explain|explain $work/in/bundle|$work/in/bundle/raw.csv|$work/in/bundle"
  "explain versions|explain $work/in/versions|$work/in/versions/v2.csv|$work/in/versions"
  "explain sweep|explain $work/in/sweep --sweep block|$work/in/sweep/n=16777216_block=256.csv|$work/in/sweep"
  "diff|diff $work/in/before.csv $work/in/after|$work/in/after/raw.csv|$work/in/after"
  "bench|bench $work/in/task --compile-only --arch sm_90a --workspace $work/ws_bench|$work/in/task/reference.cu|$work/in/task"
  "optimize|optimize $work/in/task $optimize_arguments --workspace $work/ws_opt|$work/in/task/task.toml|$work/in/task"
  "report|report --workspace $work/in/workspace|$work/in/workspace/kopt.db|$work/in/workspace"
)

fail() {
  echo "FAIL $1: $2"
  sed 's/^/  | /' "$work/out" | head -8
  failed=$((failed + 1))
}

# Runs kopt ARGS -f md -o TARGET in $work (-f: an input's extension, .csv or .cu, names no report
# format); its exit status in $status, stdout+stderr in $work/out.
run_kopt() {
  local arguments=$1 target=$2
  (cd "$work" && timeout 60 "$kopt" $arguments -f md -o "$target" > "$work/out" 2>&1)
  status=$?
}

fingerprint() { (cd "$1" 2>/dev/null && find . -exec ls -ld --time-style=+ {} + | sort; find . -type f -exec cksum {} + | sort) || cksum "$1"; }

for command in "${commands[@]}"; do
  IFS='|' read -r name arguments input_file input_directory <<< "$command"

  prepare
  run_kopt "$arguments" "$null_device"
  if [ "$status" != 0 ]; then fail "$name -o /dev/null" "exit $status, expected 0"
  elif [ ! -c "$null_device" ]; then fail "$name -o /dev/null" "the device was replaced"
  else passed=$((passed + 1)); fi

  prepare
  run_kopt "$arguments" "$full_device"
  if [ "$status" != 2 ]; then fail "$name -o /dev/full" "exit $status, expected 2"
  elif ! grep -q "No space left on device" "$work/out"; then fail "$name -o /dev/full" "no ENOSPC message"
  elif [ ! -c "$full_device" ]; then fail "$name -o /dev/full" "the device was replaced"
  else passed=$((passed + 1)); fi

  prepare
  rm -f "$work/fifo" "$work/received"
  mkfifo "$work/fifo"
  timeout 90 cat "$work/fifo" > "$work/received" &
  reader=$!
  run_kopt "$arguments" "$work/fifo"
  [ -p "$work/fifo" ] || : > "$work/fifo.gone"
  [ "$status" = 0 ] || { exec 3<> "$work/fifo"; exec 3>&-; }  # release the reader
  wait "$reader"
  if [ "$status" != 0 ]; then fail "$name -o FIFO" "exit $status, expected 0"
  elif [ -e "$work/fifo.gone" ]; then fail "$name -o FIFO" "the FIFO was replaced"
  elif [ ! -s "$work/received" ]; then fail "$name -o FIFO" "nothing arrived through the FIFO"
  else passed=$((passed + 1)); fi
  rm -f "$work/fifo" "$work/fifo.gone"

  prepare
  rm -f "$work/link" "$work/linked.txt"
  : > "$work/linked.txt"
  ln -s "$work/linked.txt" "$work/link"
  run_kopt "$arguments" "$work/link"
  if [ "$status" != 0 ]; then fail "$name -o symlink" "exit $status, expected 0"
  elif [ ! -L "$work/link" ]; then fail "$name -o symlink" "the link was replaced"
  elif [ ! -s "$work/linked.txt" ]; then fail "$name -o symlink" "its target did not get the report"
  else passed=$((passed + 1)); fi

  for input in "$input_file" "$input_directory"; do
    prepare
    before=$(fingerprint "$input")
    run_kopt "$arguments" "$input"
    label="$name -o ${input#$work/}"
    if [ "$status" != 2 ]; then fail "$label" "exit $status, expected 2"
    elif ! grep -q "that is an input of this command" "$work/out"; then fail "$label" "no message naming the input"
    elif [ "$(fingerprint "$input")" != "$before" ]; then fail "$label" "the input changed"
    else passed=$((passed + 1)); fi
  done
done
echo "output targets: $passed passed, $failed failed"
[ "$failed" = 0 ]
