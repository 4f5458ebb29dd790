#!/bin/bash
# Issue 18, fast live collection, round 4 (helper h18live3): which changes bring live
# `kopt explain kernel.cu` to <= 5 s on the H200, measured before/after in one run.
# From the root of a copy of the repository, with .carry/h18live3/ holding bin/kopt,
# bin/libkopt_timeline.so, lib/ (scripts/package_for_device.sh's output) and this script's files:
#   OUT=<empty dir> bash .carry/h18live3/issue18_round4.sh
# Parts (each step has a timeout; optional parts stop once BUDGET_S has passed):
#  1. kopt explain on examples/kernels/{uncoalesced_loads,shared_bank_conflicts,memory_latency_low_mlp}.cu,
#     3 rounds, each round: the kopt as is ("base", KOPT_LAUNCHER=none), the same kopt through PATH
#     wrappers ("fast": nvcc --threads 0 -Xcompiler -pipe; ncu with a section folder holding only
#     LaunchStats and Occupancy, --target-processes application-only), and the same kopt building the
#     .cu as a shared object while ncu already runs kopt-launcher ("overlap", KOPT_LAUNCHER set); every
#     report kept (JSON) for the accuracy comparison.
#  2. The 20,000-launch program: --launches-per-kernel 3 (default) against 1, once each (after part 5).
#  3. nvcc variants on uncoalesced_loads.cu (wall, and nvcc -time per phase): host -O3/-O1/-O0,
#     --threads 0, -cudart shared.
#  4. ncu variants on the built uncoalesced_loads (kopt's targeted command line), with ncu's own lines
#     time-stamped: base, minimal section folder, no sections, application-only, --cache-control none,
#     ncu --version alone, the program alone.
#  5. The overlap experiment: the .cu built as a shared object, run under ncu through
#     issue18_launcher.c (which initialises CUDA at once and waits in-process for the build),
#     started at the same time as nvcc, against nvcc then ncu one after the other; also with the
#     launcher's warm-up kernel (ncu's profiling session set up during the build).
#  6. Optional: replay passes per metric family of the targeted set.
# Everything lands in $OUT/h18live3.tar.gz (summary.txt inside; the summary is also printed).
set -u
OUT=${OUT:?set OUT to an empty folder}
REPO=$PWD
C=$REPO/.carry/h18live3
# kopt, libkopt_timeline.so and the libraries kopt needs (scripts/package_for_device.sh's selection), packed
[ -x "$C/bin/kopt" ] || tar -C "$C" -xJf "$C/kopt_bundle.tar.xz"
KOPT=${KOPT:-$C/bin/kopt}
export KOPT_TIMELINE_LIBRARY=${KOPT_TIMELINE_LIBRARY:-$C/bin/libkopt_timeline.so}
export LD_LIBRARY_PATH="$C/lib:${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64"
export LC_ALL=C
export PATH="$PATH:/usr/local/cuda/bin"
BUDGET_S=${BUDGET_S:-215}
WORK=$(mktemp -d)
R=$WORK/h18live3
mkdir -p "$R"/runs "$R"/logs "$R"/bin "$R"/wrap
SUMMARY=$R/summary.txt
START_NS=$(date +%s%N)
elapsed_s() { echo $((($(date +%s%N) - START_NS) / 1000000000)); }
left() { [ "$(elapsed_s)" -lt "$BUDGET_S" ]; }
say() { echo "$*" | tee -a "$SUMMARY"; }
now() { date +%s.%N | cut -c1-14; }
timed() {  # NAME LIMIT_S CMD...: output to logs/NAME.log; "NAME exit=RC ms=MS" to times.txt and the summary
  local name=$1 limit=$2 t0 rc
  shift 2
  t0=$(date +%s%N)
  timeout "$limit" "$@" >"$R/logs/$name.log" 2>&1
  rc=$?
  echo "$name exit=$rc ms=$((($(date +%s%N) - t0) / 1000000))" | tee -a "$R/times.txt" >>"$SUMMARY"
  return $rc
}
finish() {
  say "total_s=$(elapsed_s)"
  find "$R" -type f \( -name '*.jsonl' -o -name 'raw.csv' -o -name '*.log' -o -name 'sass.txt' \) -size +128k \
    -exec gzip -9 {} \;
  find "$R" -type f -perm -u+x -size +64k -delete  # binaries
  tar -C "$WORK" -czf "$OUT/h18live3.tar.gz" h18live3
  rm -rf "$WORK"
}
trap finish EXIT

