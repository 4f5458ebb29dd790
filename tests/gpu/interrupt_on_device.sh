#!/usr/bin/env bash
# Issue 19 item 7 on a GPU machine: `kopt bench` stopped by SIGINT in the middle of a run leaves nothing
# behind, and running the same command again finishes it.
#
# Two interrupted runs of the saxpy task (timing forced long: --max-noise 0.0001 --timing-seconds 4), each
# sent SIGINT (to kopt alone, as `kill -INT` from another terminal would) once a child of the wanted kind
# is running: first while nvcc compiles, then while kopt-runner measures. After each: the processes left
# (nvcc, cicc, ptxas, kopt-runner), the temporary directories left in the workspace (compile-cache/.tmp-*),
# and the runs table. Then the same command once more: it must finish (rc 0) and reuse what was complete.
# Then (issue 19 item 10) a live `kopt explain` of examples/kernels/uncoalesced_loads.cu on a
# pseudo-terminal: its progress lines (building, profiling launch i, exporting, disassembling).
#
# Run from the root of a checkout whose packaged binaries are in .carry/bin (kopt, kopt-runner) and
# .carry/lib, with OUT set to an empty folder; writes $OUT/h19-round2.tar.gz (about 1.5 minutes; at most 3).
#   bash tests/gpu/interrupt_on_device.sh
set -u
root=$PWD
export LD_LIBRARY_PATH=$root/.carry/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export KOPT_RUNNER=$root/.carry/bin/kopt-runner
kopt=$root/.carry/bin/kopt
result=$OUT/h19-round2
mkdir -p "$result"
work=$(mktemp -d)
workspace=$work/ws
task=examples/tasks/saxpy
args=(bench "$task" "$task/candidates/saxpy_vec4.cu" -w "$workspace" --max-noise 0.0001 --timing-seconds 4 --jobs 2)

children() {  # the processes of a kind still alive, with their parent and group
  ps -eo pid,ppid,pgid,stat,etimes,cmd | grep -E "$1" | grep -v -E "grep|interrupt_on_device" || true
}

report_state() {  # $1: label
  {
    echo "== $1"
    echo "-- processes left (nvcc/cicc/ptxas/kopt-runner):"
    children 'nvcc|cicc|ptxas|kopt-runner'
    echo "-- temporary directories left in the workspace:"
    find "$workspace" -name '.tmp-*' 2> /dev/null
    echo "-- runs:"
    python3 - "$workspace/kopt.db" << 'EOF'
import sqlite3, sys
try:
    db = sqlite3.connect(sys.argv[1])
    for row in db.execute('SELECT id, started, finished, summary FROM runs ORDER BY id'):
        print(row)
except Exception as error:
    print('no runs table:', error)
EOF
  } >> "$result/state.txt"
}

interrupt_when() {  # $1: label, $2: regex of the child kind to wait for
  local label=$1 pattern=$2 start=$SECONDS
  "$kopt" "${args[@]}" > "$result/$label.txt" 2> "$result/$label.log" &
  local pid=$!
  while kill -0 "$pid" 2> /dev/null && [ $((SECONDS - start)) -lt 60 ]; do
    if children "$pattern" | grep -q .; then
      echo "$label: $(children "$pattern" | head -1)" >> "$result/when.txt"
      sleep 0.3
      kill -INT "$pid"
      echo "$label: SIGINT after $((SECONDS - start)) s" >> "$result/when.txt"
      break
    fi
    sleep 0.1
  done
  wait "$pid"
  echo "$label: rc $?" >> "$result/when.txt"
  sleep 2  # anything that outlives kopt has had time to show
  report_state "$label"
}

interrupt_when interrupted_compiling 'nvcc|cicc|ptxas'
interrupt_when interrupted_measuring 'kopt-runner'
start=$SECONDS
"$kopt" "${args[@]}" > "$result/resumed.txt" 2> "$result/resumed.log"
echo "resumed: rc $? after $((SECONDS - start)) s" >> "$result/when.txt"
report_state resumed
# Item 10: live collection prints its progress on a terminal (script(1) gives kopt a pseudo-terminal).
if command -v ncu > /dev/null && command -v script > /dev/null; then
  start=$SECONDS
  (cd "$work" && timeout 50 script -qfec "$kopt explain $root/examples/kernels/uncoalesced_loads.cu -k uncoalesced_loads --launch-count 1 -o report.txt" \
    "$result/explain_progress.typescript" > /dev/null 2>&1)
  echo "explain with progress: rc $? after $((SECONDS - start)) s" >> "$result/when.txt"
  tr '\r' '\n' < "$result/explain_progress.typescript" | grep -a "kopt:" > "$result/explain_progress_lines.txt"
  cp "$work/report.txt" "$result/explain_report.txt" 2> /dev/null
fi
tar -czf "$OUT/h19-round2.tar.gz" -C "$OUT" h19-round2
rm -rf "$work"
