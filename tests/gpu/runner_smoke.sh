#!/usr/bin/env bash
# Smoke test of kopt-runner on a real GPU (docs/harness-protocol.md §2-4).
#
# Usage: tests/gpu/runner_smoke.sh [KOPT_RUNNER] [WORK_DIR]
#   KOPT_RUNNER  the kopt-runner binary (default: build/src/kopt-runner)
#   WORK_DIR     where candidates and requests are written (default: a temp dir)
#
# Builds a reference and four candidates of a tiny task (y = 2*x + b, f32) the
# way the harness compiler does (wrapper.cu, nvcc -cudart shared -shared),
# runs kopt-runner on each and checks the exit code and events:
#   correct      exit 0: device, 3 passing checks, 1 variant check, timing, done ok
#   wrong        exit 3, failure wrong_output
#   noop         exit 3, failure unwritten_output
#   fixed_size   exit 3, failure wrong_output or unwritten_output at the variant size
#   oob          exit 3, failure illegal_address (sticky error: runner exits at once)
#   mutate       exit 3, failure input_mutated
#   side_stream  exit 3, failure side_stream (correct outputs, work on its own stream)
#   big_smem     exit 3, failure too_many_resources (300 KiB of dynamic shared memory)
#   energy       exit 0 with an energy event (available when NVML works)
#   missing .so  exit 3, failure load_error
#   accumulate   a second task (inout, u8, i64 and f64 scalars): reference vs itself exit 0;
#                a candidate rounding through bf16: exit 3, precision_loss
#   no device    exit 4, failure device_unavailable (CUDA_VISIBLE_DEVICES empty)
#   bad request  exit 2, message naming the field
# Skips (exit 0 with a message) when there is no GPU, nvcc or python3.
set -u

runner=${1:-build/src/kopt-runner}
work=${2:-$(mktemp -d)}
mkdir -p "$work"

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "runner_smoke: SKIP: no NVIDIA GPU here (nvidia-smi -L failed)"; exit 0
fi
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$nvcc" ]; then echo "runner_smoke: SKIP: no nvcc"; exit 0; fi
if ! command -v python3 >/dev/null 2>&1; then echo "runner_smoke: SKIP: no python3"; exit 0; fi
if [ ! -x "$runner" ]; then echo "runner_smoke: FAIL: $runner is not an executable"; exit 1; fi

capability=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d ' .')
arch="sm_${capability}"
echo "runner_smoke: GPU sm_${capability}, work dir $work"

write_wrapper() {  # $1 candidate.cu, $2 wrapper.cu
  cat > "$2" <<WRAPPER
#include <cstdint>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" void affine(const float* x, float* y, int n, float b, cudaStream_t stream);
#include "$1"
extern "C" int kopt_abi_version(void) { return 1; }
extern "C" void kopt_launch(void* const* tensors, const void* const* scalars, cudaStream_t stream) {
  affine(static_cast<const float*>(tensors[0]), static_cast<float*>(tensors[1]),
         *static_cast<const int*>(scalars[0]), *static_cast<const float*>(scalars[1]), stream);
}
WRAPPER
}

build() {  # $1 name; candidate source on stdin
  cat > "$work/$1.cu"
  write_wrapper "$work/$1.cu" "$work/$1_wrapper.cu"
  if ! "$nvcc" -O3 -std=c++17 -lineinfo -arch="$arch" -cudart shared -Xcompiler -fPIC -shared \
      -Xlinker -z,defs -o "$work/$1.so" "$work/$1_wrapper.cu" 2> "$work/$1.nvcc.txt"; then
    echo "runner_smoke: FAIL: nvcc failed for $1:"; cat "$work/$1.nvcc.txt"; exit 1
  fi
}

