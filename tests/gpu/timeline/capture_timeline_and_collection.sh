#!/bin/bash
# Device capture for issue 18 (launch timeline, fast live collection), run on the H200 as
#   OUT=<empty dir> bash run.sh        (from the capture folder's copy, sources beside it)
# Writes $OUT/h18.tar.gz with:
#   env.txt, ncu_help.txt                 the GPU, driver, ncu version and ncu's options
#   times.txt                             "<step> exit=<rc> ms=<wall ms>" for every timed step
#   timeline/tiny.jsonl.gz, mix.jsonl     CUPTI timelines from libkopt_timeline.so
#   tiny/<variant>.txt                    ncu on the 20,000-launch program, per sampling variant
#   collect/<kernel>/<variant>/...        raw.csv, source.csv and ncu logs per collection variant
#   examples/<kernel>/raw.csv             targeted raw pages of the first example set (as time allows)
# Every step is guarded by a timeout; the whole run stops adding optional steps after BUDGET_S.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:?set OUT to an empty folder}
BUDGET_S=${BUDGET_S:-190}    # optional steps start only before this many seconds
HARD_STOP_S=${HARD_STOP_S:-215}  # no ncu step starts after this
WORK=$(mktemp -d)
R=$WORK/h18
mkdir -p "$R"/timeline "$R"/tiny "$R"/collect "$WORK"/bin
export LC_ALL=C
START_NS=$(date +%s%N)
elapsed_s() { echo $((($(date +%s%N) - START_NS) / 1000000000)); }
# timed NAME TIMEOUT_S CMD... : runs CMD, output to $R/logs/NAME.log, records exit code and wall ms.
mkdir -p "$R"/logs
timed() {
  local name=$1 limit=$2
  shift 2
  local t0 t1 rc
  t0=$(date +%s%N)
  timeout "$limit" "$@" >"$R/logs/$name.log" 2>&1
  rc=$?
  t1=$(date +%s%N)
  echo "$name exit=$rc ms=$(((t1 - t0) / 1000000))" | tee -a "$R/times.txt"
  return $rc
}
finish() {
  echo "total_s=$(elapsed_s)" >>"$R/times.txt"
  # large logs are trimmed: their tails are what matters
  find "$R/logs" -type f -size +64k -exec sh -c 'tail -c 16000 "$1" > "$1.tail" && mv "$1.tail" "$1"' _ {} \;
  tar -C "$WORK" -czf "$OUT/h18.tar.gz" h18
  rm -rf "$WORK"
}
trap finish EXIT

CUDA=${CUDA_HOME:-/usr/local/cuda}
GENCODE=-gencode=arch=compute_90a,code=sm_90a
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  ncu --version | tail -1
  nvcc --version | tail -2
  ls "$CUDA"/lib64/libcupti* "$CUDA"/extras/CUPTI/lib64/libcupti* 2>&1
  nproc
} >"$R/env.txt" 2>&1
ncu --help >"$R/ncu_help.txt" 2>&1

# ---- builds: the injection library and the programs ----
CUPTI_LIBS="-L$CUDA/lib64 -L$CUDA/extras/CUPTI/lib64 -Wl,-rpath,$CUDA/lib64 -Wl,-rpath,$CUDA/extras/CUPTI/lib64"
timed build_injection 60 g++ -std=c++17 -O2 -fPIC -shared -fvisibility=hidden -I"$CUDA/include" \
  -I"$CUDA/extras/CUPTI/include" "$HERE/src/timeline_injection.cc" $CUPTI_LIBS -lcupti -o "$WORK/bin/libkopt_timeline.so"
# one nvcc alone, timed as live explain runs it
timed nvcc_uncoalesced_loads 120 nvcc -O3 -lineinfo -Xptxas -v $GENCODE -o "$WORK/bin/uncoalesced_loads" \
  "$HERE/src/kernels/uncoalesced_loads.cu"
