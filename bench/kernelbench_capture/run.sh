#!/bin/bash
# h16 round-1 capture: KernelBench references measured with PyTorch, and
# KernelBench's own evaluation of one ModelNew candidate, cold then warm.
# Writes $OUT/h16.tar.gz. Budget: about 3 minutes.
set -u
D=$(cd "$(dirname "$0")" && pwd)
R=$(mktemp -d)/h16; mkdir -p "$R"
START=$(date +%s)
{
  python3 -c "import torch,sys; print('python', sys.version.split()[0]); print('torch', torch.__version__, 'cuda', torch.version.cuda)"
  for m in numpy pydantic requests ninja; do python3 -c "import $m; print('$m ok')" 2>&1 | tail -1; done
  which ninja nvcc g++ c++; nvcc --version | tail -2
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  python3 -c "import torch.utils.cpp_extension as c; print('torch include', c.include_paths()[:2])"
  ls /usr/include/python3.12/Python.h 2>&1; ls /usr/lib/x86_64-linux-gnu/libpython3* 2>&1
} > "$R/env.txt" 2>&1
timeout 75 python3 "$D/measure_refs.py" "$D/problems" "$R/refs.json" 50 > "$R/refs.log" 2>&1
echo "refs rc=$? at $(( $(date +%s) - START )) s" >> "$R/steps.txt"
B=$(mktemp -d)/kb_build
PROB="$D/problems/level1/88_MinGPTNewGelu.py"; CAND="$D/candidates/88_MinGPTNewGelu_modelnew.py"
T0=$(date +%s.%N); timeout 90 python3 "$D/kb_eval_driver.py" "$D/kernelbench" "$PROB" "$CAND" "$B" > "$R/kb_cold.log" 2>&1
RC=$?; echo "kb cold wall $(echo "$(date +%s.%N) - $T0" | python3 -c "import time;print(time.time()-$T0)") s rc=$RC" >> "$R/steps.txt"
echo "kb cold rc=$? at $(( $(date +%s) - START )) s" >> "$R/steps.txt"
LEFT=$(( 170 - ($(date +%s) - START) ))
if [ $LEFT -gt 15 ]; then
  T0=$(date +%s.%N); timeout $LEFT python3 "$D/kb_eval_driver.py" "$D/kernelbench" "$PROB" "$CAND" "$B" > "$R/kb_warm.log" 2>&1
  RC=$?; echo "kb warm wall $(python3 -c "import time;print(time.time()-$T0)") s rc=$RC" >> "$R/steps.txt"
  echo "kb warm rc=$? at $(( $(date +%s) - START )) s" >> "$R/steps.txt"
fi
ls -la "$B" > "$R/kb_build_dir.txt" 2>&1
tar -czf "$OUT/h16.tar.gz" -C "$(dirname "$R")" h16