REAL_NVCC=$(command -v nvcc)
REAL_NCU=$(command -v ncu)
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,persistence_mode,clocks.max.sm --format=csv,noheader
  "$REAL_NCU" --version | tail -1
  "$REAL_NVCC" --version | tail -1
  echo "ncu: $REAL_NCU -> $(readlink -f "$REAL_NCU")"
  nproc
  ls -la "$KOPT" "$KOPT_TIMELINE_LIBRARY"
} >"$R/env.txt" 2>&1
cat "$R/env.txt" >>"$SUMMARY"

# ---- the wrappers of the "fast" variant (kopt finds nvcc and ncu on PATH) ----
SECTIONS=$(dirname "$(readlink -f "$REAL_NCU")")/sections
[ -f "$SECTIONS/LaunchStats.section" ] ||
  SECTIONS=$(dirname "$(find /opt/nvidia /usr/local/cuda/ -name LaunchStats.section 2>/dev/null | head -1)")
MINSEC=$R/wrap/minsections
mkdir -p "$MINSEC"
cp "$SECTIONS/LaunchStats.section" "$SECTIONS/Occupancy.section" "$MINSEC/" 2>>"$R/env.txt"
SECTION_FOLDER=(--section-folder "$MINSEC")
[ -f "$MINSEC/LaunchStats.section" ] && [ -f "$MINSEC/Occupancy.section" ] || SECTION_FOLDER=()
say "sections: $SECTIONS ($(ls "$SECTIONS" | wc -l) files); minimal folder: $(ls "$MINSEC" | tr '\n' ' ')"
mkdir -p "$R/wrap/fast"
cat >"$R/wrap/fast/nvcc" <<EOF
#!/bin/bash
exec "$REAL_NVCC" --threads 0 -Xcompiler -pipe "\$@"
EOF
cat >"$R/wrap/fast/ncu" <<EOF
#!/bin/bash
case " \$* " in *" --metrics "*) ;; *) exec "$REAL_NCU" "\$@" ;; esac
args=(); prev=
for a in "\$@"; do
  if [ "\$prev" = --target-processes ] && [ "\$a" = all ]; then a=application-only; fi
  args+=("\$a"); prev=\$a
done
exec "$REAL_NCU" ${SECTION_FOLDER[*]} "\${args[@]}"
EOF
chmod +x "$R/wrap/fast/nvcc" "$R/wrap/fast/ncu"

# One line per phase, and the top findings of each kernel, from a JSON report.
describe() {  # REPORT.json
  python3 - "$1" <<'PY' | tee -a "$SUMMARY"
import json, sys
try:
    report = json.load(open(sys.argv[1]))
except Exception as error:  # a failed run leaves no report
    print(f"    (no report: {error})")
    sys.exit(0)
print("    phases: " + "; ".join(f"{p['name'].split(' (')[0]} {p['start_s']:.2f}+{p['seconds']:.2f}"
                                 for p in report.get("collection_phases", [])))
for kernel in report.get("kernels", []):
    findings = kernel.get("findings", [])
    tops = ", ".join(f"{f.get('tool', '?')}/{f.get('severity', '?')}" for f in findings[:3]) or "no finding"
    print(f"    {kernel.get('function_name', '?')}: {tops}")
PY
}

