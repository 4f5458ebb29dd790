#!/usr/bin/env bash
# Installs the Debian 12 packages kopt needs to build and test. Idempotent:
# installs only what is missing. Needs root (or sudo).
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
  libcurl4-openssl-dev libsqlite3-dev libssl-dev libdtl-dev
)
[ "${1:-}" = "--optional" ] && packages+=("${optional[@]}")
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "kopt: all build dependencies are installed"
  exit 0
fi
echo "kopt: installing ${missing[*]}"
sudo_prefix=()
[ "$(id -u)" -eq 0 ] || sudo_prefix=(sudo)
"${sudo_prefix[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_prefix[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
