#!/usr/bin/env bash
# Runs the whole test suite: unit tests, golden end-to-end tests of the kopt
# binary, and the fuzz targets' corpus replays. GPU tests skip without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_dependencies.sh
cmake --preset default > /dev/null
cmake --build --preset default
ctest --preset default --parallel "$(nproc)"
