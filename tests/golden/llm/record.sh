#!/usr/bin/env bash
# Re-records the transcripts the explain_llm_* and plan_llm_* golden cases replay, against
# scripts/scripted_llm/server.py explain (a scripted OpenAI-compatible server on 127.0.0.1).
# Needed whenever the prompts or the evidence digest of the fixture change
# (the request hash covers both). Usage: tests/golden/llm/record.sh KOPT_BINARY
set -eu
kopt=$(realpath "$1")
dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$dir/../../.." && pwd)
record() {
  local name=$1 first=$2 second=${3:-}
  python3 "$root/scripts/scripted_llm/server.py" explain 18931 "$dir/$first" ${second:+"$dir/$second"} &
  local server=$!
  sleep 1
  rm -f "$dir/$name.jsonl"
  (cd "$root" && KOPT_LLM_API_KEY=sk-golden-record-key "$kopt" explain \
    tests/fixtures/h200/uncoalesced_loads/raw.csv --source examples/kernels/uncoalesced_loads.cu \
    --llm --llm-config tests/golden/llm/llm.toml \
    --llm-record "tests/golden/llm/$name.jsonl" > /dev/null) || true
  kill "$server"
  wait "$server" 2> /dev/null || true
}
record supported supported_answer.md
record unsupported unsupported_first.md unsupported_second.md

# `kopt plan --llm` (plan_llm_* cases): one answer, sent again for the regeneration, so that
# its unsupported number stays and is marked.
record_plan() {
  local name=$1 answer=$2
  python3 "$root/scripts/scripted_llm/server.py" explain 18931 "$dir/$answer" &
  local server=$!
  sleep 1
  rm -f "$dir/$name.jsonl"
  (cd "$root" && KOPT_LLM_API_KEY=sk-golden-record-key "$kopt" plan $PLAN_TARGETS \
    --llm --llm-config tests/golden/llm/llm.toml --llm-record "tests/golden/llm/$name.jsonl" > /dev/null) || true
  kill "$server"
  wait "$server" 2> /dev/null || true
}
PLAN_TARGETS="tests/fixtures/h200/uncoalesced_loads tests/fixtures/h200/local_memory_spills tests/fixtures/h200/launch_overhead"
record_plan plan_unsupported plan_answer.md
