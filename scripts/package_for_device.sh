#!/usr/bin/env bash
# Packs the kopt binaries built on this (Debian 12) machine for a GPU machine
# that lacks the build dependencies (our H200 device runs Ubuntu 24.04): the
# stripped binaries go to .carry/bin, and every shared library they need that
# is not part of glibc, libstdc++/libgcc or the NVIDIA driver goes to
# .carry/lib (run there with LD_LIBRARY_PATH=$PWD/.carry/lib).
# Usage: scripts/package_for_device.sh [BUILD_DIR]   (default: build)
# CARRY=DIR packs into DIR/bin and DIR/lib instead of .carry; BINARIES="..." names the build's
# programs to pack (default: src/kopt src/kopt-runner tests/kopt_tests).
set -euo pipefail
build=${1:-build}
out=${CARRY:-.carry}
# Only the binaries and libraries are replaced: .carry/capture/ (capture scripts) stays.
rm -rf "$out/bin" "$out/lib"; mkdir -p "$out/bin" "$out/lib"
for binary in ${BINARIES:-src/kopt src/kopt-runner tests/kopt_tests}; do
  [ -x "$build/$binary" ] || { echo "missing $build/$binary (build it first)" >&2; exit 2; }
  strip -o "$out/bin/$(basename "$binary")" "$build/$binary"
done
# The launch timeline's CUPTI injection library goes beside kopt (where kopt looks for it), when built;
# its libcupti comes from the device's CUDA toolkit.
if [ -f "$build/src/libkopt_timeline.so" ]; then strip -o "$out/bin/libkopt_timeline.so" "$build/src/libkopt_timeline.so"; fi
# kopt-launcher (the .cu build overlapped with ncu's start) goes beside kopt too.
if [ -x "$build/src/kopt-launcher" ]; then strip -o "$out/bin/kopt-launcher" "$build/src/kopt-launcher"; fi
system_library='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|librt\.|libpthread\.|libresolv\.|libutil\.|libstdc\+\+|libgcc_s|libcuda\.|libcupti\.)'
for binary in "$out"/bin/*; do
  ldd "$binary" | awk '/=> \//{print $1, $3}' | while read -r name path; do
    [[ $name =~ $system_library ]] && continue
    cp -Lf "$path" "$out/lib/$name"
  done
done
du -sh "$out" | awk -v out="$out" '{print "packed " $1 " into " out}'
