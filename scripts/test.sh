#!/usr/bin/env bash
# Runs the whole test suite: unit tests, golden end-to-end tests of the kopt
# binary, and the fuzz targets' corpus replays. GPU tests skip without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
# --optional: also chromium, chromium-driver and python3-selenium, so the HTML layout check (ctest
# html_layout) runs instead of skipping. Measured on the shared 2-core dev machine under load: the
# packages install in 2 min 24 s once (a download of about 100 MB; nothing when already installed),
# the check takes 2 min 25 s wall there, 9.6 s of CPU.
scripts/install_dependencies.sh --optional
cmake --preset default > /dev/null
cmake --build --preset default
ctest --preset default --parallel "$(nproc)"
