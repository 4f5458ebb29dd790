#!/usr/bin/env bash
# Captures real-code blind set 1 (examples/blind_set_real1/labels.toml) on a GPU machine: 40 kernels of
# public HeCBench programs, built as their authors build them (their Makefiles, ARCH=sm_90a) and profiled
# with Nsight Compute as they run.
#
#   scripts/capture_real_blind_set1.sh [PROGRAM_ID ...]     run from the repository root, on the GPU machine
#   scripts/capture_real_blind_set1.sh --build-only [ID ...]  builds and disassembles only (no GPU needed):
#                                                            checks a prepared snapshot before GPU time is spent
#
# Needs the public source beside the repository, in the ignored folder .realcode/ (no internet on the GPU
# machine; the snapshot is carried there). Prepare it on a machine that has the fetched mirror:
#   mkdir -p .realcode/HeCBench
#   git --git-dir=/work/.mirror/zjin-lcf+HeCBench/repo archive f27000a5188f8ac79bd43fc95a1b3f890c18823d \
#     src/rmsnorm-cuda $(python3 -c "import tomllib; print(' '.join(sorted({k['program_path'] for k in
#       tomllib.load(open('examples/blind_set_real1/labels.toml','rb'))['kernel']})))") \
#     | tar -x -C .realcode/HeCBench
# (the 28 program folders plus src/rmsnorm-cuda, whose headers layernorm-cuda's Makefile includes; under
# 1 MB. The mirror prints an unrelated "invalid object" line for a data file of another program, which
# does not affect these folders.)
#
# For every labelled kernel (or the PROGRAM_IDs given) it:
#   - builds its program once (the label's `build` with -Xptxas -v added to EXTRA_CFLAGS, so the build log
#     doubles as ptxas.txt) and disassembles it (sass.txt);
#   - profiles the label's launches: LC_ALL=C ncu --set full --clock-control none --import-source yes
#     --kernel-name-base demangled -k regex:<kernel_regex> --launch-skip <launch_skip> -c <launch_count>
#     --kill yes, running the label's `run` in the program's folder;
#   - exports raw (--print-units base), details (--print-units base) and source (SASS) pages;
#   - when time is left, runs each distinct program command once without ncu (program_output.txt: the
#     authors' own timing prints, which several labels' `settle` experiments read).
# Trimming is scripts/capture_h200_fixtures.sh --trim (the same fixture layout as the other blind sets).
# Results: $OUT/real1_capture.tar.gz (untrimmed CSVs and logs, trimmed fixtures), $OUT/real1_reports.tar.gz
# (the .ncu-rep reports), $OUT/real1_summary.txt. OUT defaults to ./out. GPU clocks are never changed.
set -uo pipefail

BUILD_ONLY=0
if [[ ${1:-} == --build-only ]]; then BUILD_ONLY=1; shift; fi
[[ -f examples/blind_set_real1/labels.toml ]] || { echo "$0: run from the repository root" >&2; exit 2; }
SNAPSHOT=${REALCODE_DIR:-$PWD/.realcode/HeCBench}
[[ -d $SNAPSHOT/src ]] || {
  echo "$0: no HeCBench snapshot at $SNAPSHOT (see the preparation commands at the top of this script)" >&2
  exit 2
}
export LC_ALL=C
OUT=${OUT:-$PWD/out}
W=${CAPTURE_WORK:-/tmp/kopt_real1_capture}
BUDGET_S=${CAPTURE_BUDGET_S:-360}  # no new ncu run starts after this many seconds (plain runs: +60 s)
T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }
rm -rf "$W"; mkdir -p "$W/cap" "$OUT"
cp -r "$SNAPSHOT" "$W/tree"  # builds write into program folders: keep the carried snapshot clean
REPO=$PWD

