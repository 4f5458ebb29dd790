#!/bin/bash
# `kopt suite --executor slurm` end to end on the local Slurm cluster (SLURM_CONF set by
# run_slurm_tests.sh): real `kopt optimize` runs in the jobs, with the fake nvcc and kopt-runner
# of tests/golden/fake_tools/bench. Checks, each printed as "ok: ..." or "FAILED: ...":
#  1. the Slurm run's table equals the local executor's run of the same suite;
#  2. kill -9 of the driver while a runner is timing, then scancel of a running job (its kopt
#     optimize stops on SIGTERM), then the same command again: it attaches to the jobs of the
#     record, continues the cancelled problem with --resume, and the table equals the clean one;
#     no candidate evaluation completed twice in any problem.
# usage: suite_on_slurm.sh KOPT SCRATCH
set -u
kopt=$1
scratch=$2
repository=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repository" || exit 1
failures=0
check() {  # check CONDITION-STATUS MESSAGE
  if [[ $1 -eq 0 ]]; then echo "ok: $2"; else echo "FAILED: $2"; failures=$((failures + 1)); fi
}
mkdir -p "$scratch"
for task in level1/add_a level1/add_b level2/add_c; do
  mkdir -p "$scratch/tasks/$task"
  cp tests/golden/inputs/bench_task/task.toml tests/golden/inputs/bench_task/reference.cu "$scratch/tasks/$task/"
done
printf '[slurm]\ngpus_per_task = 1\ntime_limit = "00:10:00"\npoll_seconds = 0.5\n' > "$scratch/cluster.toml"
export KOPT_NVCC=$repository/tests/golden/fake_tools/bench/nvcc
export KOPT_RUNNER=$repository/tests/golden/fake_tools/bench/kopt-runner
arguments=(--generator scripted --script tests/golden/inputs/optimize_script --search greedy --seed 3
  --max-evaluations 4 --no-profile -- --arch sm_90a --seeds 2 --timeout 60)
slurm=(--executor slurm --config "$scratch/cluster.toml")
table() {
  python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["problems"]:
    print(p["key"], p["outcome"], p["correct"], p["best_node"], p["evaluations"], json.dumps(p["verdicts"], sort_keys=True))
' "$1"
}
# Candidate children completed, and the libraries timed by more than one completed child (the
# same candidate library measured again; a clean run has its own count of these: --seeds 2).
completed() { grep -c "^end .* candidate " "$1"; }
twice() { grep "^end .* candidate " "$1" | cut -d" " -f4 | sort | uniq -d | wc -l; }

FAKE_RUNNER_EVENTS=$scratch/local.events "$kopt" suite "$scratch/tasks/level1" "$scratch/tasks/level2/add_c" \
  --name local --workspace "$scratch/ws" --devices 0,1 "${arguments[@]}" > "$scratch/local.out" 2>&1
check $? "local run"
table "$scratch/ws/suites/local/report.json" > "$scratch/local.table"

FAKE_RUNNER_EVENTS=$scratch/clean.events "$kopt" suite "$scratch/tasks/level1" "$scratch/tasks/level2/add_c" \
  --name clean --workspace "$scratch/ws" "${slurm[@]}" "${arguments[@]}" > "$scratch/clean.out" 2>&1
check $? "Slurm run"
table "$scratch/ws/suites/clean/report.json" > "$scratch/clean.table"
cmp -s "$scratch/local.table" "$scratch/clean.table"
check $? "the Slurm run's table equals the local run's"
[[ $(completed "$scratch/clean.events") -eq $(completed "$scratch/local.events") &&
  $(twice "$scratch/clean.events") -eq $(twice "$scratch/local.events") ]]
check $? "Slurm run: the local run's completed candidate children ($(completed "$scratch/clean.events"))"

FAKE_RUNNER_EVENTS=$scratch/killed.events FAKE_RUNNER_HOLD=$scratch/hold FAKE_RUNNER_HOLD_AFTER=5 \
  "$kopt" suite "$scratch/tasks/level1" "$scratch/tasks/level2/add_c" --name killed --workspace "$scratch/ws" \
  "${slurm[@]}" "${arguments[@]}" > "$scratch/killed1.out" 2>&1 &
driver=$!
for _ in $(seq 1 600); do [[ -e "$scratch/hold" ]] && break; sleep 0.05; done
[[ -e "$scratch/hold" ]]
check $? "a runner is timing (held) in a job"
kill -9 "$driver"
wait "$driver" 2> /dev/null
running=$(squeue --noheader --array --states=RUNNING --format=%i | head -1)
[[ -n "$running" ]]
check $? "jobs outlive the killed driver ($running running)"
scancel "$running"
rm -f "$scratch/hold"
sleep 2
FAKE_RUNNER_EVENTS=$scratch/killed.events "$kopt" suite "$scratch/tasks/level1" "$scratch/tasks/level2/add_c" \
  --name killed --workspace "$scratch/ws" "${slurm[@]}" "${arguments[@]}" > "$scratch/killed2.out" 2>&1
check $? "the second driver ran the suite to its end"
submissions=$(ls "$scratch/ws/suites/killed/slurm/"submission-*.sh | wc -l)
[[ $submissions -eq 2 ]]
check $? "one array for the suite and one continuation, no second submission ($submissions sbatch calls)"
grep -q -- "--resume" "$scratch/ws/suites/killed/slurm/work/"*/attempt-2.sh
check $? "the cancelled problem continued with kopt optimize --resume"
table "$scratch/ws/suites/killed/report.json" > "$scratch/killed.table"
# The cancelled problem: scancel signals every process of the job, kopt-runner too; a runner that
# dies of it first is not judged before kopt optimize's own SIGTERM (docs/slurm.md), so the
# candidate in flight is measured again by the continuation: every problem equals the clean run.
cancelled=$(grep -l "attempt 2" "$scratch/ws/suites/killed/slurm/work/"*/attempt-2.sh | head -1)
cancelled_key=$(sed -n 's/^# kopt suite: work \(.*\) attempt 2$/\1/p' "$cancelled")
grep -v "^$cancelled_key " "$scratch/clean.table" > "$scratch/clean.others"
grep -v "^$cancelled_key " "$scratch/killed.table" > "$scratch/killed.others"
cmp -s "$scratch/clean.others" "$scratch/killed.others" || diff "$scratch/clean.others" "$scratch/killed.others"
check $? "after kill -9 of the driver, the problems not cancelled have the clean run's rows"
grep -q "^$cancelled_key finished True n[0-9]* 4 " "$scratch/killed.table"
check $? "the cancelled problem ($cancelled_key) finished with its 4 evaluations"
cmp -s <(grep "^$cancelled_key " "$scratch/clean.table") <(grep "^$cancelled_key " "$scratch/killed.table")
check $? "the cancelled problem ($cancelled_key) has the clean run's row (no failed_run for the child killed by scancel)"
[[ $(twice "$scratch/killed.events") -eq $(twice "$scratch/clean.events") ]]
check $? "killed + resumed: no candidate library completed more often than in the clean run"
"$kopt" suite status --name killed --workspace "$scratch/ws" | sed -n '/^Slurm jobs/,$p'
exit $((failures > 0))
