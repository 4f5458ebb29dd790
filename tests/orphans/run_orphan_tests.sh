#!/usr/bin/env bash
# No child outlives kopt (core/parent_death.h), without a GPU:
#   usage: run_orphan_tests.sh ORPHAN_DRIVER KOPT REPO_ROOT
# 1. orphan_driver (tests/orphans/orphan_driver.cc) starts children through the
#    system CommandRunner: from a worker thread (with a grandchild), from the
#    main thread (with a grandchild), after another worker thread ended; a
#    child that exits leaving a grandchild. kill -9 of the driver: none of them
#    may be running 5 s later, the sweeper included.
# 2. kopt optimize with the fake nvcc and kopt-runner (tests/golden/fake_tools),
#    kill -9 while a kopt-runner with a grandchild is timing: neither may be
#    running 5 s later (nor, before the kill, a grandchild of a child that had
#    ended); --resume then ends with the evaluations of a clean run, and the
#    candidate children that completed are those of a clean run (none twice).
# 3. The SIGTERM race of a Slurm scancel: SIGTERM to the timing kopt-runner,
#    then to kopt 0.3 s later (Slurm signals every process of the job): kopt
#    exits 143, leaves no child, the journal has only whole lines, and --resume
#    ends with the evaluations of a clean run (the killed child recorded as
#    no failure, and no evaluation run twice).
set -u
driver=$1
kopt=$2
repo=$3
cd "$repo" || exit 1
scratch=$(mktemp -d "${TMPDIR:-/tmp}/kopt-orphans.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
failures=0

fail() {
  echo "FAIL $*"
  failures=$((failures + 1))
}

# Running: it exists and is not a zombie (ended, not reaped by its new parent yet).
running() {
  local state
  state=$(ps -o stat= -p "$1" 2> /dev/null)
  case "$state" in "" | Z*) return 1 ;; *) return 0 ;; esac
}

# The pids of $@ still running 5 s after the kill (killed here, so nothing is left behind).
survivors() {
  local left="" pid
  for _ in $(seq 1 50); do
    left=""
    for pid in "$@"; do running "$pid" && left="$left $pid"; done
    [ -z "$left" ] && break
    sleep 0.1
  done
  for pid in $left; do kill -9 "$pid" 2> /dev/null; done
  echo "$left"
}

wait_for() {
  for _ in $(seq 1 300); do
    [ -e "$1" ] && return 0
    sleep 0.05
  done
  return 1
}

echo "--- 1. orphan_driver: children of the main thread and of worker threads, grandchildren"
mkdir -p "$scratch/driver"
"$driver" "$scratch/driver" &
parent=$!
if ! wait_for "$scratch/driver/ready"; then
  fail "orphan_driver never got ready"
  kill -9 "$parent"
else
  pids=""
  for name in worker worker_grandchild main main_grandchild; do
    pid=$(cat "$scratch/driver/$name.pid")
    pids="$pids $pid"
    running "$pid" || fail "$name ($pid) is not running before the kill (another thread's exit killed it?)"
  done
  running "$(cat "$scratch/driver/left_grandchild.pid")" &&
    fail "the grandchild left by an ended child is still running while the parent lives"
  sweeper=$(pgrep -P "$parent" -x kopt-sweeper)
  [ -n "$sweeper" ] || fail "no kopt-sweeper child of the driver"
  kill -9 "$parent"
  wait "$parent" 2> /dev/null
  left=$(survivors $pids $sweeper)
  if [ -n "$left" ]; then fail "running 5 s after kill -9 of the driver:$left"; else echo "ok: nothing outlived the driver"; fi
fi

# kopt optimize with the fake tools (as the golden cases run it).
export NO_COLOR=1 KOPT_NO_GPU_QUERY=1 KOPT_CEILINGS_DIR=/nonexistent-kopt-ceilings
export KOPT_NVCC=$repo/tests/golden/fake_tools/bench/nvcc KOPT_RUNNER=$repo/tests/golden/fake_tools/bench/kopt-runner
flags=(--generator scripted --script tests/golden/inputs/optimize_script --search greedy --max-evaluations 8
  --arch sm_90a --seeds 2 --timeout 60 --no-profile)
optimize() { "$kopt" optimize tests/golden/inputs/bench_task --seed 3 "${flags[@]}" "$@"; }
resume() { "$kopt" optimize --resume 1 "${flags[@]}" "$@"; }
# The evaluations table of a run's summary.
evaluations() { sed -n '/^Evaluations (/,/^$/p' "$1"; }

# How many candidate children completed per compiled candidate, sorted (the compile cache's keys differ
# between workspaces, so candidates are counted, not named: one run again would raise a count).
completed() {
  grep '^end [0-9]* candidate ' "$1" | cut -d' ' -f4 | sort | uniq -c | awk '{print $1}' | sort -n | tr '\n' ' '
}

FAKE_RUNNER_EVENTS=$scratch/clean.events optimize --workspace "$scratch/clean" > "$scratch/clean.out" 2>&1 || fail "the clean run failed: $(tail -3 "$scratch/clean.out")"
evaluations "$scratch/clean.out" > "$scratch/clean.table"
[ -s "$scratch/clean.table" ] || fail "the clean run printed no evaluations"
completed "$scratch/clean.events" > "$scratch/clean.children"

