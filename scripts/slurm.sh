#!/usr/bin/env bash
# A private one-node Slurm (munged + slurmctld + slurmd on localhost) for the `slurm` tests.
#
#   scripts/slurm.sh start DIR   start it with all its state in DIR (created, mode 0700); prints
#                                the SLURM_CONF line to export, and returns once the node is idle
#   scripts/slurm.sh stop DIR    stop the daemons by the PIDs in their pid files, remove DIR
#
# Everything lives in DIR: config, state, spool, logs, pid files, munge socket and the PMIx
# plugin's temporary directories; the ports are free ones picked at start. Nothing is shared
# with a system Slurm or munge. Needs root (slurmd starts jobs as their users) and the
# slurm-wlm and munge packages (scripts/deps.sh).
set -euo pipefail

die() { echo "slurm.sh: $*" >&2; exit 1; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

write_config() {
  local dir=$1 ctld_port slurmd_port
  ctld_port=$(free_port)
  slurmd_port=$(free_port)
  [ "$ctld_port" != "$slurmd_port" ] || slurmd_port=$((slurmd_port + 1))
  mkdir -p "$dir/state" "$dir/spool" "$dir/tmp" "$dir/pmix"
  cat > "$dir/slurm.conf" <<CONF
ClusterName=gpurun
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
TmpFS=$dir/tmp
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=localhost CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
  # The PMIx plugin's per-step directories go into DIR too, not into /tmp.
  echo "PMIxCliTmpDirBase=$dir/pmix" > "$dir/mpi.conf"
}

wait_idle() {
  local i
  for i in $(seq 100); do
    sinfo -h -o %t 2>/dev/null | grep -qx idle && return 0
    sleep 0.1
  done
  die "the node did not become idle; see $1/slurmctld.log and $1/slurmd.log"
}

start() {
  local dir=$1
  [ "$(id -u)" -eq 0 ] || die "needs root (slurmd runs the job steps)"
  command -v slurmctld >/dev/null && command -v munged >/dev/null ||
    die "slurm-wlm and munge are not installed (run scripts/deps.sh as root)"
  [ ! -e "$dir" ] || die "$dir exists: stop the Slurm that uses it first"
  mkdir -p -m 0700 "$dir"
  dir=$(cd "$dir" && pwd)
  write_config "$dir"
  munged --force --socket="$dir/munge.socket" --pid-file="$dir/munged.pid" \
    --log-file="$dir/munged.log" --seed-file="$dir/munged.seed"
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -i
  slurmd -N localhost
  wait_idle "$dir"
  echo "export SLURM_CONF=$dir/slurm.conf"
}

stop_pidfile() {
  local file=$1 pid i
  [ -f "$file" ] || return 0
  pid=$(cat "$file")
  kill "$pid" 2>/dev/null || return 0
  for i in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || return 0
    # Slurm daemons reparent to PID 1, which may not reap: a zombie has exited.
    [ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" = Z ] && return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

stop() {
  local dir=$1
  [ -d "$dir" ] || return 0
  stop_pidfile "$dir/slurmd.pid"
  stop_pidfile "$dir/slurmctld.pid"
  stop_pidfile "$dir/munged.pid"
  rm -rf "$dir"
}

[ $# -eq 2 ] || die "usage: slurm.sh start|stop DIR"
case $1 in
  start) start "$2" ;;
  stop) stop "$2" ;;
  *) die "usage: slurm.sh start|stop DIR" ;;
esac
