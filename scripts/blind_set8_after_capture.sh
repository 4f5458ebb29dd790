#!/usr/bin/env bash
# Turns the H200 capture of blind example set 8 (examples/blind_set8/, issue 18) into its fixtures and its
# accuracy table, on a machine without a GPU:
#   scripts/blind_set8_after_capture.sh CAPTURE [CAPTURE_LOG]   (from the repository root)
# CAPTURE: the blind_set8.tar.gz that `OUT=... SET=blind_set8 CALIBRATE=0 TARGETED=0
# scripts/capture_h200_blind.sh` wrote (or the folder it unpacks to); EXTRA=ANOTHER.tar.gz adds what a
# second capture (ONLY=... TAR_NAME=...) holds and the first lacks. The steps are blind set 3's
# (scripts/blind_set3_after_capture.sh: trim, expected.toml from the labels committed before the capture,
# checks, diagnosis_accuracy), with set 8's folders: tests/fixtures/h200_blind8/ and
# bench/results/diagnosis_accuracy_blind8.md. The labels are never changed after the capture.
set -euo pipefail
SET=blind_set8 FIX=${FIX:-tests/fixtures/h200_blind8} RESULT=${RESULT:-bench/results/diagnosis_accuracy_blind8.md} \
  exec "$(dirname "${BASH_SOURCE[0]}")/blind_set3_after_capture.sh" "$@"