pids=()
nvcc -O3 -lineinfo -Xptxas -v $GENCODE -o "$WORK/bin/shared_bank_conflicts" "$HERE/src/kernels/shared_bank_conflicts.cu" >"$R/logs/nvcc_sbc.log" 2>&1 & pids+=($!)
nvcc -O3 -lineinfo $GENCODE -o "$WORK/bin/many_tiny_launches" "$HERE/src/blind_set/many_tiny_launches.cu" >"$R/logs/nvcc_tiny.log" 2>&1 & pids+=($!)
nvcc -O3 -lineinfo $GENCODE -o "$WORK/bin/timeline_mix" "$HERE/src/timeline_mix.cu" >"$R/logs/nvcc_mix.log" 2>&1 & pids+=($!)
for pid in "${pids[@]}"; do wait "$pid"; done
ls -la "$WORK/bin" >"$R/logs/bin_listing.log"
INJ=$WORK/bin/libkopt_timeline.so
TINY=$WORK/bin/many_tiny_launches
METRICS=$(grep -v '^#' "$HERE/targeted_metrics.txt" | grep -v '^launch__\|^device__' | paste -sd, -)
ALL_METRICS=$(grep -v '^#' "$HERE/targeted_metrics.txt" | paste -sd, -)
COMMON=(--clock-control none --import-source yes)

# ---- 1. the timeline: the 20,000-launch program with and without the injection library ----
for i in 1 2 3; do timed tiny_plain_$i 30 "$TINY"; done
for i in 1 2 3; do
  KOPT_TIMELINE_OUT=$R/timeline/tiny_$i.%p.jsonl CUDA_INJECTION64_PATH=$INJ timed tiny_injected_$i 30 "$TINY"
done
KOPT_TIMELINE_OUT=$R/timeline/mix.%p.jsonl CUDA_INJECTION64_PATH=$INJ timed mix_injected 30 "$WORK/bin/timeline_mix"
timed mix_plain 30 "$WORK/bin/timeline_mix"
# keep one tiny timeline whole (compressed), the others as their line counts and last lines
first=1
for f in "$R"/timeline/tiny_*.jsonl; do
  [ -f "$f" ] || continue
  wc -l "$f" >>"$R/timeline/line_counts.txt"; tail -2 "$f" >>"$R/timeline/line_counts.txt"
  if [ $first = 1 ]; then gzip -9 "$f"; first=0; else rm -f "$f"; fi
done

# ---- 2. ncu on the 20,000-launch program: what sampling costs ----
tiny_ncu() {  # NAME ARGS... (ncu prints the raw page to stdout: the profiled launches are its rows)
  local name=$1
  shift
  [ "$(elapsed_s)" -lt "$HARD_STOP_S" ] || { echo "tiny_ncu_$name skipped (time)" >>"$R/times.txt"; return; }
  timed "tiny_ncu_$name" 30 ncu --csv --page raw --print-units base "${COMMON[@]}" "$@" "$TINY"
  cp "$R/logs/tiny_ncu_$name.log" "$R/tiny/$name.txt"
}
tiny_ncu nomatch_launchstats --section LaunchStats -k regex:no_such_kernel
tiny_ncu first5_targeted --section LaunchStats --section Occupancy --metrics "$METRICS" -k regex:tiny_step -c 5
tiny_ncu first5_targeted_kill --section LaunchStats --section Occupancy --metrics "$METRICS" -k regex:tiny_step -c 5 --kill yes
tiny_ncu perconfig3_launchstats --section LaunchStats --filter-mode per-launch-config -c 3
tiny_ncu kernelid_regex --section LaunchStats --kernel-id '::regex:.:regex:^[1-3]$'

