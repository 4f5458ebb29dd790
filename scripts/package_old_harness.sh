#!/usr/bin/env bash
# Builds the harness as it was at COMMIT (default 6610a78, the baseline of
# issue 12) in a detached worktree and packs its kopt and kopt-runner into
# .carry/old/bin (their extra shared libraries into .carry/old/lib, as
# scripts/package_for_device.sh does), so that tests/gpu/issue12_on_device.sh
# can run both harness versions in one device run. Run it after
# scripts/package_for_device.sh (which empties .carry).
# Usage: scripts/package_old_harness.sh [COMMIT]
set -euo pipefail
commit=${1:-6610a78}
repo=$(git rev-parse --show-toplevel)
tree=${OLD_TREE:-/tmp/kopt-old-$commit}
if [ ! -d "$tree" ]; then git -C "$repo" worktree add --detach "$tree" "$commit" >/dev/null; fi
export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
(cd "$tree" && cmake --preset default >/dev/null && cmake --build --preset default --target kopt kopt-runner)
out=$repo/.carry
mkdir -p "$out/old/bin" "$out/old/lib"
for binary in kopt kopt-runner; do strip -o "$out/old/bin/$binary" "$tree/build/src/$binary"; done
system_library='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|librt\.|libpthread\.|libresolv\.|libutil\.|libstdc\+\+|libgcc_s|libcuda\.)'
for binary in "$out"/old/bin/*; do
  ldd "$binary" | awk '/=> \//{print $1, $3}' | while read -r name path; do
    [[ $name =~ $system_library ]] && continue
    cp -Lf "$path" "$out/old/lib/$name"
  done
done
du -sh "$out" | awk '{print "packed the harness of '"$commit"' into .carry/old (.carry: " $1 ")"}'
