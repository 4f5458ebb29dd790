#!/bin/bash
# ctest `slurm`: starts a one-node Slurm cluster (local_cluster.sh) in a temporary directory,
# runs slurm_cluster_check against it, then `kopt suite --executor slurm` end to end
# (suite_on_slurm.sh), stops the cluster. Exit 77 (skipped) with the reason when
# the daemons cannot start here (no packages, no munge, not allowed), so the CI log says so.
# usage: run_slurm_tests.sh SLURM_CLUSTER_CHECK KOPT
set -u
here=$(cd "$(dirname "$0")" && pwd)
check=$1
kopt=$2
directory=$(mktemp -d "${TMPDIR:-/tmp}/kopt-slurm.XXXXXX")
trap '"$here/local_cluster.sh" stop "$directory/cluster"; rm -rf "$directory"' EXIT
environment=$("$here/local_cluster.sh" start "$directory/cluster")
status=$?
if [[ $status -ne 0 ]]; then
  echo "slurm tests SKIPPED: the local cluster did not start (see above)"
  exit "$status"
fi
eval "$environment"
echo "local Slurm cluster up: node $KOPT_SLURM_NODE, SLURM_CONF=$SLURM_CONF"
"$check" "$here/fake_optimize.sh" "$directory/work" "$KOPT_SLURM_NODE"
executor_status=$?
"$here/suite_on_slurm.sh" "$kopt" "$directory/suite"
suite_status=$?
[[ $executor_status -eq 0 && $suite_status -eq 0 ]]
