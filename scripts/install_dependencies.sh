#!/usr/bin/env bash
# Installs the Debian 12 packages kopt needs to build and test (the Slurm
# tests' slurmctld, slurmd, slurm-client and munge among them: tests/slurm/
# starts its own one-node cluster, never the system's services), then the
# nvidia-cutlass wheel (the CUTLASS/CuTe headers for `--cutlass`, docs/llm.md
# "Tools"). Idempotent: installs only what is missing. The packages need root
# (or sudo); the wheel is skipped, with a note, when pip is not available.
#   scripts/install_dependencies.sh              the build and test dependencies
#   scripts/install_dependencies.sh --optional   also the optional test ones: chromium, chromium-driver and
#                                                python3-selenium for the HTML layout check (ctest html_layout,
#                                                skipped without them)
set -euo pipefail
optional=(chromium chromium-driver python3-selenium)
packages=(
  cmake ninja-build g++ pkg-config
  libfmt-dev nlohmann-json3-dev libcli11-dev libtomlplusplus-dev
  libgtest-dev libgmock-dev
  libcurl4-openssl-dev libsqlite3-dev libssl-dev libdtl-dev libeigen3-dev
  slurmctld slurmd slurm-client munge
)
[ "${1:-}" = "--optional" ] && packages+=("${optional[@]}")
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "kopt: all build dependencies are installed"
else
  echo "kopt: installing ${missing[*]}"
  sudo_prefix=()
  [ "$(id -u)" -eq 0 ] || sudo_prefix=(sudo)
  "${sudo_prefix[@]}" apt-get update -qq
  # The Slurm and munge packages' scripts would start the system's daemons (without a
  # configuration: they fail); the tests start their own. A policy-rc.d that denies starting
  # services, only while installing and only where none is there.
  policy=/usr/sbin/policy-rc.d
  added_policy=no
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | "${sudo_prefix[@]}" tee "$policy" > /dev/null
    "${sudo_prefix[@]}" chmod +x "$policy"
    added_policy=yes
  fi
  DEBIAN_FRONTEND=noninteractive "${sudo_prefix[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
  if [ "$added_policy" = yes ]; then "${sudo_prefix[@]}" rm -f "$policy"; fi
fi

# CUTLASS/CuTe headers and examples: the nvidia-cutlass wheel (PyPI) ships
# them under cutlass_library/source/. Only the headers are used, so the
# wheel's Python dependencies (cuda-python, scipy, ...) are not installed.
# Optional: kopt builds and tests without it.
if ! command -v python3 > /dev/null || ! python3 -m pip --version > /dev/null 2>&1; then
  echo "kopt: pip not available: skipping the nvidia-cutlass wheel (--cutlass needs it; --cutlass-dir DIR does not)"
elif python3 -c "import importlib.util as u, sys; sys.exit(0 if u.find_spec('cutlass_library') else 1)" 2> /dev/null; then
  echo "kopt: the nvidia-cutlass wheel is installed"
else
  echo "kopt: installing the nvidia-cutlass wheel (CUTLASS/CuTe headers)"
  python3 -m pip install --quiet --no-deps nvidia-cutlass ||
    echo "kopt: pip could not install nvidia-cutlass: --cutlass is unavailable (--cutlass-dir DIR still works)"
fi
