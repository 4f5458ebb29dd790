#!/usr/bin/env bash
# Quickstart, step 1: install dependencies, build kopt, and explain a bundled
# H200 profile (no GPU needed).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_dependencies.sh
cmake --preset default > /dev/null
cmake --build --preset default
echo
echo "\$ build/src/kopt explain tests/fixtures/h200/uncoalesced_loads/raw.csv"
build/src/kopt explain tests/fixtures/h200/uncoalesced_loads/raw.csv