# ---- 1. kopt explain, base and fast, three rounds ----
KERNELS="uncoalesced_loads shared_bank_conflicts memory_latency_low_mlp"
for round in 1 2 3; do
  for variant in base fast overlap; do
    for kernel in $KERNELS; do
      dir=$R/runs/${variant}_${kernel}_$round
      if [ $variant = fast ]; then
        PATH="$R/wrap/fast:$PATH" KOPT_LAUNCHER=none timed "${variant}_${kernel}_$round" 60 "$KOPT" explain \
          --work-dir "$dir" -f json -o "$dir.json" "examples/kernels/$kernel.cu"
      elif [ $variant = overlap ]; then
        KOPT_LAUNCHER="$C/bin/kopt-launcher" timed "${variant}_${kernel}_$round" 60 "$KOPT" explain \
          --work-dir "$dir" -f json -o "$dir.json" "examples/kernels/$kernel.cu"
      else
        KOPT_LAUNCHER=none timed "${variant}_${kernel}_$round" 60 "$KOPT" explain --work-dir "$dir" -f json \
          -o "$dir.json" "examples/kernels/$kernel.cu"
      fi
      describe "$dir.json"
      rm -f "$dir/$kernel" "$dir/$kernel.so"
    done
  done
done

# ---- shared by parts 3-6 ----
SRC=examples/kernels/uncoalesced_loads.cu
ARCH=(-lineinfo -Xptxas -v -gencode=arch=compute_90a,code=sm_90a)
METRICS=$(python3 - <<'PY'
import re
text = open("src/analysis/collection_metrics.cc").read()
body = text[text.index("kMetrics[] = {"):]
body = body[: body.index("};")]
print(",".join(re.findall(r'"([^"]+)"', body)))
PY
)
BIN=$R/bin/unc_O3
"$REAL_NVCC" -O3 "${ARCH[@]}" -o "$BIN" "$SRC" >"$R/logs/nvcc_bin.log" 2>&1
NCU_TAIL=(--clock-control none --apply-rules no)
NCU_OUT=(--csv --page raw --print-units base)
ncu_stamped() {  # NAME CMD...: wall, and each ==PROF== line with its time since the start
  local name=$1 t0
  shift
  left || return
  t0=$(date +%s%N)
  { timeout 60 "$@" 2>&1 | while IFS= read -r line; do
      case "$line" in ==*) echo "$((($(date +%s%N) - t0) / 1000000)) ms $line" ;; esac
    done; } >"$R/logs/stamps_$name.log"
  say "ncu $name: $((($(date +%s%N) - t0) / 1000000)) ms; $(grep -c 'passes' "$R/logs/stamps_$name.log") launches; $(
    grep -E 'Connected|Profiling|Disconnected' "$R/logs/stamps_$name.log" | awk '{printf "%s ", $1}') ms"
}
# ---- 5. the overlap experiment: ncu starts the launcher while nvcc builds the shared object ----
gcc -O2 -o "$R/bin/launcher" "$C/issue18_launcher.c" -ldl >"$R/logs/gcc_launcher.log" 2>&1 ||
  say "launcher build failed"
SO_FLAGS=(-O3 -Xcompiler -fPIC -shared "${ARCH[@]}")
NCU_CMD=("$REAL_NCU" --section LaunchStats --section Occupancy --metrics "$METRICS" "${NCU_TAIL[@]}"
  --target-processes all "${NCU_OUT[@]}")
