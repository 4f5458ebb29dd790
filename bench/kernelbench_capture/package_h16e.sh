#!/bin/bash
# Packs what bench/kernelbench_capture/cost_h16e.sh needs from this checkout
# into .carry/h16e/: bin.tar.xz (bin/ and lib/ as scripts/package_for_device.sh
# packs them, for kopt, kopt-runner and output_channel_throughput; xz keeps it small), kernelbench_compare.py
# and cost_h16e.sh.
# Usage: bench/kernelbench_capture/package_h16e.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
out=.carry/h16e
rm -rf "$out"; mkdir -p "$out"
CARRY=$out BINARIES="src/kopt src/kopt-runner bench/output_channel_throughput" \
  "$(dirname "${BASH_SOURCE[0]}")/../../scripts/package_for_device.sh" "$build" > /dev/null
tar -cJf "$out/bin.tar.xz" -C "$out" bin lib
rm -rf "$out/bin" "$out/lib"
cp bench/kernelbench_compare.py bench/kernelbench_capture/cost_h16e.sh "$out/"
du -sh "$out" | awk '{print "packed " $1 " into .carry/h16e"}'
