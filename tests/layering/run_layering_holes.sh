#!/usr/bin/env bash
# ctest `layering_holes`: layering_check fails on each way an upward include
# could once pass unseen, and passes the same tree without it. Each case is a
# two-layer tree (core, then hw: core) built in a temporary directory.
#
# Usage: run_layering_holes.sh LAYERING_CHECK
set -euo pipefail
check="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

# A clean two-layer tree at $1.
make_tree() {
  local root="$1"
  mkdir -p "$root/src/core/sub" "$root/src/hw" "$root/docs"
  printf 'layer core:\nlayer hw: core\n' >"$root/src/layers.txt"
  printf 'set(KOPT_LAYERS core hw)\n' >"$root/src/CMakeLists.txt"
  printf '# x\n\nLayer order (data flow, lowest first): `core` `hw`\n\n| `core/` | a |\n| `hw/` | b |\n' \
    >"$root/docs/architecture.md"
  printf '#pragma once\n' >"$root/src/core/status.h"
  printf '#pragma once\n' >"$root/src/core/sub/detail.h"
  printf '#pragma once\n#include "core/status.h"\n' >"$root/src/hw/gpu.h"
  printf '#include "hw/gpu.h"\n#include "../core/status.h"\n#include <core/status.h>\n#include <vector>\n' \
    >"$root/src/hw/gpu.cc"
  printf '#include "sub/detail.h"\n#include "status.h"\n' >"$root/src/core/status.cc"
}

# expect NAME EXIT_CODE TEXT ROOT [BUILD]: the check's exit code, and TEXT in its output when given.
expect() {
  local name="$1" want="$2" text="$3" root="$4"
  shift 4
  local output code=0
  output="$("$check" "$root" "$@" 2>&1)" || code=$?
  if [[ "$code" != "$want" ]] || [[ -n "$text" && "$output" != *"$text"* ]]; then
    echo "FAIL $name: exit $code (want $want), output:"
    echo "$output"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

make_tree "$work/clean"
expect "a clean tree with relative, angle and own-layer includes passes" 0 "" "$work/clean"

make_tree "$work/relative"
printf '#include "../hw/gpu.h"\n' >>"$work/relative/src/core/status.cc"
expect "a \"../\" include of a higher layer fails" 1 'includes "../hw/gpu.h" (hw/gpu.h)' "$work/relative"

make_tree "$work/relative_deep"
printf '#include "../../hw/gpu.h"\n' >"$work/relative_deep/src/core/sub/detail.h"
expect "a \"../../\" include from a subfolder fails" 1 "core/sub/detail.h:1" "$work/relative_deep"

make_tree "$work/angle"
printf '#include <hw/gpu.h>\n' >>"$work/angle/src/core/status.cc"
expect "an angle include of a project header fails" 1 "includes <hw/gpu.h>" "$work/angle"

make_tree "$work/inc"
printf '#include "hw/gpu.h"\n' >"$work/inc/src/core/table.inc"
expect "an .inc file is read" 1 "src/core/table.inc:1" "$work/inc"

make_tree "$work/generated"
printf '#include "hw/generated_table.h"\n' >>"$work/generated/src/core/status.cc"
expect "a quoted layer path not on disk still counts" 1 'includes "hw/generated_table.h"' "$work/generated"

# Unity batches: build.ninja names the batches kopt_lib compiles; one mixing core and hw fails.
make_tree "$work/unity"
build="$work/unity/build"
mkdir -p "$build/src/CMakeFiles/kopt_lib.dir/Unity"
unity="$build/src/CMakeFiles/kopt_lib.dir/Unity"
printf '#include "%s"\n#include "%s"\n' "$work/unity/src/core/status.cc" "$work/unity/src/core/status.cc" \
  >"$unity/unity_core_0_cxx.cxx"
printf '#include "%s"\n' "$work/unity/src/hw/gpu.cc" >"$unity/unity_hw_0_cxx.cxx"
printf 'build src/CMakeFiles/kopt_lib.dir/Unity/unity_core_0_cxx.cxx.o: CXX_COMPILER src/CMakeFiles/kopt_lib.dir/Unity/unity_core_0_cxx.cxx\nbuild src/CMakeFiles/kopt_lib.dir/Unity/unity_hw_0_cxx.cxx.o: CXX_COMPILER src/CMakeFiles/kopt_lib.dir/Unity/unity_hw_0_cxx.cxx\n' \
  >"$build/build.ninja"
expect "unity batches of one layer each pass" 0 "" "$work/unity" "$build"
printf '#include "%s"\n' "$work/unity/src/hw/gpu.cc" >>"$unity/unity_core_0_cxx.cxx"
expect "a unity batch mixing layers fails" 1 "mixing the layers core, hw" "$work/unity" "$build"

if ((failures > 0)); then
  echo "layering_holes: $failures case(s) failed"
  exit 1
fi
echo "layering_holes: ok"
