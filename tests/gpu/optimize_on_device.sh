#!/usr/bin/env bash
# The GPU checks of `kopt optimize` (issue 11) on a machine with an NVIDIA GPU,
# nvcc and ncu (our H200 device), using binaries packed by
# scripts/package_for_device.sh. Usage (repository root):
#   tests/gpu/optimize_on_device.sh OUT_DIR [TASK ...]   (default: gelu softmax transpose)
# Per task: a scripted run (the task's example candidates as the answers),
# then an LLM run against a local OpenAI-compatible server that serves the
# same candidates over real HTTP (scripts/scripted_llm/server.py answers: no LLM is
# reachable from our machines). Then, on the first task, a run killed with
# SIGKILL at a random point and resumed. Writes reports (json, md, html),
# progress logs and a summary under OUT_DIR. Exits 77 (skip) without a GPU.
set -u
out=$1; shift
tasks=("$@"); [ ${#tasks[@]} -eq 0 ] && tasks=(gelu softmax transpose)
mkdir -p "$out"
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/device/common.sh"
device_require_gpu
kopt=$(device_wrap kopt-with-libraries "$PWD/.carry/bin/kopt")
export KOPT_RUNNER=$PWD/.carry/bin/kopt-runner
evaluations=${EVALUATIONS:-6}
summary=$out/summary.txt
note() { echo "$*" | tee -a "$summary"; }
# What the run reached before a time limit still counts: the archive is
# refreshed after every step.
save() { tar czf "${RESULTS_TGZ:-$out/../optimize_results.tgz}" -C "$out" . 2>/dev/null; }
common=(--max-evaluations "$evaluations" --seed 11 --timing-seconds 1 --search mcts)
report() {  # workspace run name
  "$kopt" report "$2" --workspace "$1" -f md > "$out/$3.md" 2>&1
  "$kopt" report "$2" --workspace "$1" -f html > "$out/$3.html" 2>&1
}
resume_check() {
# kill -9 at a random point, then --resume (first task).
local task=${tasks[0]}
ws=$(mktemp -d)/ws
delay=$((4 + RANDOM % 8))
"$kopt" optimize "examples/tasks/$task" --generator scripted --script "examples/tasks/$task/candidates" \
  "${common[@]}" --workspace "$ws" -f json -o "$out/$task.killed.json" 2> "$out/$task.killed.progress" &
victim=$!
sleep "$delay"
kill -9 $victim 2>/dev/null; wait $victim 2>/dev/null
note "resume: killed after $delay s; nodes recorded then: $(grep -c '^\[' "$out/$task.killed.progress")"
cp "$ws/runs/1/optimize.json" "$out/$task.killed_state.json" 2>/dev/null
cp "$ws/runs/1/optimize.journal" "$out/$task.killed_state.journal" 2>/dev/null  # the steps since that snapshot
"$kopt" optimize --resume 1 --generator scripted --script "examples/tasks/$task/candidates" "${common[@]}" \
  --workspace "$ws" -f json -o "$out/$task.resumed.json" 2> "$out/$task.resumed.progress"
note "resume: exit $?"
report "$ws" 1 "$task.resumed"
python3 - "$out/$task.resumed.json" "$out/$task.scripted.json" <<'PY' | tee -a "$summary"
import json, sys
resumed = json.load(open(sys.argv[1]))["run"]
straight = json.load(open(sys.argv[2]))["run"]
def shape(run):
    return [(n["id"], n.get("parent_id"), n["status"], n["mode"]) for n in run["tree"]["nodes"]]
nodes = resumed["tree"]["nodes"]
print(f"resume: {len(nodes)} nodes, {resumed['usage']['evaluations']} evaluations, "
      f"pending {sum(1 for n in nodes if n['status'] == 'pending')}, status {resumed['status']}")
print("resume: same tree as the uninterrupted run:", shape(resumed) == shape(straight))
PY
  save
}
first=1
for task in "${tasks[@]}"; do
  ws=$(mktemp -d)/ws
  start=$(date +%s.%N)
  "$kopt" optimize "examples/tasks/$task" --generator scripted --script "examples/tasks/$task/candidates" \
    "${common[@]}" --workspace "$ws" -f json -o "$out/$task.scripted.json" 2> "$out/$task.scripted.progress"
  code=$?
  note "$task scripted: exit $code, $(awk "BEGIN{print $(date +%s.%N) - $start}") s"
  report "$ws" 1 "$task.scripted"
  # The LLM path: real HTTP to a local server that serves the candidates.
  answers=$(mktemp -d); cp examples/tasks/$task/candidates/*.cu "$answers/"
  port=$((18000 + RANDOM % 1000))
  python3 scripts/scripted_llm/server.py answers "$port" "$answers" "$out/$task.llm_requests.jsonl" &
  server=$!
  sleep 1
  printf '[llm]\nprovider = "openai"\nbase_url = "http://127.0.0.1:%s"\nmodel = "scripted-h200"\nmax_retries = 1\n' \
    "$port" > "$answers/llm.toml"
  ws2=$(mktemp -d)/ws
  start=$(date +%s.%N)
  KOPT_LLM_API_KEY=sk-test-kopt-secret-0123456789 "$kopt" optimize "examples/tasks/$task" --generator llm \
    --llm-config "$answers/llm.toml" "${common[@]}" --workspace "$ws2" -f json -o "$out/$task.llm.json" \
    2> "$out/$task.llm.progress"
  code=$?
  kill $server 2>/dev/null
  note "$task llm: exit $code, $(awk "BEGIN{print $(date +%s.%N) - $start}") s"
  report "$ws2" 1 "$task.llm"
  if grep -rq "sk-test-kopt-secret" "$ws2" "$out"/$task.llm.* 2>/dev/null; then
    note "$task llm: API KEY FOUND in the workspace or outputs"
  else
    note "$task llm: API key in neither the workspace nor the outputs"
  fi
  save
  if [ $first = 1 ]; then resume_check; first=0; fi
done
save