# Starts kopt optimize into workspace $1 with its 2nd kopt-runner child (n1's) holding, with a grandchild;
# sets $kopt_pid, $runner (the held child) and $grandchild once it holds.
start_held() {
  # kopt itself in the background (not a shell function's subshell): $! is kopt's pid.
  FAKE_RUNNER_EVENTS=$scratch/$1.events FAKE_RUNNER_HOLD=$scratch/$1.hold FAKE_RUNNER_HOLD_AFTER=2 \
    FAKE_RUNNER_GRANDCHILD=1 "$kopt" optimize tests/golden/inputs/bench_task --seed 3 "${flags[@]}" \
    --workspace "$scratch/$1" > "$scratch/$1.out" 2>&1 &
  kopt_pid=$!
  if ! wait_for "$scratch/$1.hold"; then
    fail "$1: the runner never held: $(tail -3 "$scratch/$1.out")"
    kill -9 "$kopt_pid"
    return 1
  fi
  runner=$(grep '^start ' "$scratch/$1.events" | tail -n 1 | cut -d' ' -f2)
  grandchild=$(grep "^grandchild .* $runner\$" "$scratch/$1.events" | cut -d' ' -f2)
  # The earlier children's grandchildren went when those children ended.
  local earlier
  earlier=$(grep '^grandchild ' "$scratch/$1.events" | grep -v " $runner\$" | cut -d' ' -f2)
  left=$(survivors $earlier)
  [ -z "$left" ] || fail "$1: grandchildren of ended children running while kopt lives:$left"
  sweeper=$(pgrep -P "$kopt_pid" -x kopt-sweeper)
  running "$runner" && running "$grandchild" || fail "$1: the held runner or its grandchild is not running"
  [ -n "$sweeper" ] || fail "$1: no kopt-sweeper child of kopt"
  return 0
}

# Resumes the run of workspace $1 and compares its evaluations with the clean run's.
resume_matches_clean() {
  rm -f "$scratch/$1.hold"
  FAKE_RUNNER_EVENTS=$scratch/$1.events resume --workspace "$scratch/$1" > "$scratch/$1.resumed" 2>&1 ||
    fail "$1: --resume failed: $(tail -3 "$scratch/$1.resumed")"
  evaluations "$scratch/$1.resumed" > "$scratch/$1.table"
  if cmp -s "$scratch/clean.table" "$scratch/$1.table"; then
    echo "ok: $1: the resumed run's evaluations equal the clean run's"
  else
    fail "$1: the resumed run's evaluations differ from the clean run's:"
    diff "$scratch/clean.table" "$scratch/$1.table"
  fi
  completed "$scratch/$1.events" > "$scratch/$1.children"
  if cmp -s "$scratch/clean.children" "$scratch/$1.children"; then
    echo "ok: $1: the same candidate children completed as in the clean run (none run again)"
  else
    fail "$1: other candidate children completed than in the clean run (per candidate):"
    diff "$scratch/clean.children" "$scratch/$1.children"
  fi
}

echo "--- 2. kill -9 of kopt optimize while a kopt-runner (with a grandchild) is timing"
if start_held killed; then
  kill -9 "$kopt_pid"
  wait "$kopt_pid" 2> /dev/null
  left=$(survivors "$runner" "$grandchild" $sweeper)
  if [ -n "$left" ]; then fail "running 5 s after kill -9 of kopt:$left"; else echo "ok: nothing outlived kopt"; fi
  resume_matches_clean killed
fi

echo "--- 3. SIGTERM to the timing kopt-runner, then to kopt 0.3 s later (a Slurm scancel)"
if start_held terminated; then
  kill -TERM "$runner"
  sleep 0.3
  kill -TERM "$kopt_pid"
  wait "$kopt_pid"
  code=$?
  [ "$code" = 143 ] || fail "kopt exited $code after SIGTERM, expected 143: $(tail -3 "$scratch/terminated.out")"
  left=$(survivors "$runner" "$grandchild" $sweeper)
  if [ -n "$left" ]; then fail "running 5 s after SIGTERM of kopt:$left"; else echo "ok: nothing outlived kopt"; fi
  grep -q 'failed_run' "$scratch/terminated.out" && fail "the killed child was recorded as failed_run"
  python3 - "$scratch/terminated/runs/1/optimize.journal" << 'EOF' || fail "the journal has a torn or broken line"
import json, os, sys
text = open(sys.argv[1], "rb").read() if os.path.exists(sys.argv[1]) else b""
for number, line in enumerate(text.split(b"\n")[:-1], 1):  # a torn last line is ignored, as Load does
    try:
        json.loads(line)
    except ValueError:
        sys.exit("line %d is not whole: %r" % (number, line[:80]))
EOF
  resume_matches_clean terminated
fi

[ "$failures" = 0 ] && echo "all orphan checks passed"
exit $((failures > 0))
