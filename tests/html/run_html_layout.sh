#!/usr/bin/env bash
# The HTML layout check of issue 19: renders kopt's HTML report of several profiles (many kernels with long
# names and 1,000 launches of one; single kernels with rooflines of every kind) and checks them in headless
# Chromium at 1280 and 800 px (tests/html/check_html_layout.py: overflow, overlap, screenshots).
#   tests/html/run_html_layout.sh KOPT_BINARY OUT_DIR
# Exit status: 0 clean, 1 problems, 77 skipped (no chromium / chromium-driver / python3-selenium).
set -u
kopt=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$out"
# Debian's python3-selenium is for /usr/bin/python3; another python3 first on PATH may lack it.
python=""
for candidate in python3 /usr/bin/python3; do
  "$candidate" -c 'import selenium' 2>/dev/null && { python=$candidate; break; }
done
[ -n "$python" ] || { echo "skipped: python3-selenium is not installed"; exit 77; }
command -v chromedriver > /dev/null || { echo "skipped: chromium-driver is not installed"; exit 77; }
python3 "$here/make_many_kernels_csv.py" "$root/tests/fixtures/exports/raw_44_launches_of_one_kernel.csv" \
  "$out/many_kernels.csv" || exit 1
reports=()
"$kopt" explain "$out/many_kernels.csv" --gpu h200 -o "$out/many_kernels.html" || exit 1
reports+=("$out/many_kernels.html")
for kernel in uncoalesced_loads hmma_on_hopper fp32_gemm_no_tensor_cores accidental_fp64 healthy_dram_copy \
  shared_bank_conflicts launch_overhead; do
  "$kopt" explain "$root/tests/fixtures/h200/$kernel/raw.csv" -o "$out/$kernel.html" || exit 1
  reports+=("$out/$kernel.html")
done
"$kopt" explain "$root/tests/fixtures/exports/details_default_with_stdout.csv" --gpu h200 -o "$out/details_page.html" || exit 1
reports+=("$out/details_page.html")
"$python" "$here/check_html_layout.py" "$out/png" "${reports[@]}"
