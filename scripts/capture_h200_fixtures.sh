#!/usr/bin/env bash
# Captures Nsight Compute profiles of the example kernels (examples/kernels/*.cu) on a GPU machine and
# turns them into the test fixtures under tests/fixtures/h200/.
#
#   scripts/capture_h200_fixtures.sh [KERNEL ...]      run from the repository root, on the GPU machine
#   scripts/capture_h200_fixtures.sh --trim CAPTURE_DIR FIXTURE_DIR
#                                                       re-trim an unpacked capture (no GPU needed)
#
# For every example program it:
#   - builds it: nvcc -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Xptxas -v  (ptxas.txt),
#     and disassembles it: cuobjdump -sass (sass.txt);
#   - times the kernel without ncu: the program's own CUDA-event timing of 20 launches (timing.txt);
#   - profiles ONE launch of the main kernel (launch_overhead: the first 10 of its 10,000 launches) with
#     LC_ALL=C ncu --set full --clock-control none --import-source yes;
#   - exports the report: --page raw --csv --print-units base (raw.csv), --page details --csv
#     --print-units base (details.csv) and --page source --csv --print-source sass (source.csv).
# It also profiles two kernels with --set basic only (fewer metrics), exports one raw page with
# --print-units auto, and the session page (device attributes) once.
# Everything lands in $OUT/h200_capture.tar.gz (untrimmed capture + trimmed fixtures + summary) and
# $OUT/h200_reports.tar.gz (the .ncu-rep reports). OUT defaults to ./out.
# Trimming: raw.csv loses the columns that are empty in every row; source.csv keeps the first launch's
# table and only the per-instruction columns the analysis uses (address, SASS text, stall samples and
# stall_* reasons, instructions and thread instructions executed, divergent branches, L1 shared
# wavefronts/conflicts and L2 global sectors with their ideal and excessive counts), minus the columns that
# are empty or zero in every row; the --set basic captures keep only raw.csv, details.csv and timing.txt.
# GPU clocks and settings are never changed (--clock-control none).
set -uo pipefail

