#!/usr/bin/env bash
# The KEET/KernelPro ablation end to end on the GPU with the scripted LLM endpoint
# (scripts/scripted_llm/server.py echo: no real endpoint is reachable; the pipeline is the one a real endpoint
# uses, only --llm-config differs): 5 tasks x 4 feedback modes (none, raw, diagnosis, explanation) x
# greedy x 2 repeats, 2 evaluations each, through `kopt optimize --generator llm`
# (bench/keet_ablation.py), then `kopt eval mcq` over two labelled sets in the four contexts.
# Builds kopt and kopt-runner first (cmake --preset default; ~3-5 min on 16 cores unless build/ is
# carried). Writes under $OUT: ablation.json, ablation.html, mcq.json, mcq.html, log.txt.
# GPU time: 40 short runs (reference + 2 candidates + ncu profiles) ~ 6-10 min; TASKS="saxpy softmax"
# REPEATS=1 halves it.
set -u
OUT=${OUT:-/tmp/issue34_ablation}
mkdir -p "$OUT"
{ cmake --preset default && cmake --build --preset default --target kopt kopt-runner; } > "$OUT/log.txt" 2>&1 \
  || { tail -30 "$OUT/log.txt"; exit 1; }
python3 scripts/scripted_llm/server.py echo 18734 & server=$!
trap 'kill $server' EXIT
export KOPT_LLM_API_KEY=scripted
printf '[llm]\nprovider = "openai"\nbase_url = "http://127.0.0.1:18734/v1"\nmodel = "scripted"\nmax_retries = 0\n' \
  > "$OUT/llm.toml"
tasks=""
for task in ${TASKS:-saxpy softmax gelu layernorm reduce_sum}; do tasks="$tasks examples/tasks/$task"; done
timeout 540 python3 bench/keet_ablation.py --kopt build/src/kopt --tasks $tasks \
  --feedback none,raw,diagnosis,explanation --search greedy --repeats "${REPEATS:-2}" --max-evaluations 2 \
  --workspace /tmp/issue34_ws -o "$OUT/ablation.json" --html "$OUT/ablation.html" \
  -- --generator llm --llm-config "$OUT/llm.toml" >> "$OUT/log.txt" 2>&1
tail -8 "$OUT/log.txt"
build/src/kopt eval mcq tests/fixtures/h200 tests/fixtures/h200_blind --llm-config "$OUT/llm.toml" \
  -f json -o "$OUT/mcq.json" && build/src/kopt eval mcq tests/fixtures/h200 tests/fixtures/h200_blind \
  --llm-config "$OUT/llm.toml" -f html -o "$OUT/mcq.html"
python3 -c 'import json; d=json.load(open("'"$OUT"'/ablation.json")); print([(c["feedback"], c["ok"], c["runs"], c["geomean_speedup"], c["llm_tokens"]) for c in d["cells"]])'
