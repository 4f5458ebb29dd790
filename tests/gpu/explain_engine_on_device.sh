#!/usr/bin/env bash
# The explain engine's live collections on a GPU machine: `kopt diff A.cu B.cu` and `kopt explain
# A.cu B.cu` (versions) must collect each .cu as `kopt explain A.cu` does (the targeted set, the launch
# timeline, kopt-launcher), and `--set full` must reach ncu for both.
#
# Run from the repository root with OUT set: builds kopt, kopt-launcher and libkopt_timeline.so
# (Release, build-gpu/), then runs the cases; writes $OUT/summary.txt (one line per case: exit code,
# seconds, the bundle files) and $OUT/reports.tar.gz (reports, stderr, bundle listings). About 3
# minutes on an H100 (most of it the build). Exits 77 when there is no GPU.
set -u
command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
root=$PWD
out=${OUT:?set OUT}
mkdir -p "$out/cases"
# KOPT: a kopt already built (kopt-launcher and libkopt_timeline.so beside it, as
# scripts/package_for_device.sh packs them); else it is built here.
kopt=${KOPT:-}
if [ -z "$kopt" ]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DKOPT_PRECOMPILED_HEADERS=ON > "$out/cases/configure.log" 2>&1 &&
    cmake --build build-gpu --target kopt kopt-launcher > "$out/cases/build.log" 2>&1 ||
    { echo "build failed"; tail -40 "$out/cases/build.log"; exit 1; }
  cmake --build build-gpu --target kopt_timeline >> "$out/cases/build.log" 2>&1 ||
    echo "libkopt_timeline.so not built (no CUPTI?): no timeline runs expected" | tee "$out/summary_note.txt"
  kopt=$root/build-gpu/src/kopt
fi
summary=$out/summary.txt
: > "$summary"
work=$(mktemp -d)
cd "$work" || exit 1
a=$root/examples/kernels/uncoalesced_loads.cu
b=$root/examples/kernels/healthy_dram_copy.cu

# run_case NAME ARGS...: kopt ARGS in a fresh directory; the bundles' files listed (profile.ncu-rep only
# with a section set; timeline*.jsonl only with the timeline run; *.so only through kopt-launcher).
run_case() {
  local name=$1
  shift
  mkdir -p "$work/$name" && cd "$work/$name" || return
  local start=$(date +%s.%N)
  "$kopt" "$@" > "$out/cases/$name.report" 2> "$out/cases/$name.err"
  local code=$?
  local seconds=$(awk "BEGIN{print $(date +%s.%N) - $start}")
  find . -path './kopt-profile-*' -type f | sort > "$out/cases/$name.files"
  printf '%-16s exit %s  %5.1f s  files: %s\n' "$name" "$code" "$seconds" \
    "$(sed 's|^\./||' "$out/cases/$name.files" | grep -E 'ncu-rep$|timeline.*jsonl$|\.so$|raw.csv$' | tr '\n' ' ')" |
    tee -a "$summary"
  cd "$work" || return
}
run_case explain_one explain "$a" -f json -o one.json
run_case diff diff "$a" "$b" -f json -o diff.json
run_case diff_full diff "$a" "$b" --set full -f json -o diff_full.json
run_case versions explain "$a" "$b" -f json -o versions.json
run_case versions_full explain "$a" "$b" --set full -f json -o versions_full.json
cp "$work"/*/*.json "$out/cases/" 2> /dev/null
tar -czf "$out/reports.tar.gz" -C "$out" cases && rm -rf "$out/cases"
cat "$summary"