# One tab-separated line per selected label: id, program_path, build, run, regex, skip, count.
python3 - "$@" > "$W/plan.tsv" <<'PYEOF'
import sys, tomllib
labels = tomllib.load(open('examples/blind_set_real1/labels.toml', 'rb'))['kernel']
wanted = set(sys.argv[1:])
unknown = wanted - {k['program'] for k in labels}
if unknown:
    sys.exit('unknown PROGRAM_ID: ' + ', '.join(sorted(unknown)))
for k in labels:
    if wanted and k['program'] not in wanted:
        continue
    fields = [k['program'], k['program_path'], k['build'], k['run'], k['kernel_regex'],
              str(k.get('launch_skip', 0)), str(k.get('launch_count', 1))]
    assert all('\t' not in f for f in fields)
    print('\t'.join(fields))
PYEOF
[[ -s $W/plan.tsv ]] || { echo "$0: nothing selected" >&2; exit 2; }

{
  date -u +"date: %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv
  ncu --version | tail -1
  nvcc --version | tail -2
  uname -r
  echo "source: zjin-lcf/HeCBench f27000a5188f8ac79bd43fc95a1b3f890c18823d"
} > "$W/cap/env.txt" 2>&1
cat "$W/cap/env.txt"

echo "== build ($(elapsed) s)"
build_one() {  # $1 program_path, $2 build command (run from the snapshot root)
  local path=$1 build=$2 log
  log="$W/build/$(basename "$path").log"
  mkdir -p "$W/build"
  build=${build/EXTRA_CFLAGS=-lineinfo/EXTRA_CFLAGS=\"-lineinfo -Xptxas -v\"}
  if (cd "$W/tree" && eval "$build") > "$log" 2>&1; then
    cuobjdump -sass "$W/tree/$path/main" > "$W/build/$(basename "$path").sass" 2>&1
    echo "built $path"
  else
    echo "BUILD FAILED: $path"; tail -20 "$log"
  fi
}
while IFS=$'\t' read -r path build; do
  build_one "$path" "$build" &
  while (($(jobs -rp | wc -l) >= $(nproc))); do wait -n; done
done < <(cut -f2,3 "$W/plan.tsv" | sort -u)
wait
if ((BUILD_ONLY)); then
  failed=$(cut -f2 "$W/plan.tsv" | sort -u | while read -r path; do [[ -x $W/tree/$path/main ]] || echo "$path"; done)
  echo "build only: $(cut -f2 "$W/plan.tsv" | sort -u | wc -l) programs, failed: ${failed:-none} ($(elapsed) s)"
  [[ -z $failed ]]; exit
fi

echo "== ncu --set full ($(elapsed) s)"
while IFS=$'\t' read -r id path build run regex skip count; do
  d="$W/cap/$id"; mkdir -p "$d"
  name=$(basename "$path")
  cp "$W/build/$name.log" "$d/ptxas.txt" 2>/dev/null
  cp "$W/build/$name.sass" "$d/sass.txt" 2>/dev/null
  if [[ ! -x $W/tree/$path/main ]]; then echo "$id: not built"; continue; fi
  if (($(elapsed) > BUDGET_S)); then echo "SKIPPED (budget): $id"; continue; fi
  t1=$(date +%s)
  (cd "$W/tree/$path" && eval "timeout 90 ncu --set full --clock-control none --import-source yes \
      --kernel-name-base demangled -k 'regex:$regex' --launch-skip $skip -c $count --kill yes -f \
      -o '$d/$id' $run") > "$d/ncu_log.txt" 2>&1
  echo "$id: ncu exit=$? $(($(date +%s) - t1)) s $(grep -c '==PROF== Profiling' "$d/ncu_log.txt") launches"
done < "$W/plan.tsv"

echo "== export ($(elapsed) s)"
export_one() {  # $1 capture folder holding NAME.ncu-rep
  local d=$1 n; n=$(basename "$1"); local r="$d/$n.ncu-rep"
  [[ -f $r ]] || return 0
  ncu -i "$r" --csv --page raw --print-units base > "$d/raw_full.csv" 2> "$d/export_err.txt"
  ncu -i "$r" --csv --page details --print-units base > "$d/details_full.csv" 2>> "$d/export_err.txt"
  ncu -i "$r" --csv --page source --print-source sass > "$d/source_full.csv" 2>> "$d/export_err.txt"
}
export -f export_one
ls -d "$W"/cap/*/ | sed 's#/$##' | xargs -P 8 -I{} bash -c 'export_one {}'

echo "== program runs without ncu ($(elapsed) s)"
cut -f2,4 "$W/plan.tsv" | sort -u > "$W/runs.tsv"
while IFS=$'\t' read -r path run; do
  if (($(elapsed) > BUDGET_S + 60)); then echo "SKIPPED (budget): $path $run"; continue; fi
  [[ -x $W/tree/$path/main ]] || continue
  {
    echo "\$ (cd $path && $run)"
    (cd "$W/tree/$path" && eval "timeout 20 $run") 2>&1 | head -c 20000
    echo "exit=${PIPESTATUS[0]}"
  } >> "$W/cap/program_output.txt"
done < "$W/runs.tsv"
while IFS=$'\t' read -r id path build run regex skip count; do  # each fixture gets its program's output
  awk -v cmd="\$ (cd $path && $run)" '$0 == cmd {p = 1; print; next} /^\$ \(cd / {p = 0} p' \
    "$W/cap/program_output.txt" > "$W/cap/$id/program_output.txt" 2>/dev/null
done < "$W/plan.tsv"

echo "== trim and summary ($(elapsed) s)"
"$REPO/scripts/capture_h200_fixtures.sh" --trim "$W/cap" "$W/fixtures"
for d in "$W"/fixtures/*/; do cp "$W/cap/$(basename "$d")/program_output.txt" "$d" 2>/dev/null; done
python3 - "$W/cap" "$W/plan.tsv" > "$OUT/real1_summary.txt" <<'PYEOF'
import csv, os, sys
cap, plan = sys.argv[1], sys.argv[2]
def num(s):
    try:
        return float(s.replace(',', ''))
    except (ValueError, AttributeError):
        return None
for line in open(plan):
    kid = line.split('\t')[0]
    path = os.path.join(cap, kid, 'raw_full.csv')
    if not os.path.exists(path):
        print(f'{kid:32s} no capture'); continue
    rows = list(csv.reader(open(path, newline='', encoding='utf-8', errors='replace')))
    start = next((i for i, r in enumerate(rows) if r and r[0] == 'ID'), None)
    if start is None or len(rows) < start + 3:
        print(f'{kid:32s} no data'); continue
    hdr, data = rows[start], [r for r in rows[start + 2:] if r]
    col = lambda m: hdr.index(m) if m in hdr else None
    def first(m):
        j = col(m)
        return num(data[0][j]) if j is not None and j < len(data[0]) else None
    name = data[0][col('Kernel Name')] if col('Kernel Name') is not None else '?'
    t = first('gpu__time_duration.sum')
    f = lambda v, s=1: '-' if v is None else f'{v / s:.1f}'
    print(f'{kid:32s} launches={len(data):2d} us={f(t, 1e3):>9s} '
          f'SM%={f(first("sm__throughput.avg.pct_of_peak_sustained_elapsed")):>5s} '
          f'DRAM%={f(first("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")):>5s} '
          f'grid={first("launch__grid_size")} block={first("launch__block_size")} | {name[:80]}')
PYEOF
cat "$OUT/real1_summary.txt"

cp "$W/cap/env.txt" "$W/plan.tsv" "$W/fixtures/" 2>/dev/null
(cd "$W" && tar czf "$OUT/real1_capture.tar.gz" --exclude='*.ncu-rep' cap fixtures build/*.log)
(cd "$W" && tar czf "$OUT/real1_reports.tar.gz" $(cd "$W" && find cap -name '*.ncu-rep'))
ls -la "$OUT"
echo "done in $(elapsed) s"
