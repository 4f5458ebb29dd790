#!/usr/bin/env bash
# Issue 19 on a GPU machine, round 3: item 7 (interrupts, tests/gpu/interrupt_on_device.sh) and item 10
# (a real PyTorch program explained live: tests/gpu/programs/small_transformer_block.py).
#
# Item 10 checks, each written to $OUT/h19-round3/: the wall time of
#   kopt explain -- python3 small_transformer_block.py            (default: targeted set, sampled launches)
# on a pseudo-terminal (its progress lines), the same with -k softmax (lower case; the kernel is
# cunn_SoftMaxForward...), and the JSON report (kernel headings: short names, launch groups).
# Run from the root of a checkout whose packaged binaries are in .carry/bin and .carry/lib, OUT set;
# writes $OUT/h19-round3.tar.gz (about 2.5 minutes; at most 5).
set -u
root=$PWD
result=$OUT/h19-round3
mkdir -p "$result"
export LD_LIBRARY_PATH=$root/.carry/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export KOPT_RUNNER=$root/.carry/bin/kopt-runner
kopt=$root/.carry/bin/kopt
program=$root/tests/gpu/programs/small_transformer_block.py

# Item 7 (its own tarball, then unpacked into ours).
OUT=$result bash tests/gpu/interrupt_on_device.sh > "$result/interrupt_script.log" 2>&1
tar -xzf "$result/h19-round2.tar.gz" -C "$result" && rm -f "$result/h19-round2.tar.gz"
mv "$result/h19-round2" "$result/item7" 2> /dev/null

work=$(mktemp -d)
cd "$work" || exit 1
python3 "$program" > "$result/program_alone.txt" 2>&1
echo "program alone: rc $?" >> "$result/times.txt"
timed() {  # $1: label, rest: the command line for script(1)
  local label=$1 start
  shift
  start=$(($(date +%s%N) / 1000000))
  timeout 240 script -qfec "$*" "$result/$label.typescript" > /dev/null 2>&1
  local rc=$?
  echo "$label: rc $rc, $(($(date +%s%N) / 1000000 - start)) ms" >> "$result/times.txt"
  tr '\r' '\n' < "$result/$label.typescript" | grep -a "kopt:" > "$result/${label}_progress.txt"
}
timed transformer "$kopt explain -o transformer.txt -- python3 $program"
timed transformer_json "$kopt explain -f json -o transformer.json -- python3 $program"
timed transformer_softmax "$kopt explain -k softmax -o transformer_softmax.txt -- python3 $program"
cp transformer*.txt transformer*.json "$result/" 2> /dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$result/env.txt"
ncu --version | tail -1 >> "$result/env.txt"
python3 -c 'import torch; print("torch", torch.__version__)' >> "$result/env.txt" 2>&1
cd "$root" && rm -rf "$work"
tar -czf "$OUT/h19-round3.tar.gz" -C "$OUT" h19-round3
cat "$result/times.txt"