trim_py() {
python3 - "$@" <<'PYEOF'
import csv, os, re, sys, glob

def read_rows(path):
    with open(path, newline='', encoding='utf-8', errors='replace') as f:
        return list(csv.reader(f))

def write_rows(path, rows):
    with open(path, 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator='\n')
        w.writerows(rows)

def trim_raw(src, dst):
    rows = read_rows(src)
    start = next((i for i, r in enumerate(rows) if r and r[0] == 'ID'), None)
    if start is None:
        raise SystemExit(f'{src}: no raw-page header row')
    hdr, units, data = rows[start], rows[start + 1], [r for r in rows[start + 2:] if r]
    keep = [j for j in range(len(hdr)) if j < 11 or any(j < len(r) and r[j].strip() != '' for r in data)]
    write_rows(dst, [[row[j] if j < len(row) else '' for j in keep] for row in [hdr, units] + data])
    return len(hdr), len(keep), len(data)

SOURCE_KEEP = {'Address', 'Source', 'Warp Stall Sampling (All Samples)', 'Warp Stall Sampling (Not-issued Samples)',
               'Instructions Executed', 'Thread Instructions Executed', 'Divergent Branches',
               'L1 Conflicts Shared N-Way'}

def source_col_wanted(name):
    return (name in SOURCE_KEEP or name.startswith('stall_') or name.startswith('L2 Theoretical Sectors Global')
            or name.startswith('L1 Wavefronts Shared'))

def trim_source(src, dst):
    rows = read_rows(src)
    starts = [i for i, r in enumerate(rows) if r and r[0] == 'Kernel Name']
    if not starts:
        raise SystemExit(f'{src}: no "Kernel Name" line')
    end = starts[1] if len(starts) > 1 else len(rows)
    title, hdr, body = rows[starts[0]], rows[starts[0] + 1], [r for r in rows[starts[0] + 2:end] if r]
    def nonzero(j):
        return any(j < len(r) and r[j].strip() not in ('', '0', '0.0') for r in body)
    keep = [j for j, h in enumerate(hdr) if h in ('Address', 'Source') or (source_col_wanted(h) and nonzero(j))]
    write_rows(dst, [[r[j] if j < len(r) else '' for j in keep] for r in [hdr] + body])
    with open(dst, encoding='utf-8') as f:  # the title line keeps ncu's form: "Kernel Name","name",
        text = f.read()
    with open(dst, 'w', encoding='utf-8') as f:
        f.write('"Kernel Name","%s",\n' % title[1].replace('"', '""') + text)
    return len(hdr), len(keep), len(body)

def num(s):
    try:
        return float(s.replace(',', ''))
    except (ValueError, AttributeError):
        return None

def summarize(capdir):
    lines = []
    for d in sorted(glob.glob(os.path.join(capdir, '*', 'raw_full.csv'))):
        name = os.path.basename(os.path.dirname(d))
        rows = read_rows(d)
        start = next((i for i, r in enumerate(rows) if r and r[0] == 'ID'), None)
        if start is None or len(rows) < start + 3:
            lines.append(f'{name}: no data'); continue
        hdr, r = rows[start], rows[start + 2]
        g = lambda m: num(r[hdr.index(m)]) if m in hdr and hdr.index(m) < len(r) else None
        t = g('gpu__time_duration.sum')
        sm = g('sm__throughput.avg.pct_of_peak_sustained_elapsed')
        mem = g('gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed')
        dram = g('gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed')
        occ_t = g('sm__maximum_warps_per_active_cycle_pct'); occ_a = g('sm__warps_active.avg.pct_of_peak_sustained_active')
        rules = []
        det = os.path.join(os.path.dirname(d), 'details_full.csv')
        sol = ''
        if os.path.exists(det):
            drows = read_rows(det)
            dh = drows[0] if drows else []
            ix = {h: i for i, h in enumerate(dh)}
            seen_id = None
            for x in drows[1:]:
                if len(x) < 20:
                    continue
                if seen_id is None:
                    seen_id = x[0]
                if x[0] != seen_id:
                    break  # first launch only
                rn, rt, sp = x[ix['Rule Name']], x[ix['Rule Type']], num(x[ix['Estimated Speedup']])
                if rn == 'SOLBottleneck':
                    sol = f'{rt}: ' + x[ix['Rule Description']].split('. ')[0][:90]
                if rn:
                    rules.append((sp if sp is not None else -1, rn, rt))
        rules.sort(reverse=True)
        top = ', '.join(f'{rn}({rt} {sp:g}%)' if sp >= 0 else f'{rn}({rt})' for sp, rn, rt in rules[:3])
        timing = ''
        tf = os.path.join(os.path.dirname(d), 'timing.txt')
        if os.path.exists(tf):
            m = re.search(r'median_us=([0-9.]+)', open(tf).read())
            timing = m.group(1) if m else ''
        f = lambda v: '-' if v is None else f'{v:.1f}'
        lines.append(f'{name:28s} ncu_us={f(t/1e3 if t else None):>8s} event_us={timing:>8s} SM%={f(sm):>5s} '
                     f'MEM%={f(mem):>5s} DRAM%={f(dram):>5s} occ={f(occ_a)}/{f(occ_t)} | SOL {sol} | top: {top}')
    text = '\n'.join(lines) + '\n'
    open(os.path.join(capdir, 'summary.txt'), 'w').write(text)
    print(text)

def main():
    mode = sys.argv[1]
    if mode == 'trim':
        capdir, fixdir = sys.argv[2], sys.argv[3]
        os.makedirs(fixdir, exist_ok=True)
        for d in sorted(glob.glob(os.path.join(capdir, '*', ''))):
            name = os.path.basename(os.path.dirname(d))
            if not os.path.exists(os.path.join(d, 'raw_full.csv')):
                continue
            out = os.path.join(fixdir, name)
            os.makedirs(out, exist_ok=True)
            msg = [name]
            a, b, n = trim_raw(os.path.join(d, 'raw_full.csv'), os.path.join(out, 'raw.csv'))
            msg.append(f'raw {b}/{a} cols {n} rows')
            if os.path.exists(os.path.join(d, 'raw_auto_full.csv')):
                trim_raw(os.path.join(d, 'raw_auto_full.csv'), os.path.join(out, 'raw_auto.csv'))
            basic = name.startswith('basic_set_')  # same binary as ../NAME: no SASS, ptxas or source copies
            src = os.path.join(d, 'source_full.csv')
            if not basic and os.path.exists(src) and os.path.getsize(src) > 0:
                try:
                    a, b, n = trim_source(src, os.path.join(out, 'source.csv'))
                    msg.append(f'source {b}/{a} cols {n} rows')
                except SystemExit as e:
                    msg.append(f'source: {e}')
            for fn, dn in (('details_full.csv', 'details.csv'), ('sass.txt', 'sass.txt'), ('ptxas.txt', 'ptxas.txt'),
                           ('timing.txt', 'timing.txt')):
                p = os.path.join(d, fn)
                if os.path.exists(p) and not (basic and fn in ('sass.txt', 'ptxas.txt')):
                    with open(p, 'rb') as fi, open(os.path.join(out, dn), 'wb') as fo:
                        fo.write(fi.read())
            print('  '.join(msg))
    elif mode == 'summary':
        summarize(sys.argv[2])

main()
PYEOF
}

