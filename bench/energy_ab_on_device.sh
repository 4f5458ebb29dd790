#!/usr/bin/env bash
# Issue 15's matched-speed A/B on the GPU machine (docs/energy.md "Energy in
# optimize"): bench/energy_ab.py with the kopt found under .carry/build/src,
# .carry/bin or build/src (libraries in .carry/lib when packed), over
# examples/tasks/swish. Run from the repository root:
#   OUT=/some/empty/dir bash bench/energy_ab_on_device.sh
# Writes $OUT/energy_ab.tar.gz (energy_ab.md, energy_ab.json, the runs'
# reports and logs; no compiled libraries). About 3.5 minutes on the H200
# (capped at 225 s). Copy energy_ab.md to bench/results_h200/energy_ab/.
set -u
root="$PWD"
: "${OUT:?OUT must name an empty folder}"
result="$OUT/energy_ab"
mkdir -p "$result"
export LD_LIBRARY_PATH="$root/.carry/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
kopt=""
for candidate in "$root/.carry/build/src/kopt" "$root/.carry/bin/kopt" "$root/build/src/kopt"; do
  if [ -x "$candidate" ]; then kopt="$candidate"; break; fi
done
if [ -z "$kopt" ]; then
  echo "no kopt under .carry/build/src, .carry/bin or build/src" > "$result/error.txt"
else
  export KOPT_RUNNER="$(dirname "$kopt")/kopt-runner"
  git -C "$root" log --oneline -1 > "$result/commit.txt" 2>&1
  timeout 225 python3 "$root/bench/energy_ab.py" --kopt "$kopt" --task "$root/examples/tasks/swish" \
    --workspace "$result/ws" --output "$result/energy_ab.md" --json "$result/energy_ab.json" \
    > "$result/stdout.txt" 2> "$result/stderr.txt"
  echo "exit $?" >> "$result/stdout.txt"
fi
find "$result/ws" -name '*.so' -delete 2>/dev/null
rm -rf "$result/ws/compile-cache" "$result/ws/profiles"
tar -C "$OUT" -czf "$OUT/energy_ab.tar.gz" energy_ab
rm -rf "$result"
