#!/usr/bin/env bash
# `kopt suite` on the GPU (docs/suite.md): KernelBench problems (default 20 of
# level 1, 10 of level 2, 3 of level 3) imported, their eager and TF32 PyTorch
# baselines timed (bench/kernelbench_baselines.py --task-baselines), then one suite run
# over every GPU of the host with the LLM generator against a local scripted
# server (scripts/scripted_llm/server.py suite: no LLM is reachable from the
# device; per task it answers a compile error, a wrong output, a cheat, and for
# the elementwise activations a correct kernel), killed with kill -9 once a
# third of the problems ended, checked for children left running, and resumed
# with the same command to the end.
#
# Needs (repository root, carried): .carry/bin/kopt, .carry/bin/kopt-runner
# and .carry/lib (scripts/device/package_issue31.sh packs them with the
# KernelBench problems into .carry/KernelBench/levelN/), nvidia-smi, nvcc,
# python3 with PyTorch and CUDA.
# Usage: scripts/device/issue31_suite.sh  (writes $OUT/issue31_suite.tgz and
# $OUT/summary.txt). Environment: LEVEL1 / LEVEL2 / LEVEL3 (problem counts),
# EVALUATIONS (per problem, default 4), KILL_FRACTION (default 3: kill after
# 1/3 of the problems ended). "Measured twice" counts kopt's own records: the
# completed candidate measurements of each problem's workspace database.
set -u
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
summary=$OUT/summary.txt
note() { echo "$*" | tee -a "$summary"; }
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
device_require_gpu note
root=$PWD
kb=${KERNELBENCH_DIR:-$root/.carry/KernelBench}
[ -d "$kb/level1" ] || { note "no KernelBench problems under $kb (scripts/device/package_issue31.sh)"; exit 2; }
kopt=$(device_wrap kopt-with-libraries "$root/.carry/bin/kopt")
work=$(mktemp -d)/issue31
mkdir -p "$work"
save() { tar czf "$OUT/issue31_suite.tgz" -C "$work" --exclude=ws --exclude=tasks . 2> /dev/null; }
trap save EXIT

level1=(19_ReLU 20_LeakyReLU 21_Sigmoid 22_Tanh 25_Swish 26_GELU_ 27_SELU_ 28_HardSigmoid 29_Softplus 30_Softsign
        31_ELU 32_HardTanh 23_Softmax 24_LogSoftmax 36_RMSNorm_ 38_L1Norm_ 47_Sum_reduction_over_a_dimension
        12_Matmul_with_diagonal_matrices_ 88_MinGPTNewGelu 100_HingeLoss)
level2=(1_Conv2D_ReLU_BiasAdd 9_Matmul_Subtract_Multiply_ReLU 12_Gemm_Multiply_LeakyReLU 14_Gemm_Divide_Sum_Scaling
        4_Conv2d_Mish_Mish 5_ConvTranspose2d_Subtract_Tanh 17_Conv2d_InstanceNorm_Divide 2_ConvTranspose2d_BiasAdd_Clamp_Scaling_Clamp_Divide
        7_Conv3d_ReLU_LeakyReLU_GELU_Sigmoid_BiasAdd 18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp)
level3=(1_MLP 2_ShallowWideMLP 3_DeepNarrowMLP)
problems=()
for name in "${level1[@]:0:${LEVEL1:-20}}"; do problems+=("$kb/level1/$name.py"); done
for name in "${level2[@]:0:${LEVEL2:-10}}"; do problems+=("$kb/level2/$name.py"); done
for name in "${level3[@]:0:${LEVEL3:-3}}"; do problems+=("$kb/level3/$name.py"); done
started=$(date +%s)
elapsed() { echo $(($(date +%s) - started)); }

note "=== import ${#problems[@]} problems ($(nvidia-smi -L | wc -l) GPUs: $(nvidia-smi -L | head -1))"
"$kopt" task import-kernelbench "${problems[@]}" --out "$work/tasks" > "$work/import.log" 2>&1
note "import: exit $?, $(ls "$work/tasks" | wc -l) task directories, $(elapsed) s"
tail -n 5 "$work/import.log" | tee -a "$summary"

