#!/usr/bin/env bash
# Packs what scripts/device/issue31_suite.sh needs into .carry/: the kopt and
# kopt-runner binaries with their libraries (scripts/package_for_device.sh)
# and the KernelBench problem files of levels 1-3 (.carry/KernelBench/levelN/)
# from a KernelBench checkout or a git mirror of it.
# Usage: scripts/device/package_issue31.sh [BUILD_DIR] [KERNELBENCH_GIT_DIR]
#   (defaults: build, /work/.mirror/ScalingIntelligence+KernelBench/repo)
set -euo pipefail
build=${1:-build}
source=${2:-/work/.mirror/ScalingIntelligence+KernelBench/repo}
BINARIES="src/kopt src/kopt-runner" "$(dirname "${BASH_SOURCE[0]}")/../package_for_device.sh" "$build"
"$(dirname "${BASH_SOURCE[0]}")/carry_kernelbench.sh" "$source" level1 level2 level3
echo "packed $(find .carry/KernelBench -name '*.py' | wc -l) KernelBench problems into .carry/KernelBench"