if [[ "${1:-}" == "--trim" ]]; then
  [[ $# -eq 3 ]] || { echo "usage: $0 --trim CAPTURE_DIR FIXTURE_DIR" >&2; exit 2; }
  trim_py trim "$2" "$3"
  exit $?
fi

[[ -d examples/kernels ]] || { echo "$0: run from the repository root" >&2; exit 2; }
export LC_ALL=C
OUT=${OUT:-$PWD/out}
W=${CAPTURE_WORK:-/tmp/kopt_h200_capture}
BUDGET_S=${CAPTURE_BUDGET_S:-480}  # stop starting new ncu runs after this many seconds
T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }
rm -rf "$W"; mkdir -p "$W/bin" "$W/cap" "$OUT"
export W

if [[ $# -gt 0 ]]; then names=("$@"); else
  names=(); for f in examples/kernels/*.cu; do names+=("$(basename "$f" .cu)"); done
fi

{
  date -u +"date: %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv
  ncu --version | tail -1
  nvcc --version | tail -2
  uname -r
} > "$W/cap/env.txt" 2>&1
cat "$W/cap/env.txt"

echo "== build ($(elapsed) s)"
build_one() {
  local n=$1 d="$W/cap/$1"
  mkdir -p "$d"
  if nvcc -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Xptxas -v "examples/kernels/$n.cu" -o "$W/bin/$n" \
      > "$d/ptxas.txt" 2>&1; then
    cuobjdump -sass "$W/bin/$n" > "$d/sass.txt" 2>&1
  else
    echo "BUILD FAILED: $n"; cat "$d/ptxas.txt"
  fi
}
export -f build_one
printf '%s\n' "${names[@]}" | xargs -P "$(nproc)" -I{} bash -c 'build_one {}'

echo "== timing without ncu ($(elapsed) s)"
for n in "${names[@]}"; do
  [[ -x "$W/bin/$n" ]] || continue
  timeout 60 "$W/bin/$n" 20 > "$W/cap/$n/timing.txt" 2>&1
  echo "exit=$?" >> "$W/cap/$n/timing.txt"
  grep -E "^TIME|exit=|wrong" "$W/cap/$n/timing.txt" | tr '\n' ' '; echo
done

echo "== ncu --set full ($(elapsed) s)"
for n in "${names[@]}"; do
  [[ -x "$W/bin/$n" ]] || continue
  if (($(elapsed) > BUDGET_S)); then echo "SKIPPED (budget): $n"; continue; fi
  count=1; [[ $n == launch_overhead ]] && count=10
  t1=$(date +%s)
  timeout 150 ncu --set full --clock-control none --import-source yes -k "regex:^$n\$" -c $count -f \
    -o "$W/cap/$n/$n" "$W/bin/$n" > "$W/cap/$n/ncu_log.txt" 2>&1
  echo "$n: ncu exit=$? $(($(date +%s) - t1)) s"
done

echo "== ncu --set basic ($(elapsed) s)"
for n in low_occupancy_registers uncoalesced_loads; do
  [[ -x "$W/bin/$n" ]] || continue
  if (($(elapsed) > BUDGET_S + 30)); then echo "SKIPPED (budget): basic $n"; continue; fi
  d="$W/cap/basic_set_$n"; mkdir -p "$d"
  cp "$W/cap/$n/ptxas.txt" "$W/cap/$n/sass.txt" "$d/" 2>/dev/null
  timeout 60 ncu --set basic --clock-control none -k "regex:^$n\$" -c 1 -f -o "$d/basic_set_$n" "$W/bin/$n" \
    > "$d/ncu_log.txt" 2>&1
  echo "basic $n: ncu exit=$?"
done

echo "== export ($(elapsed) s)"
export_one() {
  local d=$1 n; n=$(basename "$1"); local r="$d/$n.ncu-rep"
  [[ -f $r ]] || return 0
  ncu -i "$r" --csv --page raw --print-units base > "$d/raw_full.csv" 2> "$d/export_err.txt"
  ncu -i "$r" --csv --page details --print-units base > "$d/details_full.csv" 2>> "$d/export_err.txt"
  ncu -i "$r" --csv --page source --print-source sass -c 1 > "$d/source_full.csv" 2>> "$d/export_err.txt" ||
    ncu -i "$r" --csv --page source --print-source sass > "$d/source_full.csv" 2>> "$d/export_err.txt"
}
export -f export_one
ls -d "$W"/cap/*/ | sed 's#/$##' | xargs -P 8 -I{} bash -c 'export_one {}'
if [[ -f "$W/cap/uncoalesced_loads/uncoalesced_loads.ncu-rep" ]]; then
  ncu -i "$W/cap/uncoalesced_loads/uncoalesced_loads.ncu-rep" --csv --page raw --print-units auto \
    > "$W/cap/uncoalesced_loads/raw_auto_full.csv" 2>/dev/null
  ncu -i "$W/cap/uncoalesced_loads/uncoalesced_loads.ncu-rep" --csv --page session \
    > "$W/cap/session.csv" 2>/dev/null
fi

echo "== trim and summary ($(elapsed) s)"
trim_py trim "$W/cap" "$W/fixtures"
trim_py summary "$W/cap"

(cd "$W" && tar czf "$OUT/h200_capture.tar.gz" --exclude='*.ncu-rep' cap fixtures)
(cd "$W" && tar czf "$OUT/h200_reports.tar.gz" $(cd "$W" && find cap -name '*.ncu-rep'))
ls -la "$OUT"
echo "done in $(elapsed) s"
