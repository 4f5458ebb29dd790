#!/bin/bash
# Packs what bench/kernelbench_capture/cost_h16d.sh needs from this checkout
# into .carry/h16d/: bin.tar.xz (bin/ and lib/: the binaries stripped, and the
# shared libraries they need beyond glibc, libstdc++/libgcc, the NVIDIA driver
# and the CUDA runtime, which the device has; as scripts/package_for_device.sh;
# xz keeps it under the 10 MB a device request may carry), kernelbench_compare.py
# and cost_h16d.sh.
# Usage: bench/kernelbench_capture/package_h16d.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
out=.carry/h16d
rm -rf "$out"; mkdir -p "$out/bin" "$out/lib"
for binary in src/kopt src/kopt-runner bench/output_channel_throughput; do
  [ -x "$build/$binary" ] || { echo "missing $build/$binary (build it first)" >&2; exit 2; }
  strip -o "$out/bin/$(basename "$binary")" "$build/$binary"
done
system_library='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|librt\.|libpthread\.|libresolv\.|libutil\.|libstdc\+\+|libgcc_s|libcuda\.|libcupti\.|libcudart\.)'
for binary in "$out"/bin/*; do
  ldd "$binary" | awk '/=> \//{print $1, $3}' | while read -r name path; do
    [[ $name =~ $system_library ]] && continue
    cp -Lf "$path" "$out/lib/$name"
  done
done
tar -cJf "$out/bin.tar.xz" -C "$out" bin lib
rm -rf "$out/bin" "$out/lib"
cp bench/kernelbench_compare.py bench/kernelbench_capture/cost_h16d.sh "$out/"
du -sh "$out" | awk '{print "packed " $1 " into .carry/h16d"}'