# ---- 3. live collection of one .cu kernel: where the time goes, per variant ----
collect() {  # KERNEL VARIANT NCU-ARGS...   (report, then raw and source exports, as kopt does)
  local kernel=$1 variant=$2
  shift 2
  [ "$(elapsed_s)" -lt "$HARD_STOP_S" ] || { echo "collect_${kernel}_$variant skipped (time)" >>"$R/times.txt"; return; }
  local dir=$R/collect/$kernel/$variant
  mkdir -p "$dir"
  timed "collect_${kernel}_${variant}_profile" 60 ncu "$@" "${COMMON[@]}" -k "regex:^$kernel\$" -c 1 \
    -f -o "$WORK/$kernel-$variant" "$WORK/bin/$kernel"
  timed "collect_${kernel}_${variant}_raw" 60 ncu --import "$WORK/$kernel-$variant.ncu-rep" --csv --page raw --print-units base
  cp "$R/logs/collect_${kernel}_${variant}_raw.log" "$dir/raw.csv"
  timed "collect_${kernel}_${variant}_source" 60 ncu --import "$WORK/$kernel-$variant.ncu-rep" --csv --page source --print-source sass --print-units base
  cp "$R/logs/collect_${kernel}_${variant}_source.log" "$dir/source.csv"
  ls -la "$WORK/$kernel-$variant.ncu-rep" >>"$dir/report_size.txt" 2>&1
}
SECTIONS=(--section SpeedOfLight --section LaunchStats --section Occupancy --section ComputeWorkloadAnalysis
  --section InstructionStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis)
for kernel in uncoalesced_loads shared_bank_conflicts; do
  timed "run_${kernel}_plain" 30 "$WORK/bin/$kernel"
  timed "cuobjdump_${kernel}" 30 cuobjdump -sass "$WORK/bin/$kernel"
  collect "$kernel" full --set full
  collect "$kernel" targeted_source --section LaunchStats --section Occupancy --section SourceCounters --metrics "$METRICS"
  # the raw page printed while profiling (no report, no import)
  timed "collect_${kernel}_direct_raw" 60 ncu --csv --page raw --print-units base --section LaunchStats \
    --section Occupancy --metrics "$METRICS" "${COMMON[@]}" -k "regex:^$kernel\$" -c 1 "$WORK/bin/$kernel"
  cp "$R/logs/collect_${kernel}_direct_raw.log" "$R/collect/$kernel/direct_raw.csv"
  # every launch of the program (what kopt explain kernel.cu profiles), targeted with the source page
  timed "collect_${kernel}_all_launches_targeted" 60 ncu --section LaunchStats --section Occupancy \
    --section SourceCounters --metrics "$METRICS" "${COMMON[@]}" -f -o "$WORK/$kernel-all" "$WORK/bin/$kernel"
  [ "$kernel" = uncoalesced_loads ] || continue
  collect "$kernel" targeted --section LaunchStats --section Occupancy --metrics "$METRICS"
  collect "$kernel" targeted_all_names --metrics "$ALL_METRICS"
  collect "$kernel" sections_source "${SECTIONS[@]}" --section SourceCounters
done

# ---- 4. as time allows: targeted raw pages of the first example set (accuracy of the targeted list) ----
mkdir -p "$R/examples"
ls "$HERE"/src/kernels/*.cu | grep -v 'uncoalesced_loads\|shared_bank_conflicts' |
  xargs -P 16 -I{} sh -c 'nvcc -O3 -lineinfo '"$GENCODE"' -o "'"$WORK"'/bin/$(basename {} .cu)" {} >/dev/null 2>&1'
for source in "$HERE"/src/kernels/*.cu; do
  [ "$(elapsed_s)" -lt "$BUDGET_S" ] || { echo "budget reached before $source" >>"$R/times.txt"; break; }
  kernel=$(basename "$source" .cu)
  [ -x "$WORK/bin/$kernel" ] || continue
  case $kernel in uncoalesced_loads | shared_bank_conflicts) continue ;; esac
  count=1
  [ "$kernel" = launch_overhead ] && count=10
  mkdir -p "$R/examples/$kernel"
  timed "examples_${kernel}" 40 ncu --csv --page raw --print-units base --section LaunchStats --section Occupancy \
    --section SourceCounters --metrics "$METRICS" "${COMMON[@]}" -k "regex:^$kernel\$" -c $count "$WORK/bin/$kernel"
  cp "$R/logs/examples_${kernel}.log" "$R/examples/$kernel/raw.csv"
done
