#!/bin/bash
# A stand-in for one problem's resumable `kopt optimize` run in the Slurm tests: evaluations
# 1..N, each taking SECONDS, recorded in JOURNAL (one line "N" per finished evaluation, appended
# after it ends, as kopt's run state journal is); a restarted run continues after the last line.
# Every evaluation that starts is logged to JOURNAL.started, so a test can count evaluations
# that ran (started) and that finished twice. Two instances of one problem at once are an error
# (flock): exit 3 and a line in JOURNAL.concurrent. SIGTERM stops it between or during
# evaluations with exit 143, as kopt optimize's interrupt handling does.
# usage: fake_optimize.sh JOURNAL N SECONDS [--devices LIST]
set -u
journal=$1
count=$2
seconds=$3
exec 9>>"$journal.lock"
if ! flock -n 9; then
  echo "concurrent run of $journal" >>"$journal.concurrent"
  exit 3
fi
trap 'exit 143' TERM
touch "$journal"
done_count=$(wc -l <"$journal")
for ((evaluation = done_count + 1; evaluation <= count; ++evaluation)); do
  echo "$evaluation ${SLURM_JOB_ID:-local}" >>"$journal.started"
  sleep "$seconds" &
  wait $!
  echo "$evaluation" >>"$journal"
done
exit 0