build reference <<'CU'
__global__ void affine_kernel(const float* x, float* y, int n, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + b;
}
extern "C" void affine(const float* x, float* y, int n, float b, cudaStream_t stream) {
  affine_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n, b);
}
CU
build correct <<'CU'
__global__ void affine_grid_stride(const float* __restrict__ x, float* __restrict__ y, int n, float b) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = fmaf(2.0f, x[i], b);
}
extern "C" void affine(const float* x, float* y, int n, float b, cudaStream_t stream) {
  affine_grid_stride<<<32, 128, 0, stream>>>(x, y, n, b);
}
CU
build wrong <<'CU'
__global__ void affine_wrong(const float* x, float* y, int n, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + b + (i == n / 2 ? 1.0f : 0.0f);
}
extern "C" void affine(const float* x, float* y, int n, float b, cudaStream_t stream) {
  affine_wrong<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n, b);
}
CU
build noop <<'CU'
extern "C" void affine(const float*, float*, int, float, cudaStream_t) {}
CU
build fixed_size <<'CU'
__global__ void affine_fixed(const float* x, float* y, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 1000) y[i] = 2.0f * x[i] + b;  // hard-coded for the visible size
}
extern "C" void affine(const float* x, float* y, int, float b, cudaStream_t stream) {
  affine_fixed<<<4, 256, 0, stream>>>(x, y, b);
}
CU
build oob <<'CU'
__global__ void affine_oob(const float* x, float* y, int n, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i + (1 << 28)] = 2.0f * x[i] + b;
}
extern "C" void affine(const float* x, float* y, int n, float b, cudaStream_t stream) {
  affine_oob<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n, b);
}
CU
build mutate <<'CU'
__global__ void affine_mutate(const float* x, float* y, int n, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + b;
  if (i == 0) const_cast<float*>(x)[n - 1] = 0.0f;  // writes its input
}
extern "C" void affine(const float* x, float* y, int n, float b, cudaStream_t stream) {
  affine_mutate<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n, b);
}
CU
build side_stream <<'CU'
__global__ void affine_slow(const float* x, float* y, int n, float b) {
  long long start = clock64();
  while (clock64() - start < 200000) {}  // about 100 us
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = 2.0f * x[i] + b;
}
extern "C" void affine(const float* x, float* y, int n, float b, cudaStream_t) {
  static cudaStream_t side = [] { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); return s; }();
  affine_slow<<<4, 256, 0, side>>>(x, y, n, b);  // not on the harness stream
}
CU
build big_smem <<'CU'
__global__ void affine_smem(const float* x, float* y, int n, float b) {
  extern __shared__ float buffer[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buffer[threadIdx.x] = i < n ? x[i] : 0.0f;
  if (i < n) y[i] = 2.0f * buffer[threadIdx.x] + b;
}
extern "C" void affine(const float* x, float* y, int n, float b, cudaStream_t stream) {
  affine_smem<<<(n + 255) / 256, 256, 300 * 1024, stream>>>(x, y, n, b);
}
CU

write_request() {  # $1 candidate .so, $2 request path, [$3 energy JSON]
  cat > "$2" <<JSON
{"schema": "kopt.runner.request/1",
 "task": {"name": "affine", "entry": "affine",
          "tensors": [{"name": "x", "dtype": "f32", "shape": [1000], "role": "input",
                       "init": {"kind": "heavy_tailed", "alpha": 3.0, "scale": 1.0}},
                      {"name": "y", "dtype": "f32", "shape": [1000], "role": "output", "init": {"kind": "none"}}],
          "scalars": [{"name": "n", "type": "i32", "value": 1000}, {"name": "b", "type": "f32", "value": 0.5}],
          "tolerances": {"f32": {"rtol": 1e-5, "atol": 1e-6}}},
 "candidate_library": "$1", "reference_library": "$work/reference.so",
 "seeds": [11, 12, 13],
 "check_variants": [{"scalars": {"n": 1500, "b": 0.5}, "shapes": {"x": [1500], "y": [1500]}}],
 "check": true,
 "timing": {"warmup_seconds": 0.05, "min_samples": 10, "max_samples": 200, "max_relative_stdev": 0.05,
            "min_gpu_seconds": 0.0001, "timeout_seconds": 2.0, "cold": false, "rotate_input_sets": true},
 "energy": ${3:-null}, "device": 0, "cpu_seconds": 60}
JSON
}

failures=0
check_case() {  # $1 name, $2 expected exit, $3 python condition over `events` (list of dicts), [$4 library, $5 energy]
  local name=$1 want=$2 condition=$3
  write_request "$work/${4:-$name}.so" "$work/$name.request.json" "${5:-null}"
  timeout 120 "$runner" "$work/$name.request.json" > "$work/$name.events" 2> "$work/$name.stderr"
  local got=$?
  if python3 - "$work/$name.events" "$condition" <<'PY'
import json, sys
events = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
# Every event carries the seconds since the runner started, never decreasing.
elapsed = [e.pop("elapsed_s") for e in events]
if elapsed != sorted(elapsed) or any(not isinstance(x, float) or x < 0 for x in elapsed):
    sys.exit(1)
kinds = [e["event"] for e in events]
failure = next((e for e in events if e["event"] == "failure"), None)
checks = [e for e in events if e["event"] == "check"]
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
  then condition_ok=1; else condition_ok=0; fi
  if [ "$got" = "$want" ] && [ $condition_ok = 1 ]; then
    echo "runner_smoke: ok   $name (exit $got)"
  else
    echo "runner_smoke: FAIL $name: exit $got (want $want), condition $condition: $condition_ok"
    echo "  events:"; sed 's/^/    /' "$work/$name.events"; echo "  stderr:"; sed 's/^/    /' "$work/$name.stderr"
    failures=$((failures + 1))
  fi
}

check_case correct 0 'kinds[0] == "device" and len(checks) == 4 and all(c["passed"] for c in checks) and checks[3].get("variant") == 0 and "timing" in kinds and events[-1] == {"event": "done", "ok": True}'
check_case wrong 3 'failure["kind"] == "wrong_output" and "index 500" in failure["message"] and events[-1]["ok"] is False'
check_case noop 3 'failure["kind"] == "unwritten_output" and checks[0]["outputs"][0]["unwritten"] == 1000'
check_case fixed_size 3 'failure["kind"] in ("wrong_output", "unwritten_output") and "variant 0" in failure["message"]'
check_case oob 3 'failure["kind"] == "illegal_address" and events[-1]["ok"] is False'
check_case mutate 3 'failure["kind"] == "input_mutated" and "\"x\"" in failure["message"]'
check_case side_stream 3 'failure["kind"] == "side_stream" and "timing" in kinds'
check_case big_smem 3 'failure["kind"] == "too_many_resources"'
check_case energy 0 'any(e["event"] == "energy" and (e["available"] or "reason" in e) for e in events) and events[-1]["ok"] is True' correct '{"window_seconds": 1.0, "idle_seconds": 0.5}'
check_case missing 3 'failure["kind"] == "load_error" and "no such file" in failure["message"]'

# A second task: an inout f32 tensor, i64 and f64 scalars, a u8 input
# (acc[i] += s * x[i] * k[i]); a candidate that rounds through bf16 is
# precision_loss.
write_wrapper_accumulate() {  # $1 candidate.cu, $2 wrapper.cu
  cat > "$2" <<WRAPPER
#include <cstdint>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" void accumulate(const float* x, const uint8_t* k, float* acc, int64_t n, double s, cudaStream_t stream);
#include "$1"
extern "C" int kopt_abi_version(void) { return 1; }
extern "C" void kopt_launch(void* const* tensors, const void* const* scalars, cudaStream_t stream) {
  accumulate(static_cast<const float*>(tensors[0]), static_cast<const uint8_t*>(tensors[1]),
             static_cast<float*>(tensors[2]), *static_cast<const int64_t*>(scalars[0]),
             *static_cast<const double*>(scalars[1]), stream);
}
WRAPPER
}
build_accumulate() {  # $1 name; candidate source on stdin
  cat > "$work/$1.cu"
  write_wrapper_accumulate "$work/$1.cu" "$work/$1_wrapper.cu"
  "$nvcc" -O3 -std=c++17 -arch="$arch" -cudart shared -Xcompiler -fPIC -shared -Xlinker -z,defs \
    -o "$work/$1.so" "$work/$1_wrapper.cu" 2> "$work/$1.nvcc.txt" || { cat "$work/$1.nvcc.txt"; exit 1; }
}
build_accumulate acc_reference <<'CU'
__global__ void acc_kernel(const float* x, const uint8_t* k, float* acc, int64_t n, double s) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) acc[i] += (float)(s * x[i] * k[i]);
}
extern "C" void accumulate(const float* x, const uint8_t* k, float* acc, int64_t n, double s, cudaStream_t stream) {
  acc_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, k, acc, n, s);
}
CU
build_accumulate acc_bf16 <<'CU'
__global__ void acc_kernel(const float* x, const uint8_t* k, float* acc, int64_t n, double s) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) acc[i] = __bfloat162float(__float2bfloat16(acc[i] + (float)(s * x[i] * k[i])));
}
extern "C" void accumulate(const float* x, const uint8_t* k, float* acc, int64_t n, double s, cudaStream_t stream) {
  acc_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, k, acc, n, s);
}
CU
for name in acc_reference acc_bf16; do
  cat > "$work/$name.request.json" <<JSON
{"schema": "kopt.runner.request/1",
 "task": {"name": "accumulate", "entry": "accumulate",
          "tensors": [{"name": "x", "dtype": "f32", "shape": [4096], "role": "input", "init": {"kind": "uniform", "low": 1.0, "high": 2.0}},
                      {"name": "k", "dtype": "u8", "shape": [4096], "role": "input", "init": {"kind": "int_range", "low": 1, "high": 9}},
                      {"name": "acc", "dtype": "f32", "shape": [4096], "role": "inout", "init": {"kind": "normal", "mean": 10.0, "stddev": 1.0}}],
          "scalars": [{"name": "n", "type": "i64", "value": 4096}, {"name": "s", "type": "f64", "value": 0.25}],
          "tolerances": {"f32": {"rtol": 1e-5, "atol": 1e-6}}},
 "candidate_library": "$work/$name.so", "reference_library": "$work/acc_reference.so",
 "seeds": [5, 6], "check": true, "timing": null, "energy": null, "device": 0}
