#!/usr/bin/env bash
# Packs what scripts/device/issue37_gemm.sh needs into .carry/: kopt, kopt-runner,
# bench/tuning_space_tool and bench/tuning_simulation with their libraries
# (scripts/package_for_device.sh), the nvidia-cutlass wheel's headers as
# .carry/cutlass.tar.xz (include/ and tools/util/include/, about 3 MB; the
# device may not have the wheel), and the KernelBench level-1 and level-2
# problem files (.carry/KernelBench/levelN/) from a KernelBench checkout or a
# git mirror of it.
# Usage: scripts/device/package_issue37.sh [BUILD_DIR] [KERNELBENCH_GIT_DIR]
#   (defaults: build, /work/.mirror/ScalingIntelligence+KernelBench/repo)
set -euo pipefail
build=${1:-build}
source=${2:-/work/.mirror/ScalingIntelligence+KernelBench/repo}
BINARIES="src/kopt src/kopt-runner bench/tuning_space_tool bench/tuning_simulation" \
  "$(dirname "${BASH_SOURCE[0]}")/../package_for_device.sh" "$build"
cutlass=$(python3 -c "import importlib.util as u, os; print(os.path.join(os.path.dirname(u.find_spec('cutlass_library').origin), 'source'))")
tar -C "$cutlass" -cJf .carry/cutlass.tar.xz include tools/util/include
"$(dirname "${BASH_SOURCE[0]}")/carry_kernelbench.sh" "$source" level1 level2
du -sh .carry/cutlass.tar.xz .carry/KernelBench
