#!/usr/bin/env bash
# Renders a kopt HTML report to a PNG with headless Chromium (Debian's
# `chromium` package), so a person can look at it without a browser.
#
# Usage: scripts/render_html_to_png.sh IN.html OUT.png [WIDTH [HEIGHT]]
#   WIDTH and HEIGHT are the window size in pixels (default 1280 × 2000); the
#   screenshot shows the top HEIGHT pixels of the page.
#
# Exit status: 0 on success; 2 on bad usage or a missing input; 1 when
# Chromium fails or writes no image.
set -euo pipefail

if [[ $# -lt 2 || $# -gt 4 ]]; then
  echo "usage: $0 IN.html OUT.png [WIDTH [HEIGHT]]" >&2
  exit 2
fi
input=$1
output=$2
width=${3:-1280}
height=${4:-2000}

if [[ ! -f "$input" ]]; then
  echo "$0: $input: no such file" >&2
  exit 2
fi
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$browser" ]]; then
  echo "$0: chromium is not installed (Debian: apt-get install chromium)" >&2
  exit 2
fi

input_path=$(realpath "$input")
output_path=$(realpath -m "$output")
profile_dir=$(mktemp -d)  # a private profile, so several renders can run at once
trap 'rm -rf "$profile_dir"' EXIT

rm -f "$output_path"
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
  --user-data-dir="$profile_dir" --window-size="$width,$height" --screenshot="$output_path" \
  "file://$input_path" >"$profile_dir/chromium.log" 2>&1 || {
  echo "$0: chromium failed; its output:" >&2
  cat "$profile_dir/chromium.log" >&2
  exit 1
}
if [[ ! -s "$output_path" ]]; then
  echo "$0: chromium wrote no image to $output_path; its output:" >&2
  cat "$profile_dir/chromium.log" >&2
  exit 1
fi
echo "$output_path"
