#!/usr/bin/env bash
# Writes the SASS listing of a .cu file with source lines (`nvdisasm -g -c`: a `//## File "…", line N`
# comment before the instructions of each line), built as the H200 fixtures are built
# (scripts/capture_h200_fixtures.sh: nvcc -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a). No GPU
# needed; nvdisasm comes with the CUDA toolkit or the PyPI wheel nvidia-cuda-nvdisasm
# (site-packages/nvidia/cu13/bin/nvdisasm). File paths in the comments are made relative to the
# repository root. kopt reads the listing with --sass and shows the source line of each location.
#   scripts/sass_lineinfo_listing.sh KERNEL.cu OUT.txt [NVDISASM]
# Made tests/fixtures/h200/uncoalesced_loads/sass_lineinfo.txt (nvcc 13.0.88, the H200 capture's; its
# instructions equal the captured sass.txt's; nvdisasm 13.2.51).
set -euo pipefail
source=$1
out=$2
nvdisasm=${3:-nvdisasm}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvcc -cubin -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -o "$work/kernel.cubin" "$source"
"$nvdisasm" -g -c "$work/kernel.cubin" | sed "s|\"$root/|\"|g" > "$out"
