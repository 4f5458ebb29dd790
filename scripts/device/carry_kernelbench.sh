#!/usr/bin/env bash
# Copies KernelBench problem files into .carry/KernelBench/LEVEL/ (replacing what is there), from a
# KernelBench checkout or a git mirror of it, for the device packaging scripts
# (package_issue31.sh, package_issue37.sh). Run from the repository root.
# Usage: scripts/device/carry_kernelbench.sh SOURCE LEVEL...   (LEVEL: level1, level2, level3)
set -euo pipefail
source=${1:?usage: carry_kernelbench.sh SOURCE LEVEL...}
shift
rm -rf .carry/KernelBench
for level in "$@"; do
  mkdir -p ".carry/KernelBench/$level"
  if [ -d "$source/KernelBench/$level" ]; then
    cp "$source/KernelBench/$level"/*.py ".carry/KernelBench/$level/"
  else
    git --git-dir="$source" archive HEAD "KernelBench/$level" | tar -x -C .carry/KernelBench --strip-components=1
  fi
done
