# Helpers the GPU-machine scripts share (sourced, not run; bash). Binaries come
# carried under the repository root: .carry/bin (kopt, kopt-runner, kopt_tests:
# scripts/package_for_device.sh), .carry/old/bin (a baseline harness:
# scripts/package_old_harness.sh), .carry/lib (their shared libraries).
#
#   device_require_gpu [MESSAGE_COMMAND]   exit 77 ("no GPU: skipped") unless
#       nvidia-smi lists a GPU; MESSAGE_COMMAND (default echo) prints the line.
#       Puts /usr/local/cuda/bin first on PATH.
#   device_wrap NAME BINARY [DIR]   writes DIR/NAME (default .carry/bin), a
#       launcher that runs BINARY with the carried libraries on
#       LD_LIBRARY_PATH (for kopt's binaries only: Python keeps its own);
#       prints its path.
#   step NAME COMMAND...   runs COMMAND when STEPS selects NAME, its stdout
#       and stderr in $STEP_DIR/NAME.out and .err, and appends one line to
#       $STEP_SUMMARY (and stdout): the name, exit code, seconds and the last
#       $STEP_TAIL_BYTES (300) bytes of its output. Then runs $STEP_AFTER, a
#       command (for example one that refreshes an archive), when set.
#   step_skip NAME REASON   the summary line of a step that cannot run here.
#   wanted NAME   whether STEPS selects NAME. STEPS unset or empty: every step
#       but those listed in STEP_OPTIONAL. Otherwise STEPS is a list of words,
#       each a shell pattern for whole names ("throughput*"); a word that ends
#       in "_" selects the names it begins ("bench_").
#
# Settings read by step: STEP_DIR, STEP_SUMMARY (required), STEP_TAIL_BYTES,
# STEP_AFTER, STEP_OPTIONAL, STEPS.

DEVICE_LIBRARIES=$PWD/.carry/lib:/usr/local/cuda/lib64

device_require_gpu() {
  local say=${1:-echo}
  if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
    "$say" "no GPU: skipped"
    exit 77
  fi
  export PATH=/usr/local/cuda/bin:$PATH
}

device_wrap() {
  local dir=${3:-$PWD/.carry/bin}
  mkdir -p "$dir"
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$DEVICE_LIBRARIES" "$2" > "$dir/$1"
  chmod +x "$dir/$1"
  echo "$dir/$1"
}

wanted() {
  local - s
  set -f  # the words of STEPS are patterns, not file names
  if [ -z "${STEPS:-}" ]; then
    for s in ${STEP_OPTIONAL:-}; do [ "$1" = "$s" ] && return 1; done
    return 0
  fi
  for s in $STEPS; do
    case $s in *_) s="$s*" ;; esac
    # shellcheck disable=SC2254
    case $1 in $s) return 0 ;; esac
  done
  return 1
}

step() {
  local name=$1
  shift
  wanted "$name" || return 0
  local start code
  start=$(date +%s.%N)
  "$@" > "$STEP_DIR/$name.out" 2> "$STEP_DIR/$name.err"
  code=$?
  printf '%-28s exit %-3s %6.1f s  %s\n' "$name" "$code" "$(awk "BEGIN{print $(date +%s.%N) - $start}")" \
    "$(cat "$STEP_DIR/$name.out" "$STEP_DIR/$name.err" | tail -c "${STEP_TAIL_BYTES:-300}" | tr '\n' ' ')" |
    tee -a "$STEP_SUMMARY"
  if [ -n "${STEP_AFTER:-}" ]; then $STEP_AFTER; fi
  return 0
}

step_skip() {
  wanted "$1" || return 0
  printf '%-28s skipped  %s\n' "$1" "$2" | tee -a "$STEP_SUMMARY"
}
