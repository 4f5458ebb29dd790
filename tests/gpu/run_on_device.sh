#!/usr/bin/env bash
# GPU end-to-end checks of kopt on a machine with an NVIDIA GPU, nvcc and ncu
# (our H200 device machine). Usage: tests/gpu/run_on_device.sh KOPT KOPT_TESTS OUT_DIR
# Runs the live-GPU unit tests, then `kopt explain` on a .cu file, on a program
# after --, on the .ncu-rep it produced, and the bad-input cases; writes every
# output under OUT_DIR and prints one summary line per case. Exits 77 (skip)
# when there is no GPU.
set -u
kopt=$1; kopt_tests=$2; out=$3
mkdir -p "$out"
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
command -v ncu >/dev/null || { echo "no ncu: skipped"; exit 77; }
repo=$(pwd)
work=$(mktemp -d)
summary="$out/summary.txt"
: > "$summary"

run_case() {  # name expected_exit command...
  local name=$1 expected=$2; shift 2
  local start end code
  start=$(date +%s.%N)
  "$@" > "$out/$name.out" 2> "$out/$name.err"
  code=$?
  end=$(date +%s.%N)
  local verdict=PASS
  [ "$code" = "$expected" ] || verdict=FAIL
  printf '%s %-28s exit %s (expected %s) %6.1f s  %s\n' "$verdict" "$name" "$code" "$expected" \
    "$(awk "BEGIN{print $end - $start}")" "$(head -c 160 "$out/$name.err" | tr '\n' ' ')" | tee -a "$summary"
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/device.txt"
ncu --version >> "$out/device.txt"
run_case gpus 0 "$kopt" gpus
KOPT_LIVE_GPU_TESTS=1 run_case live_unit_tests 0 "$kopt_tests" --gtest_filter='*Live*:*GpuQuery*'

cp examples/kernels/uncoalesced_loads.cu examples/kernels/healthy_dram_copy.cu examples/kernels/example_common.cuh "$work/"
run_case explain_cu_term 0 "$kopt" explain "$work/uncoalesced_loads.cu" --work-dir "$work/bundle_cu"
run_case explain_cu_json 0 "$kopt" explain "$work/bundle_cu" -f json -o "$out/explain_cu.json"
run_case explain_cu_html 0 "$kopt" explain "$work/bundle_cu" -f html -o "$out/explain_cu.html"
run_case explain_cu_feedback 0 "$kopt" explain "$work/bundle_cu" -f feedback
run_case bundle_has_source_page 0 test -s "$work/bundle_cu/source.csv"
report=$(ls "$work"/bundle_cu/*.ncu-rep 2>/dev/null | head -1)
run_case explain_ncu_rep 0 "$kopt" explain "$report" -f md

nvcc -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -o "$work/healthy_dram_copy" "$work/healthy_dram_copy.cu"
run_case explain_program 0 "$kopt" explain --work-dir "$work/bundle_prog" -k healthy -- "$work/healthy_dram_copy"

# Bad input.
printf '__global__ void k(float* x) { x[0] = undefined_name; }\nint main() { return 0; }\n' > "$work/broken.cu"
run_case bad_does_not_compile 1 "$kopt" explain "$work/broken.cu" --work-dir "$work/bundle_broken"
cat > "$work/crash.cu" <<'CU'
#include <cstdio>
__global__ void touch(float* x) { x[threadIdx.x] = 1.0f; }
int main() {
  float* x; cudaMalloc(&x, 1024); touch<<<1, 32>>>(x); cudaDeviceSynchronize();
  volatile int* null_pointer = nullptr; *null_pointer = 1;  // host crash after one launch
  return 0;
}
CU
nvcc -O1 -gencode=arch=compute_90a,code=sm_90a -o "$work/crash" "$work/crash.cu"
run_case bad_program_crashes 1 "$kopt" explain --work-dir "$work/bundle_crash" -- "$work/crash"
run_case bad_filter_matches_nothing 1 "$kopt" explain "$work/uncoalesced_loads.cu" -k no_such_kernel --work-dir "$work/bundle_nomatch"
run_case bad_program_missing 2 "$kopt" explain --work-dir "$work/bundle_missing" -- "$work/no_such_program"
cp -r "$work/bundle_cu" "$out/bundle_cu" 2>/dev/null
rm -f "$out"/bundle_cu/*.ncu-rep
grep -c '^FAIL' "$summary" > /dev/null && exit 1 || exit 0
