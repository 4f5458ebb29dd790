#!/bin/bash
# Packs what bench/kernelbench_capture/cost_h16d.sh needs from this checkout
# into .carry/h16d/: bin.tar.xz (bin/ and lib/ as scripts/package_for_device.sh
# packs them, for kopt, kopt-runner and output_channel_throughput; xz keeps it
# under the 10 MB a device request may carry), kernelbench_compare.py and
# cost_h16d.sh.
# Usage: bench/kernelbench_capture/package_h16d.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
out=.carry/h16d
rm -rf "$out"; mkdir -p "$out"
CARRY=$out BINARIES="src/kopt src/kopt-runner bench/output_channel_throughput" \
  "$(dirname "${BASH_SOURCE[0]}")/../../scripts/package_for_device.sh" "$build" > /dev/null
tar -cJf "$out/bin.tar.xz" -C "$out" bin lib
rm -rf "$out/bin" "$out/lib"
cp bench/kernelbench_compare.py bench/kernelbench_capture/cost_h16d.sh "$out/"
du -sh "$out" | awk '{print "packed " $1 " into .carry/h16d"}'
