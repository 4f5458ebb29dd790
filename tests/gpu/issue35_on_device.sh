#!/usr/bin/env bash
# Issue 35 on a GPU machine: the installed kopt (cmake --install) and -o targets that must never be
# replaced, on live collection and kopt bench, as root (a container: the case where a temp file and
# rename replaced /dev/null).
#
# Run from the repository root with OUT set, after `cmake --preset default && cmake --build --preset
# default` (build/ holds kopt, kopt-runner, kopt-launcher, libkopt_timeline.so). About 2 minutes.
# Writes $OUT/issue35/summary.txt (one PASS/FAIL line per check) and the logs beside it.
set -u
root=$PWD
result=$OUT/issue35
mkdir -p "$result"
summary=$result/summary.txt
: > "$summary"
check() {  # $1: label, $2: 0 for pass
  if [ "$2" = 0 ]; then echo "PASS $1" >> "$summary"; else echo "FAIL $1" >> "$summary"; fi
}
prefix=$(mktemp -d)
cmake --install build --prefix "$prefix" > "$result/install.log" 2>&1
check "cmake --install" $?
ls -la "$prefix/bin" >> "$result/install.log"
export PATH="$prefix/bin:$PATH"
kopt --version > "$result/version.txt" 2>&1
grep -Eq '^kopt [0-9.]+ \(commit [0-9a-f]+' "$result/version.txt"
check "kopt --version names the commit" $?
[ -x "$prefix/bin/kopt-runner" ]
check "kopt-runner installed beside kopt" $?

work=$(mktemp -d)
cd "$work" || exit 1
cp "$root/examples/kernels/uncoalesced_loads.cu" .
# Live collection into /dev/null: the device stays a character device.
timeout 240 kopt explain uncoalesced_loads.cu -o /dev/null > "$result/explain_devnull.log" 2>&1
rc=$?
[ "$rc" = 0 ] && [ -c /dev/null ]
check "explain x.cu -o /dev/null (rc $rc), /dev/null still a device" $?
# Into /dev/full: exit 2 naming ENOSPC, the device stays.
timeout 240 kopt explain uncoalesced_loads.cu --work-dir full_run -o /dev/full > "$result/explain_devfull.log" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "No space left on device" "$result/explain_devfull.log" && [ -c /dev/full ]
check "explain x.cu -o /dev/full (rc $rc), /dev/full still a device" $?
# The installed runner: kopt bench of an example task, report into a FIFO.
mkfifo report.fifo
timeout 200 cat report.fifo > bench_report.txt &
reader=$!
timeout 180 kopt bench "$root/examples/tasks/saxpy" --workspace ws -o report.fifo > "$result/bench.log" 2>&1
rc=$?
wait $reader
[ "$rc" = 0 ] && [ -p report.fifo ] && [ -s bench_report.txt ]
check "installed kopt bench -o FIFO (rc $rc): the report came through, the FIFO stayed" $?
cp bench_report.txt "$result/bench_report.txt"
# Without ncu: no kopt-profile-<name>/ left behind.
mkdir no_ncu && cp uncoalesced_loads.cu no_ncu/
(cd no_ncu && PATH="$prefix/bin:/bin" timeout 60 "$prefix/bin/kopt" explain uncoalesced_loads.cu > "$result/no_ncu.log" 2>&1)
rc=$?
[ "$rc" = 2 ] && [ ! -e no_ncu/kopt-profile-uncoalesced_loads ]
check "explain without ncu (rc $rc) leaves no kopt-profile-uncoalesced_loads/" $?
ls -la > "$result/work_dir_listing.txt"
cat "$summary"