JSON
done
"$runner" "$work/acc_reference.request.json" > "$work/acc_reference.events" 2>&1; got_reference=$?
"$runner" "$work/acc_bf16.request.json" > "$work/acc_bf16.events" 2>&1; got_bf16=$?
if [ $got_reference = 0 ] && [ $got_bf16 = 3 ] && grep -q '"kind":"precision_loss"' "$work/acc_bf16.events"; then
  echo "runner_smoke: ok   inout_scalars (exit 0) and precision_loss (exit 3)"
else
  echo "runner_smoke: FAIL inout/precision_loss: exits $got_reference $got_bf16"
  cat "$work/acc_reference.events" "$work/acc_bf16.events"; failures=$((failures + 1))
fi

# No visible device: exit 4, failure device_unavailable.
write_request "$work/correct.so" "$work/nodevice.request.json"
CUDA_VISIBLE_DEVICES= "$runner" "$work/nodevice.request.json" > "$work/nodevice.events" 2> "$work/nodevice.stderr"
got=$?
if [ $got = 4 ] && grep -q '"kind":"device_unavailable"' "$work/nodevice.events"; then
  echo "runner_smoke: ok   no_device (exit 4)"
else
  echo "runner_smoke: FAIL no_device: exit $got"; cat "$work/nodevice.events"; failures=$((failures + 1))
fi

# A bad request: exit 2 and a message naming the field, no events.
write_request "$work/correct.so" "$work/bad.request.json"
sed -i 's/"dtype": "f32", "shape": \[1000\], "role": "output"/"dtype": "fp32", "shape": [1000], "role": "output"/' "$work/bad.request.json"
"$runner" "$work/bad.request.json" > "$work/bad.events" 2> "$work/bad.stderr"
got=$?
if [ $got = 2 ] && grep -q 'task.tensors\[1\].dtype' "$work/bad.stderr" && [ ! -s "$work/bad.events" ]; then
  echo "runner_smoke: ok   bad_request (exit 2)"
else
  echo "runner_smoke: FAIL bad_request: exit $got"; cat "$work/bad.stderr"; failures=$((failures + 1))
fi

if [ $failures -gt 0 ]; then echo "runner_smoke: $failures case(s) FAILED"; exit 1; fi
echo "runner_smoke: all cases passed"