note "=== baselines (eager, TF32, torch.compile; kopt's timing protocol)"
python3 "$root/bench/kernelbench_baselines.py" --task-baselines --out "$work/baselines" \
  --budget-seconds "${BASELINE_SECONDS:-150}" "$work"/tasks/*/ > "$work/baselines.log" 2>&1
note "baselines: exit $?, $(ls "$work"/tasks/*/baselines.json 2> /dev/null | wc -l) tasks with baselines.json, $(elapsed) s"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf '[llm]\nprovider = "openai"\nbase_url = "http://127.0.0.1:%s"\nmodel = "scripted"\nmax_retries = 0\n' "$port" > "$work/llm.toml"
python3 "$root/scripts/scripted_llm/server.py" suite "$port" "$work/tasks" "$work/llm_requests.jsonl" &
server=$!
for _ in $(seq 1 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2> /dev/null && break; sleep 0.1; done

devices=$(nvidia-smi --query-gpu=index --format=csv,noheader | paste -sd, -)
export KOPT_LLM_API_KEY=scripted-no-key
export KOPT_RUNNER=$root/.carry/bin/kopt-runner
suite=("$kopt" suite "$work/tasks" --name issue31 --workspace "$work/ws" --devices "$devices"
       --generator llm --llm-config "$work/llm.toml" --seed 31 --max-evaluations "${EVALUATIONS:-4}" --max-seconds 60
       -- --timing-seconds 0.5)
note "=== kopt suite, killed with kill -9 after 1/${KILL_FRACTION:-3} of the problems ended"
note "command: ${suite[*]}"
"${suite[@]}" > "$work/run1.out" 2> "$work/run1.progress" &
driver=$!
target=$(( ${#problems[@]} / ${KILL_FRACTION:-3} ))
while kill -0 "$driver" 2> /dev/null; do
  done_count=$(tail -n 1 "$work/run1.progress" 2> /dev/null | sed -n 's/^suite issue31: \([0-9]*\)\/.*/\1/p')
  [ "${done_count:-0}" -ge "$target" ] && break
  sleep 0.5
done
# The driver's children (kopt optimize) and theirs (kopt-runner, nvcc) just before the kill.
children=$(pgrep -P "$driver" | tr '\n' ' ')
grandchildren=$(for child in $children; do pgrep -P "$child"; done | tr '\n' ' ')
kill -9 "$driver"
wait "$driver" 2> /dev/null
sleep 2
left=0
for pid in $children $grandchildren; do
  state=$(ps -o stat= -p "$pid" 2> /dev/null)  # a zombie (ended, not reaped yet) is not running
  case "$state" in ""|Z*) ;; *) left=$((left + 1)); ps -o pid,ppid,args -p "$pid" >> "$work/orphans.txt" ;; esac
done
note "killed at $(tail -n 1 "$work/run1.progress"), $(elapsed) s"
note "children (kopt optimize: $(echo $children | wc -w); theirs, kopt-runner or nvcc: $(echo $grandchildren | wc -w)) left running after kill -9: $left"
nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader > "$work/gpu_processes_after_kill.txt"
note "processes on the GPUs after the kill: $(grep -c . "$work/gpu_processes_after_kill.txt")"
"$kopt" suite status --name issue31 --workspace "$work/ws" > "$work/status_after_kill.txt" 2>&1

note "=== resumed (the same command)"
"${suite[@]}" > "$work/run2.out" 2> "$work/run2.progress"
note "resumed: exit $?, $(elapsed) s; $(tail -n 1 "$work/run2.progress")"
kill "$server"
cp "$work/ws/suites/issue31/report."* "$work/" 2> /dev/null
cp "$work/ws/suites/issue31/suite.journal" "$work/" 2> /dev/null
for problem in "$work"/ws/suites/issue31/problems/*/; do
  cp "$problem/optimize.log" "$work/optimize_$(basename "$problem").log" 2> /dev/null
done
cat "$work/run2.out" >> "$summary"
python3 - "$work/report.json" "$work/ws/suites/issue31/problems" "$work/llm_requests.jsonl" << 'EOF' | tee -a "$summary"
import collections, glob, json, sqlite3, sys
report = json.load(open(sys.argv[1]))
# kopt's own record of every candidate measurement that completed, per problem workspace.
completed, twice = 0, []
for database in sorted(glob.glob(sys.argv[2] + "/*/workspace/kopt.db")):
    rows = sqlite3.connect(database).execute(
        "SELECT candidate_hash, COUNT(*) FROM measurements WHERE role = 'candidate' AND phase = 'outcome' "
        "AND complete = 1 GROUP BY candidate_hash").fetchall()
    completed += sum(count for _, count in rows)
    twice += [(database.split("/")[-3], candidate[:12]) for candidate, count in rows if count > 1]
print("completed candidate measurements:", completed, "; measured twice:", len(twice), twice[:5])
answers = collections.Counter(json.loads(line)["answer"] for line in open(sys.argv[3]))
print("scripted answers served:", dict(answers))
verdicts = collections.Counter()
for problem in report["problems"]:
    verdicts.update(problem["verdicts"])
print("verdicts over the suite:", dict(verdicts))
print("problems:", len(report["problems"]), "outcomes:", dict(collections.Counter(p["outcome"] for p in report["problems"])))
for group in report["groups"]:
    eager = group["against"]["eager"]
    print(group["group"], "fast_p vs eager:", eager["fast_p_fraction"], "geomean:", eager["geomean_speedup"],
          "n =", eager["geomean_problems"], "coverage:", group["coverage_fraction"])
EOF
note "total $(elapsed) s"
