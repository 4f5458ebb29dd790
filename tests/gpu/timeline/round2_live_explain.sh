#!/bin/bash
# Issue 18 verification on the H200 with the merged kopt (device round 2), from the repository root:
#   OUT=<empty dir> LD_LIBRARY_PATH=$PWD/.carry/lib:/usr/local/cuda/lib64 bash tests/gpu/timeline/round2_live_explain.sh
# Times live `kopt explain` of the 20,000-launch program and of .cu kernels (targeted collection, and
# --set full for one), runs the live GPU tests of the timeline, and writes $OUT/h18-round2.tar.gz.
set -u
OUT=${OUT:?set OUT to an empty folder}
KOPT=${KOPT:-$PWD/.carry/bin/kopt}
export KOPT_TIMELINE_LIBRARY=${KOPT_TIMELINE_LIBRARY:-$(dirname "$KOPT")/libkopt_timeline.so}
R=$(mktemp -d)/h18-round2
mkdir -p "$R"
timed() {  # NAME CMD...
  local name=$1 t0 rc
  shift
  t0=$(date +%s%N)
  timeout 120 "$@" >"$R/$name.txt" 2>&1
  rc=$?
  echo "$name exit=$rc ms=$((($(date +%s%N) - t0) / 1000000))" | tee -a "$R/times.txt"
}
ls -la "$KOPT" "$KOPT_TIMELINE_LIBRARY" >"$R/env.txt" 2>&1
nvcc -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -o "$R/many_tiny_launches" \
  examples/blind_set/many_tiny_launches.cu >"$R/nvcc.txt" 2>&1
timed tiny_explain "$KOPT" explain --work-dir "$R/tiny" -- "$R/many_tiny_launches"
timed tiny_explain_again "$KOPT" explain --work-dir "$R/tiny2" -f json -o "$R/tiny2.json" -- "$R/many_tiny_launches"
KOPT_TIMELINE_API=0 timed tiny_explain_no_api "$KOPT" explain --work-dir "$R/tiny3" -- "$R/many_tiny_launches"
for kernel in uncoalesced_loads shared_bank_conflicts memory_latency_low_mlp; do
  timed "cu_${kernel}" "$KOPT" explain --work-dir "$R/$kernel" "examples/kernels/$kernel.cu"
done
timed cu_uncoalesced_loads_full "$KOPT" explain --set full --work-dir "$R/full" examples/kernels/uncoalesced_loads.cu
if [ -x .carry/bin/kopt_tests ]; then
  KOPT_LIVE_GPU_TESTS=1 timed live_tests .carry/bin/kopt_tests --gtest_filter='LaunchTraceLive*:NcuCollectorLive*'
fi
for dir in tiny tiny3; do cp "$R/$dir"/timeline.*.jsonl "$R/$dir.timeline.jsonl" 2>/dev/null; done
rm -rf "$R"/tiny "$R"/tiny2 "$R"/tiny3 "$R"/full "$R"/uncoalesced_loads "$R"/shared_bank_conflicts "$R"/memory_latency_low_mlp "$R/many_tiny_launches"
gzip -9 "$R"/*.timeline.jsonl 2>/dev/null
tar -C "$(dirname "$R")" -czf "$OUT/h18-round2.tar.gz" h18-round2
