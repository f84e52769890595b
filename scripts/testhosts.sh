#!/usr/bin/env bash
# Test hosts made of network namespaces, for the `multihost` and `slurm` tests.
#
#   scripts/testhosts.sh start DIR [N]       create N hosts (default 2), state in DIR (created)
#   scripts/testhosts.sh exec DIR HOST CMD.. run CMD on HOST: the launch agent of the tests
#   scripts/testhosts.sh shell DIR HOST WORDS..
#                                            run the command line WORDS with /bin/sh on HOST:
#                                            the ssh-like agent other MPIs' launchers expect
#   scripts/testhosts.sh check DIR           list what the hosts hold (processes, files in their
#                                            /tmp and /dev/shm); exit 1 when anything is there
#   scripts/testhosts.sh stop DIR            remove everything start made (nothing when DIR is
#                                            gone); exit 1 if anything could not be removed
#   scripts/testhosts.sh list DIR            print "name address" of each host
#   scripts/testhosts.sh purge               remove every namespace named like test hosts
#                                            (gpurun-hN, gpurun-hsw) and the guard route, for a
#                                            set whose DIR was lost: on a shared machine, only
#                                            when nobody else's test hosts are up
#
# Host k is the namespace gpurun-hk with address 10.201.0.k/24 on its eth0, a veth whose other
# end is a port of a bridge in a "switch" namespace (gpurun-hsw): nothing is added to the root
# namespace but a guard route, `unreachable 10.201.0.0/24`, added first, so that no packet to
# the test subnet can leave this machine from the root namespace. start waits until every link
# is up (UCX and libfabric ignore an interface without carrier).
#
# All hosts share one kernel, hostname and filesystem. `exec` gives the command its host's
# network namespace (nsenter, which keeps /sys/fs/cgroup, unlike `ip netns exec`) and a private
# mount namespace in which /tmp and /dev/shm are the host's own: DIR/hosts/HOST/tmp and a tmpfs
# mounted at DIR/hosts/HOST/shm, so that tests can look at what a job left on each host. TMPDIR
# is unset, as on a fresh login. Programs under /tmp cannot run there (/tmp is the host's).
#
# TESTHOSTS_PREFIX (default gpurun-h) and TESTHOSTS_NET (default 10.201.0, a /24)
# choose other names and another subnet, for a second set beside the first. Needs root, ip
# (iproute2), nsenter and unshare (util-linux).
set -euo pipefail

die() { echo "testhosts.sh: $*" >&2; exit 1; }

load_config() {  # sets PREFIX NET COUNT from DIR/config, or the defaults
  local dir=$1
  PREFIX=${TESTHOSTS_PREFIX:-gpurun-h}
  NET=${TESTHOSTS_NET:-10.201.0}
  COUNT=0
  if [ -f "$dir/config" ]; then
    # shellcheck disable=SC1091
    . "$dir/config"
  fi
  SWITCH=${PREFIX}sw
}

host_names() {
  local i
  for i in $(seq "$COUNT"); do echo "$PREFIX$i"; done
}

wait_link_up() {  # wait_link_up NS DEV
  local i
  for i in $(seq 100); do
    ip -n "$1" -br link show "$2" 2>/dev/null | grep -q " UP " && return 0
    sleep 0.05
  done
  die "link $2 in $1 did not come up"
}

start() {
  local dir=$1 count=$2 i ns
  [ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, mounts)"
  for tool in ip nsenter unshare; do
    command -v "$tool" >/dev/null || die "$tool is missing (scripts/deps.sh: iproute2 util-linux)"
  done
  [ ! -e "$dir" ] || die "$dir exists: stop the hosts that use it first"
  load_config "$dir"
  COUNT=$count
  for ns in $(host_names) "$SWITCH"; do
    [ ! -e "/run/netns/$ns" ] || die "namespace $ns exists (another set of test hosts is up?)"
  done
  ip route show table main | grep -q "^unreachable $NET.0/24" &&
    die "a route for $NET.0/24 exists (another set of test hosts is up?)"
  mkdir -p -m 0700 "$dir"
  dir=$(cd "$dir" && pwd)
  printf 'PREFIX=%s\nNET=%s\nCOUNT=%s\n' "$PREFIX" "$NET" "$COUNT" > "$dir/config"
  trap 'echo "testhosts.sh: start failed; removing what was made" >&2; stop "$dir" || true' ERR
  # The guard first: from now on, nothing in the root namespace reaches the test subnet.
  ip route add unreachable "$NET.0/24"
  ip netns add "$SWITCH"
  ip -n "$SWITCH" link set lo up
  ip -n "$SWITCH" link add br0 type bridge
  ip -n "$SWITCH" link set br0 up
  for i in $(seq "$count"); do
    ns=$PREFIX$i
    ip netns add "$ns"
    ip link add eth0 netns "$ns" type veth peer name "p$i" netns "$SWITCH"
    ip -n "$SWITCH" link set "p$i" master br0 up
    ip -n "$ns" addr add "$NET.$i/24" dev eth0
    ip -n "$ns" link set lo up
    ip -n "$ns" link set eth0 up
    mkdir -p "$dir/hosts/$ns/tmp" "$dir/hosts/$ns/shm"
    chmod 1777 "$dir/hosts/$ns/tmp"
    mount -t tmpfs -o size=512m,mode=1777 "tmpfs-$ns" "$dir/hosts/$ns/shm"
  done
  for i in $(seq "$count"); do
    wait_link_up "$PREFIX$i" eth0
    wait_link_up "$SWITCH" "p$i"
  done
  trap - ERR
  list "$dir"
}

