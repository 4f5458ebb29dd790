#!/usr/bin/env bash
# A real one-node Slurm cluster (Debian's slurmctld, slurmd, munge) on localhost, for tests.
#
#   local_cluster.sh start DIR   writes DIR/slurm.conf, DIR/gres.conf and a munge key, starts
#                                munged, slurmctld and slurmd (as the current user) with every
#                                file under DIR, waits until the node is idle; prints the
#                                environment to source (SLURM_CONF=...). Exit 77 (the ctest skip
#                                code) with the reason on stderr when the daemons cannot start.
#   local_cluster.sh stop DIR    stops the three daemons started for DIR and waits for them.
#
# The node is this host (its short name), with the CPUs it has and a fake GPU gres of 4 devices
# without device files (Count only), so `--gres=gpu:1` and `--gpus-per-task=1` are scheduled.
# Ports are chosen from DIR's path so that two clusters on one machine do not collide.
set -u

command_name=${1:-}
dir=${2:-}
if [[ -z "$command_name" || -z "$dir" ]]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi

skip() {
  echo "SKIP: local Slurm cluster unavailable: $*" >&2
  exit 77
}

stop_pidfile() {
  local pidfile=$1
  [[ -f "$pidfile" ]] || return 0
  local pid
  pid=$(cat "$pidfile" 2>/dev/null)
  [[ -n "$pid" ]] || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null
}

if [[ "$command_name" == stop ]]; then
  # Jobs first, so that no job step outlives the cluster.
  if [[ -f "$dir/slurm.conf" ]]; then
    SLURM_CONF="$dir/slurm.conf" timeout 10 scancel --full --quiet --user="$(id -un)" 2>/dev/null
  fi
  stop_pidfile "$dir/slurmd.pid"
  stop_pidfile "$dir/slurmctld.pid"
  stop_pidfile "$dir/munged.pid"
  exit 0
fi
[[ "$command_name" == start ]] || { echo "unknown command $command_name" >&2; exit 2; }

for program in munged mungekey slurmctld slurmd sbatch squeue scontrol sinfo; do
  command -v "$program" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin"
  command -v "$program" >/dev/null 2>&1 ||
    skip "$program not found (scripts/install_dependencies.sh installs slurmctld slurmd slurm-client munge)"
done

mkdir -p "$dir"/{spool,state,log,munge}
chmod 700 "$dir/munge"
dir=$(cd "$dir" && pwd)
user=$(id -un)
node=$(hostname -s)
cpus=$(nproc)
memory_mb=$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)
# A port pair from the directory's checksum, in 20000..39998.
hash=$(printf '%s' "$dir" | cksum | cut -d' ' -f1)
ctld_port=$((20000 + (hash % 10000) * 2))
slurmd_port=$((ctld_port + 1))
socket="$dir/munge/munge.socket"

mungekey --create --keyfile="$dir/munge/munge.key" --force >"$dir/log/mungekey.log" 2>&1 ||
  skip "mungekey failed: $(tail -q -n 3 "$dir/log/mungekey.log")"
chmod 400 "$dir/munge/munge.key"
munged --force --socket="$socket" --key-file="$dir/munge/munge.key" \
  --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" \
  --seed-file="$dir/munge/seed" >"$dir/log/munged.out" 2>&1 ||
  skip "munged did not start: $(tail -q -n 3 "$dir/log/munged.out" "$dir/log/munged.log" 2>/dev/null)"

mkdir -p "$dir/spool/$node" "$dir/dev"
# Plain files stand for the device files: with task/none nothing constrains them.
touch "$dir"/dev/fakegpu{0..3}
cat >"$dir/gres.conf" <<CONF
NodeName=$node Name=gpu File=$dir/dev/fakegpu[0-3]
CONF
cat >"$dir/slurm.conf" <<CONF
ClusterName=kopttest
SlurmctldHost=$node
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
GresTypes=gpu
ReturnToService=2
JobRequeue=1
MinJobAge=300
MaxArraySize=1001
SlurmdTimeout=30
KillWait=2
InactiveLimit=0
SchedulerParameters=defer_batch=0
MpiDefault=none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory_mb Gres=gpu:4 State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF

export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" >"$dir/log/slurmctld.out" 2>&1 ||
  skip "slurmctld did not start: $(tail -q -n 3 "$dir/log/slurmctld.out" "$dir/log/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" >"$dir/log/slurmd.out" 2>&1 ||
  skip "slurmd did not start: $(tail -q -n 3 "$dir/log/slurmd.out" "$dir/log/slurmd.log" 2>/dev/null)"

for _ in $(seq 150); do
  state=$(sinfo --noheader --nodes="$node" --format=%T 2>/dev/null | head -1)
  if [[ "$state" == idle ]]; then
    echo "export SLURM_CONF=$SLURM_CONF"
    echo "export KOPT_SLURM_NODE=$node"
    exit 0
  fi
  sleep 0.2
done
"$0" stop "$dir"
skip "node $node not idle after 30 s (state '${state:-none}'); logs: $(tail -q -n 3 "$dir/log/slurmd.log" "$dir/log/slurmctld.log" 2>/dev/null)"
