#!/usr/bin/env bash
# h15x (issue 15, energy in explain): ncu --set full profiles of an element-wise swish with IEEE
# division + accurate expf (swish_ieee) and with the intrinsics (swish_fast): the fixture of the
# energy-only finding hidden_compute_energy. Writes $OUT/h15x.tar.gz. About 1 minute.
set -u
here=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
R=$W/h15x
mkdir -p $R
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2
  ncu --version | tail -1
} > $R/env.txt 2>&1
nvcc -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -o $W/swish $here/swish.cu > $R/ptxas.txt 2>&1
cuobjdump -sass $W/swish > $R/sass.txt 2>&1
timeout 60 $W/swish > $R/run.txt 2>&1
for k in swish_ieee swish_fast; do
  mkdir -p $R/$k
  cp $R/sass.txt $R/ptxas.txt $R/$k/
  LC_ALL=C timeout 100 ncu --set full --clock-control none --import-source yes -k "regex:^$k\$" -c 1 -f \
    -o $W/$k $W/swish > $R/$k/ncu_log.txt 2>&1
  LC_ALL=C ncu --import $W/$k.ncu-rep --page raw --csv --print-units base > $R/$k/raw.csv 2>> $R/$k/ncu_log.txt
  LC_ALL=C ncu --import $W/$k.ncu-rep --page source --csv --print-source sass > $R/$k/source.csv 2>> $R/$k/ncu_log.txt
done
cp $here/swish.cu $here/run.sh $R/
tar -C $W -czf "$OUT/h15x.tar.gz" h15x
ls -la $R $R/* >&2
