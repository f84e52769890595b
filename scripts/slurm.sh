#!/usr/bin/env bash
# A private Slurm for the `slurm` tests: one node on localhost, or one node per test host.
#
#   scripts/slurm.sh start DIR   one node (munged + slurmctld + slurmd on localhost), all its
#                                state in DIR (created, mode 0700); prints the SLURM_CONF line to
#                                export, and returns once the node is idle
#   scripts/slurm.sh start-hosts DIR HOSTS_DIR
#                                one node per test host of scripts/testhosts.sh's HOSTS_DIR, the
#                                controller on the first; Slurm's commands (srun, sinfo) must
#                                run in a test host's network namespace, e.g.
#                                nsenter --net=/run/netns/gpurun-h1 srun -N 2 ...
#   scripts/slurm.sh stop DIR    stop the daemons by the PIDs in their pid files, remove DIR
#
# With test hosts (ENVIRONMENT.md, Appendix C): each slurmd runs in its host's network namespace
# (nsenter, which keeps /sys/fs/cgroup) and in a mount namespace of its own, with a private
# /dev/shm and its own directory for the PMIx plugin's files (the hosts share one filesystem
# and hostname, and Slurm's and MPI's file names would collide). The controller checks its own
# host name, so SlurmctldHost is this machine's name with the first host's address.
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
  {
    common_config "$dir"
    cat <<CONF
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmdSpoolDir=$dir/spool
SlurmdPidFile=$dir/slurmd.pid
SlurmdLogFile=$dir/slurmd.log
NodeName=localhost CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
  } > "$dir/slurm.conf"
  # The PMIx plugin's per-step directories go into DIR too, not into /tmp.
  echo "PMIxCliTmpDirBase=$dir/pmix" > "$dir/mpi.conf"
}

# Daemons and settings shared by both kinds of cluster.
common_config() {
  local dir=$1
  cat <<CONF
ClusterName=gpurun
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
TmpFS=$dir/tmp
SlurmctldPidFile=$dir/slurmctld.pid
SlurmctldLogFile=$dir/slurmctld.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
CONF
}

write_hosts_config() {  # write_hosts_config DIR "name addr" ...
  local dir=$1 name addr nodes=""
  shift
  mkdir -p "$dir/state" "$dir/tmp" "$dir/pmix"
  {
    common_config "$dir"
    echo "SlurmctldHost=$(hostname -s)(${1#* })"
    echo "SlurmctldPort=6817"
    echo "SlurmdPort=6818"
    echo "SlurmdSpoolDir=$dir/spool-%n"
    echo "SlurmdPidFile=$dir/slurmd-%n.pid"
    echo "SlurmdLogFile=$dir/slurmd-%n.log"
    for host in "$@"; do
      name=${host% *} addr=${host#* }
      echo "NodeName=$name NodeAddr=$addr CPUs=$(nproc) RealMemory=1000 State=UNKNOWN"
      nodes="$nodes${nodes:+,}$name"
      mkdir -p "$dir/pmix-$name"
    done
    echo "PartitionName=debug Nodes=$nodes Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
  } > "$dir/slurm.conf"
  # %n does not expand here: each slurmd gets its own directory bind-mounted on this one.
  echo "PMIxCliTmpDirBase=$dir/pmix" > "$dir/mpi.conf"
}

wait_idle() {  # wait_idle DIR [command prefix for sinfo]
  local dir=$1 i
  shift
  for i in $(seq 100); do
    [ "$("$@" sinfo -h -o %t 2>/dev/null | sort -u)" = idle ] && return 0
    sleep 0.1
  done
  die "the nodes did not become idle; see $dir/slurmctld.log and $dir/slurmd*.log"
}

check_start() {
  [ "$(id -u)" -eq 0 ] || die "needs root (slurmd runs the job steps)"
  command -v slurmctld >/dev/null && command -v munged >/dev/null ||
    die "slurm-wlm and munge are not installed (run scripts/deps.sh as root)"
  [ ! -e "$1" ] || die "$1 exists: stop the Slurm that uses it first"
}

start_munged() {
  munged --force --socket="$1/munge.socket" --pid-file="$1/munged.pid" \
    --log-file="$1/munged.log" --seed-file="$1/munged.seed"
}

start() {
  local dir=$1
  check_start "$dir"
  mkdir -p -m 0700 "$dir"
  dir=$(cd "$dir" && pwd)
  write_config "$dir"
  start_munged "$dir"
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -i
  slurmd -N localhost
  wait_idle "$dir"
  echo "export SLURM_CONF=$dir/slurm.conf"
}

start_hosts() {
  local dir=$1 hosts_dir=$2 first name host
  local -a hosts
  check_start "$dir"
  mapfile -t hosts < <("$(dirname "$0")/testhosts.sh" list "$hosts_dir")
  [ ${#hosts[@]} -ge 1 ] || die "no test hosts in $hosts_dir (scripts/testhosts.sh start)"
  first=${hosts[0]% *}
  mkdir -p -m 0700 "$dir"
  dir=$(cd "$dir" && pwd)
  write_hosts_config "$dir" "${hosts[@]}"
  start_munged "$dir"
  export SLURM_CONF=$dir/slurm.conf
  nsenter --net="/run/netns/$first" slurmctld -i
  for host in "${hosts[@]}"; do
    name=${host% *}
    nsenter --net="/run/netns/$name" unshare --mount --propagation private -- /bin/sh -c \
      'mount --bind "$1" "$2" && mount -t tmpfs -o size=256m tmpfs /dev/shm && exec slurmd -N "$3"' \
      sh "$dir/pmix-$name" "$dir/pmix" "$name"
  done
  wait_idle "$dir" nsenter --net="/run/netns/$first"
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
  local dir=$1 file
  [ -d "$dir" ] || return 0
  for file in "$dir"/slurmd*.pid; do stop_pidfile "$file"; done
  stop_pidfile "$dir/slurmctld.pid"
  stop_pidfile "$dir/munged.pid"
  rm -rf "$dir"
}

usage="usage: slurm.sh start DIR | start-hosts DIR HOSTS_DIR | stop DIR"
case ${1:-}:$# in
  start:2) start "$2" ;;
  start-hosts:3) start_hosts "$2" "$3" ;;
  stop:2) stop "$2" ;;
  *) die "$usage" ;;
esac