overlap() {  # KERNEL REP plain|warmup
  local kernel=$1 rep=$2 mode=$3 so=$R/bin/$1.so ready=$R/bin/$1.ready t0 t2 builder tag=$1_$2_$3
  rm -f "$so" "$ready"
  t0=$(date +%s%N)
  ( "$REAL_NVCC" "${SO_FLAGS[@]}" -o "$so" "examples/kernels/$kernel.cu" >"$R/logs/nvcc_so_$tag.log" 2>&1
    echo "$((($(date +%s%N) - t0) / 1000000))" >"$R/logs/nvcc_so_ms_$tag"; touch "$ready" ) &
  builder=$!
  if [ "$mode" = warmup ]; then export LAUNCHER_WARMUP=1; else unset LAUNCHER_WARMUP; fi
  timeout 60 "${NCU_CMD[@]}" "$R/bin/launcher" "$ready" "$so" 2>&1 | while IFS= read -r line; do
    case "$line" in ==*|launcher:*) echo "$((($(date +%s%N) - t0) / 1000000)) ms $line" ;; *) echo "$line" ;; esac
  done >"$R/logs/overlap_$tag.log"
  t2=$(date +%s%N)
  unset LAUNCHER_WARMUP
  wait $builder
  say "overlap $tag: nvcc (.so) $(cat "$R/logs/nvcc_so_ms_$tag") ms, ncu ended at $(((t2 - t0) / 1000000)) ms; $(
    grep -c passes "$R/logs/overlap_$tag.log") launches; $(grep -E '^[0-9]+ ms ==PROF== (Connected|Profiling)' \
    "$R/logs/overlap_$tag.log" | awk '{printf "%s ", $1}') ms"
}
for kernel in uncoalesced_loads memory_latency_low_mlp; do
  for rep in 1; do
    left || break
    so=$R/bin/${kernel}.so
    ready=$R/bin/${kernel}.ready
    # (a) one after the other: nvcc (executable), then ncu on it
    t0=$(date +%s%N)
    "$REAL_NVCC" -O3 "${ARCH[@]}" -o "$R/bin/$kernel" "examples/kernels/$kernel.cu" >/dev/null 2>&1
    t1=$(date +%s%N)
    timeout 60 "${NCU_CMD[@]}" "$R/bin/$kernel" 2>&1 | while IFS= read -r line; do
      case "$line" in ==*) echo "$((($(date +%s%N) - t1) / 1000000)) ms $line" ;; *) echo "$line" ;; esac
    done >"$R/logs/serial_${kernel}_$rep.log"
    t2=$(date +%s%N)
    say "serial $kernel $rep: nvcc $(((t1 - t0) / 1000000)) ms + ncu $(((t2 - t1) / 1000000)) ms = $(((t2 - t0) / 1000000)) ms; ncu lines at $(
      grep -E '^[0-9]+ ms ==PROF== (Connected|Profiling|Disconnected)' "$R/logs/serial_${kernel}_$rep.log" | awk '{printf "%s ", $1}') ms"
    # (b) together: nvcc builds the .so while ncu runs the launcher, which waits for the ready file;
    # (d) the same with LAUNCHER_WARMUP=1 (an empty kernel profiled during the build: ncu's session set up early)
    [ $kernel = uncoalesced_loads ] && overlap "$kernel" "$rep" plain
    overlap "$kernel" "$rep" warmup
    # (c) the launcher with the .so already built (its own overhead against (a)'s ncu)
    [ $rep = 1 ] && [ $kernel = uncoalesced_loads ] && ncu_stamped "launcher_ready_${kernel}_$rep" "${NCU_CMD[@]}" "$R/bin/launcher" "$ready" "$so"
  done
done
# the raw pages of (a) and (b) for uncoalesced_loads, to compare the metrics
cp "$R/logs/serial_uncoalesced_loads_1.log" "$R/logs/raw_serial.csv" 2>/dev/null
cp "$R/logs/overlap_uncoalesced_loads_1_plain.log" "$R/logs/raw_overlap.csv" 2>/dev/null

# ---- 2. the 20,000-launch program: 3 launches per configuration (default) against 1 ----
left && { nvcc -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -I examples/kernels -o "$R/bin/many_tiny_launches" \
  examples/blind_set/many_tiny_launches.cu >"$R/logs/nvcc_tiny.log" 2>&1 || say "nvcc of many_tiny_launches failed"; }
for round in 1; do
  for per in 3 1; do
    left || break
    dir=$R/runs/tiny_per${per}_$round
    timed "tiny_per${per}_$round" 60 "$KOPT" explain --launches-per-kernel $per --work-dir "$dir" -f json \
      -o "$dir.json" -- "$R/bin/many_tiny_launches"
    describe "$dir.json"
  done
done

# ---- 3. nvcc variants (uncoalesced_loads.cu), wall and nvcc -time ----
nvcc_variant() {  # NAME REP FLAGS...
  local name=$1 rep=$2
  shift 2
  timed "nvcc_${name}_$rep" 60 "$REAL_NVCC" "$@" "${ARCH[@]}" -time "$R/logs/nvcc_${name}_$rep.time.csv" \
    -o "$R/bin/unc_$name" "$SRC"
}
for rep in 1 2; do
  left || break
  nvcc_variant O3 $rep -O3
  nvcc_variant O3_threads0 $rep -O3 --threads 0
  nvcc_variant O1 $rep -Xcompiler -O1
  nvcc_variant O0 $rep
  [ $rep = 1 ] && nvcc_variant O3_cudart_shared $rep -O3 -cudart shared
  [ $rep = 1 ] && nvcc_variant O3_cubin_only $rep -O3 -cubin