list() {
  local dir=$1 i
  load_config "$dir"
  for i in $(seq "$COUNT"); do echo "$PREFIX$i $NET.$i"; done
}

run_on() {  # run_on DIR HOST CMD...
  local dir=$1 host=$2
  shift 2
  load_config "$dir"
  [ -d "$dir/hosts/$host" ] && [ -e "/run/netns/$host" ] || die "$host: no such test host in $dir"
  [ $# -gt 0 ] || die "exec: no command"
  case $1 in /tmp/*) die "cannot run $1 on $host: /tmp is the host's own there" ;; esac
  dir=$(cd "$dir" && pwd)
  exec nsenter --net="/run/netns/$host" unshare --mount --propagation private -- /bin/sh -c \
    'mount --bind "$1" /tmp && mount --bind "$2" /dev/shm && shift 2 && unset TMPDIR &&
     exec "$@"' sh "$dir/hosts/$host/tmp" "$dir/hosts/$host/shm" "$@"
}

shell_on() {  # shell_on DIR HOST WORDS...: what `ssh HOST WORDS...` would do
  local dir=$1 host=$2
  shift 2
  run_on "$dir" "$host" /bin/sh -c "$*"
}

live_pids() {  # processes (not zombies) in namespace $1
  local pid
  for pid in $(ip netns pids "$1" 2>/dev/null); do
    [ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" = Z ] || echo "$pid"
  done
}

check() {
  local dir=$1 ns pid entry found=0
  load_config "$dir"
  for ns in $(host_names); do
    for pid in $(live_pids "$ns"); do
      echo "$ns: process $pid ($(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | cut -c1-120))"
      found=1
    done
    for entry in "$dir/hosts/$ns/tmp"/* "$dir/hosts/$ns/tmp"/.[!.]* "$dir/hosts/$ns/shm"/*; do
      [ -e "$entry" ] || continue
      echo "$ns: ${entry#"$dir/hosts/$ns"}"
      found=1
    done
  done
  return $found
}

stop_processes() {  # TERM, then KILL, whatever runs in the hosts' namespaces
  local ns pids i
  for ns in "$@"; do
    pids=$(live_pids "$ns")
    [ -z "$pids" ] || kill $pids 2>/dev/null || true
  done
  for i in $(seq 40); do
    pids=""
    for ns in "$@"; do pids="$pids $(live_pids "$ns")"; done
    [ -z "${pids// /}" ] && return 0
    sleep 0.05
  done
  # shellcheck disable=SC2086
  kill -KILL $pids 2>/dev/null || true
}

stop() {
  local dir=$1 ns names="" left="" mnt
  [ -d "$dir" ] && dir=$(cd "$dir" && pwd)
  load_config "$dir"
  if [ "$COUNT" -gt 0 ]; then
    names="$(host_names) $SWITCH"
  elif [ "${PURGE:-0}" = 1 ]; then  # a set whose state was lost: by name
    names=$(ip netns list | awk '{print $1}' | grep -E "^${PREFIX}([0-9]+|sw)$" || true)
  fi
  # shellcheck disable=SC2086
  stop_processes $names
  for ns in $names; do
    [ -e "/run/netns/$ns" ] && ip netns del "$ns"
  done
  for mnt in $(awk -v d="$dir/" 'index($2, d) == 1 {print $2}' /proc/self/mounts); do
    umount "$mnt"
  done
  [ -n "$names" ] && ip route del unreachable "$NET.0/24" 2>/dev/null
  rm -rf "$dir"
  for ns in $names; do [ ! -e "/run/netns/$ns" ] || left="$left namespace $ns,"; done
  [ -n "$names" ] && ip route show table main | grep -q "^unreachable $NET.0/24" &&
    left="$left route $NET.0/24,"
  grep -q " $dir/" /proc/self/mounts && left="$left mounts under $dir,"
  [ -z "$left" ] || die "left behind:${left%,}"
  return 0
}

[ "${1:-}" = purge ] && { PURGE=1 stop /nonexistent/testhosts-purge; exit; }
[ $# -ge 2 ] || die "usage: testhosts.sh start|stop|check|list DIR [N] | exec DIR HOST CMD... | purge"
case $1 in
  start) start "$2" "${3:-2}" ;;
  stop) stop "$2" ;;
  check) check "$2" ;;
  list) list "$2" ;;
  exec) shift; run_on "$@" ;;
  shell) shift; shell_on "$@" ;;
  *) die "unknown command $1" ;;
esac
