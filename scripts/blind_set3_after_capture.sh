#!/usr/bin/env bash
# Turns the H200 capture of blind example set 3 (examples/blind_set3/, issue 18) into its fixtures and
# its accuracy table, on a machine without a GPU, in a couple of minutes:
#   scripts/blind_set3_after_capture.sh CAPTURE [CAPTURE_LOG]
# CAPTURE: the blind_set3.tar.gz that `OUT=... SET=blind_set3 CALIBRATE=0 TARGETED=0
# scripts/capture_h200_blind.sh` wrote (or the folder it unpacks to, holding cap/); CAPTURE_LOG: that
# command's stdout (optional; copied as capture_log.txt). EXTRA=ANOTHER.tar.gz adds the programs of a
# second capture (ONLY=... TAR_NAME=...: what the first one's budget skipped) that the first lacks; its
# env.txt is kept as capture_env_extra.txt. Run from the repository root.
# Steps:
#   1. scripts/capture_h200_fixtures.sh --trim CAP tests/fixtures/h200_blind3 (the first two sets' trimming),
#      env.txt as capture_env.txt;
#   2. scripts/blind_set_labels.py examples/blind_set3/labels.toml tests/fixtures/h200_blind3: expected.toml
#      from the labels committed before the capture (copied, never edited);
#   3. checks: every labelled program has a raw.csv whose rows hold the labelled kernel, and its own run
#      printed "ok" (timing.txt); anything missing is listed, nothing is dropped silently;
#   4. builds bench/diagnosis_accuracy and runs it on the set (bundle, raw.csv only, targeted collection;
#      kopt beside ncu's own rule ranking, in one run) into bench/results/diagnosis_accuracy_blind3.md,
#      with a header naming the label commit, the capture and the commit scored.
# The labels are never changed after the capture: a wrong label is a miss, to be argued in
# tests/fixtures/h200_blind3/README.md.
set -euo pipefail
# SET, FIX and RESULT override the set folder, the fixture folder and the table (for a dry run on another set)
SET=${SET:-blind_set3}
FIX=${FIX:-tests/fixtures/h200_blind3}
RESULT=${RESULT:-bench/results/diagnosis_accuracy_blind3.md}
[[ -f examples/$SET/labels.toml ]] || { echo "$0: run from the repository root" >&2; exit 2; }
[[ $# -ge 1 ]] || { echo "usage: $0 CAPTURE(.tar.gz|dir) [CAPTURE_LOG]" >&2; exit 2; }
CAPTURE=$1
LOG=${2:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if [[ -f $CAPTURE ]]; then
  tar xzf "$CAPTURE" -C "$TMP"
  CAP=$TMP/cap
else
  CAP=$CAPTURE
  [[ -d $CAP/cap ]] && CAP=$CAP/cap
fi
[[ -f $CAP/env.txt ]] || { echo "$0: $CAP has no env.txt: not a capture_h200_blind.sh capture" >&2; exit 1; }
if [[ -n ${EXTRA:-} ]]; then
  mkdir -p "$TMP/extra"
  tar xzf "$EXTRA" -C "$TMP/extra"
  for d in "$TMP"/extra/cap/*/; do
    n=$(basename "$d")
    if [[ -f $d/raw_full.csv && ! -f $CAP/$n/raw_full.csv ]]; then
      rm -rf "${CAP:?}/$n"
      cp -r "$d" "$CAP/$n"
      echo "from $EXTRA: $n"
    fi
  done
fi

echo "== 1. trim $CAP -> $FIX"
rm -rf "$FIX"
mkdir -p "$FIX"
scripts/capture_h200_fixtures.sh --trim "$CAP" "$FIX"
cp "$CAP/env.txt" "$FIX/capture_env.txt"
[[ -n ${EXTRA:-} ]] && cp "$TMP/extra/cap/env.txt" "$FIX/capture_env_extra.txt"
[[ -n $LOG && -f $LOG ]] && cp "$LOG" "$FIX/capture_log.txt"
# ncu wall time per program, for the README
for t in "$CAP"/*/ncu_time.txt; do [[ -f $t ]] && cat "$t"; done > "$FIX/ncu_times.txt" || true

echo "== 2. expected.toml from the labels"
python3 scripts/blind_set_labels.py "examples/$SET/labels.toml" "$FIX"

echo "== 3. checks"
python3 - "$FIX" "examples/$SET/labels.toml" <<'PYEOF'
import csv, os, re, sys, tomllib
fix = sys.argv[1]
labels = tomllib.load(open(sys.argv[2], 'rb'))['kernel']
problems = 0
for label in labels:
    folder = os.path.join(fix, label['program'])
    raw = os.path.join(folder, 'raw.csv')
    if not os.path.exists(raw):
        print(f'MISSING  {label["program"]}: no raw.csv (not captured: build failure, budget or ncu error)')
        problems += 1
        continue
    with open(raw, newline='', encoding='utf-8', errors='replace') as f:
        rows = list(csv.reader(f))
    col = rows[0].index('Kernel Name') if rows and 'Kernel Name' in rows[0] else None
    names = [r[col] for r in rows[2:] if col is not None and len(r) > col]
    if 'kernel' in label:
        hit = [n for n in names if re.match(r'(void )?' + re.escape(label['kernel']) + r'\b', n)]
    else:
        hit = [n for n in names if re.search(label['kernel_regex'], n)]
    timing = os.path.join(folder, 'timing.txt')
    ok = os.path.exists(timing) and re.search(r'^ok$', open(timing).read(), re.M)
    state = 'ok      ' if hit and ok else 'CHECK   '
    if not (hit and ok):
        problems += 1
    print(f'{state} {label["program"]}: {len(names)} launch(es), labelled kernel {"found: " + hit[0][:60] if hit else "NOT FOUND"}'
          f'; own run {"printed ok" if ok else "did not print ok (or was not timed)"}')
print(f'{len(labels)} labelled programs, {problems} to check')
PYEOF

echo "== 4. diagnosis accuracy"
CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache} cmake --preset default > /dev/null
nice cmake --build --preset default --target diagnosis_accuracy -j"${JOBS:-2}" > "$TMP/build.txt" 2>&1 ||
  { tail -20 "$TMP/build.txt"; exit 1; }
LABEL_COMMIT=$(git log --diff-filter=A --format='%h %cI' -1 -- "examples/$SET/labels.toml")
CAPTURED=$(sed -n 's/^date: //p' "$FIX/capture_env.txt")
{
  echo "# Diagnosis accuracy on $SET (issue 18)"
  echo
  echo "$SET: $(ls examples/$SET/*.cu | wc -l) programs (\`examples/$SET/\`), kernels and labels written and"
  echo "committed ($LABEL_COMMIT) before any run or capture; captured on the H200 $CAPTURED by"
  echo "\`SET=$SET CALIBRATE=0 TARGETED=0 scripts/capture_h200_blind.sh\` (\`ncu --set full\`, clocks untouched),"
  echo "trimmed and labelled by \`scripts/blind_set3_after_capture.sh\` into \`$FIX/\`."
  echo "Table: \`build/bench/diagnosis_accuracy $FIX\` at $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo ' (with uncommitted changes under src/)')."
  echo
  build/bench/diagnosis_accuracy "$FIX"
} > "$RESULT"
sed -n '/### Summary/,$p' "$RESULT"

# The fixtures' README: the capture facts (the misses are read from the table and argued by hand below it)
MULTI=$(for d in "$FIX"/*/; do [[ -f $d/raw.csv ]] || continue
  n=$(($(wc -l < "$d/raw.csv") - 2)); if ((n > 1)); then printf '%s (%d launches), ' "$(basename "$d")" "$n"; fi
done)
{
  echo "# H200 profiles of $SET (issue 18)"
  echo
  echo "Nsight Compute captures of the programs in \`examples/$SET/\`; their labels (\`examples/$SET/labels.toml\`)"
  echo "were committed before this capture ($LABEL_COMMIT) and are copied, unchanged, into each folder's"
  echo "\`expected.toml\` by \`scripts/blind_set_labels.py\`. Scored in \`$RESULT\`."
  echo
  echo "Captured $CAPTURED by \`SET=$SET CALIBRATE=0 TARGETED=0 scripts/capture_h200_blind.sh\` (\`capture_env.txt\`,"
  echo "ncu wall time per program in \`ncu_times.txt\`$([[ -f $FIX/capture_log.txt ]] && echo ', the log in `capture_log.txt`')), the first two sets' method:"
  echo "\`nvcc -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Xptxas -v\` (\`ptxas.txt\`), \`cuobjdump -sass\`"
  echo "(\`sass.txt\`), one \`ncu --set full --clock-control none\` profile of the labelled launch (\`raw.csv\`,"
  echo "\`details.csv\`, \`source.csv\`, trimmed by \`scripts/capture_h200_fixtures.sh --trim\`), the program's own"
  echo "timing without ncu (\`timing.txt\`). Profiled launches: one of the labelled kernel, except ${MULTI%, }"
  echo "(the filters of \`KERNELS_${SET^^}\` in the capture script)."
} > "$FIX/README.md"
echo
echo "wrote $FIX/ (README.md with the capture facts) and $RESULT; next: argue any miss under the table"
echo "(labels stay unchanged), then commit both"