done
for name in O3 O1 O0 O3_threads0; do  # the device code must not change
  [ -f "$R/bin/unc_$name" ] && cuobjdump -sass "$R/bin/unc_$name" | md5sum | sed "s/^/sass $name /" >>"$SUMMARY"
done

# ---- 4. ncu variants on the built program, ncu's lines time-stamped ----
timed program_alone_1 30 "$BIN"
timed program_alone_2 30 "$BIN"
timed ncu_version 30 "$REAL_NCU" --version
for rep in 1 2; do
  ncu_stamped "base_$rep" "$REAL_NCU" --section LaunchStats --section Occupancy --metrics "$METRICS" "${NCU_TAIL[@]}" \
    --target-processes all "${NCU_OUT[@]}" "$BIN"
  ncu_stamped "minsections_$rep" "$REAL_NCU" "${SECTION_FOLDER[@]}" --section LaunchStats --section Occupancy \
    --metrics "$METRICS" "${NCU_TAIL[@]}" --target-processes all "${NCU_OUT[@]}" "$BIN"
  [ $rep = 1 ] && ncu_stamped "nosections_$rep" "$REAL_NCU" --metrics "$METRICS" "${NCU_TAIL[@]}" --target-processes all \
    "${NCU_OUT[@]}" "$BIN"
  [ $rep = 1 ] && ncu_stamped "apponly_$rep" "$REAL_NCU" --section LaunchStats --section Occupancy --metrics "$METRICS" \
    "${NCU_TAIL[@]}" --target-processes application-only "${NCU_OUT[@]}" "$BIN"
  [ $rep = 1 ] && ncu_stamped "nocache_$rep" "$REAL_NCU" --section LaunchStats --section Occupancy --metrics "$METRICS" \
    "${NCU_TAIL[@]}" --cache-control none --target-processes all "${NCU_OUT[@]}" "$BIN"
  [ $rep = 1 ] && ncu_stamped "launchstats_only_$rep" "$REAL_NCU" --section LaunchStats "${NCU_TAIL[@]}" "${NCU_OUT[@]}" "$BIN"
done
# per-launch cost on a kernel with small buffers: the 20,000-launch program, first 5 launches, stamped
left && ncu_stamped tiny_c5 "$REAL_NCU" --section LaunchStats --section Occupancy --metrics "$METRICS" "${NCU_TAIL[@]}" \
  -c 5 --kill yes "${NCU_OUT[@]}" "$R/bin/many_tiny_launches"

# ---- 6. optional: replay passes per metric family (one launch of uncoalesced_loads) ----
passes() {  # NAME [METRIC LIST]
  local name=$1 list=${2:-}
  left || return
  timeout 60 "$REAL_NCU" --section LaunchStats ${list:+--metrics "$list"} --clock-control none \
    --apply-rules no -k regex:^uncoalesced -c 1 "$BIN" >"$R/logs/passes_$name.log" 2>&1
  say "passes $name ($(echo "$list" | tr ',' '\n' | grep -c .) metrics): $(grep -o '[0-9]* passes' "$R/logs/passes_$name.log" | head -1)"
}
family() { echo "$METRICS" | tr ',' '\n' | grep -E "$1" | grep -v -E "${2:-^$}" | paste -sd, -; }
passes sections_only
passes dram "$(family '^dram__')"
passes lts "$(family '^lts__')"
passes l1tex "$(family '^l1tex__')"
passes sm_pipes "$(family '^sm__inst_executed_pipe')"
passes sm_other "$(family '^sm__' '^sm__(inst_executed_pipe|sass)')"
passes stalls "$(family '^smsp__average_warps_issue_stalled')"
passes sass_instrumented "$(family '^(smsp|sm)__sass_')"
passes smsp_other "$(family '^smsp__' '^smsp__(average_warps_issue_stalled|sass_)')"
passes gpc_gpu "$(family '^(gpc|gpu)__')"
