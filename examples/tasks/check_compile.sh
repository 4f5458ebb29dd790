#!/usr/bin/env bash
# Compile-checks task sources exactly as `kopt bench` builds them
# (docs/harness-protocol.md §2): a generated wrapper.cu that declares the
# task's entry point, #includes the candidate, and defines kopt_launch; then
#   nvcc -O3 -std=c++17 -lineinfo -arch=ARCH -cudart shared -Xcompiler -fPIC
#        -shared -Xlinker -z,defs -o candidate.so wrapper.cu
#
# Usage:
#   examples/tasks/check_compile.sh                 every reference.cu,
#                                                   candidates/*.cu and tunable/*.cu (with
#                                                   their default values) under examples/tasks
#   examples/tasks/check_compile.sh TASK_DIR FILE.cu [FILE.cu ...]
#   examples/tasks/check_compile.sh --wrapper TASK_DIR FILE.cu   print the wrapper only
# Environment: NVCC (default /usr/local/cuda/bin/nvcc), ARCH (default sm_90a),
# KEEP_DIR (keep wrappers and .so files there instead of a temporary folder).
# Exit status: 0 when every file compiled, 1 otherwise (each failure printed
# with the compiler's output). Needs python3 >= 3.11 (tomllib) and nvcc; no GPU.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
ARCH="${ARCH:-sm_90a}"

# Prints the wrapper of docs/harness-protocol.md §2 for task dir $1, source $2.
make_wrapper() {
  python3 - "$1" "$2" <<'PY'
import sys, tomllib, os
task_dir, source = sys.argv[1], os.path.abspath(sys.argv[2])
with open(os.path.join(task_dir, "task.toml"), "rb") as f:
    task = tomllib.load(f)
ctype = {"f64": "double", "f32": "float", "f16": "__half", "bf16": "__nv_bfloat16",
         "i64": "int64_t", "i32": "int32_t", "u8": "uint8_t"}
stype = {"i32": "int", "i64": "int64_t", "f32": "float", "f64": "double"}
entry = task["task"]["entry"]
params, args = [], []
for i, t in enumerate(task.get("tensor", [])):
    c = ctype[t["dtype"]]
    const = "const " if t["role"] == "input" else ""
    params.append(f"{const}{c}* {t['name']}")
    args.append(f"static_cast<{const}{c}*>(tensors[{i}])")
for i, s in enumerate(task.get("scalar", [])):
    c = stype[s["type"]]
    params.append(f"{c} {s['name']}")
    args.append(f"*static_cast<const {c}*>(scalars[{i}])")
params.append("cudaStream_t stream")
args.append("stream")
print("#include <cstdint>\n#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>")
print(f'extern "C" void {entry}({", ".join(params)});')
print(f'#include "{source}"')
print('extern "C" int kopt_abi_version(void) { return 1; }')
print('extern "C" void kopt_launch(void* const* tensors, const void* const* scalars, cudaStream_t stream) {')
print(f'  {entry}({", ".join(args)});')
print("}")
PY
}

# Compiles $2 for task dir $1; prints OK/FAIL; returns nvcc's status.
compile_one() {
  local task_dir="$1" source="$2" work
  work="${KEEP_DIR:-$(mktemp -d)}"
  mkdir -p "$work"
  local stem
  stem="$(basename "$task_dir")__$(basename "${source%.cu}")"
  make_wrapper "$task_dir" "$source" >"$work/$stem.wrapper.cu" || return 1
  local start=$SECONDS
  if "$NVCC" -O3 -std=c++17 -lineinfo -arch="$ARCH" -cudart shared -Xcompiler -fPIC -shared \
      -Xlinker -z,defs -o "$work/$stem.so" "$work/$stem.wrapper.cu" >"$work/$stem.log" 2>&1; then
    echo "OK    $source ($((SECONDS - start)) s)"
    [ -z "${KEEP_DIR:-}" ] && rm -rf "$work"
    return 0
  fi
  echo "FAIL  $source"
  cat "$work/$stem.log"
  [ -z "${KEEP_DIR:-}" ] && rm -rf "$work"
  return 1
}

if [ "${1:-}" = "--wrapper" ]; then
  make_wrapper "$2" "$3"
  exit $?
fi

status=0
if [ $# -ge 2 ]; then
  task_dir="$1"
  shift
  for source in "$@"; do compile_one "$task_dir" "$source" || status=1; done
  exit $status
fi
for task_dir in "$here"/*/; do
  task_dir="${task_dir%/}"
  [ -f "$task_dir/task.toml" ] || continue
  for source in "$task_dir/reference.cu" "$task_dir"/candidates/*.cu "$task_dir"/tunable/*.cu; do
    [ -f "$source" ] || continue
    compile_one "$task_dir" "$source" || status=1
  done
done
exit $status
