#!/usr/bin/env bash
# readonly_run.sh DIR... -- COMMAND [ARG...]
# Runs COMMAND in a private mount namespace in which every file system is read-only except
# the DIRs (and /dev, /proc, /sys), so a write anywhere else fails with EROFS and COMMAND
# fails with it. Nothing changes outside the namespace, which ends with COMMAND.
# Exits 77 when mount namespaces are not available here (not root, no CAP_SYS_ADMIN).
set -euo pipefail

writable=()
while [[ $# -gt 0 && $1 != -- ]]; do
  writable+=("$(realpath "$1")")
  shift
done
[[ $# -gt 1 ]] || { echo "usage: $0 DIR... -- COMMAND [ARG...]" >&2; exit 2; }
shift

if ! unshare --mount --propagation private true 2>/dev/null; then
  echo "readonly_run: no mount namespaces here" >&2
  exit 77
fi

# Inside the namespace: bind each DIR onto itself first (a mount of its own keeps its rw flag
# when the file system around it turns read-only), then remount every other mount read-only.
# shellcheck disable=SC2016  # expanded by the inner bash
inner='
set -euo pipefail
n=$1; shift
keep=("${@:1:n}"); shift "$n"
for d in "${keep[@]}"; do mount --bind "$d" "$d"; done
while read -r _ _ _ _ point _; do
  point=$(printf "%b" "$point")   # mountinfo escapes blanks as \040
  case $point in /proc | /proc/* | /sys | /sys/* | /dev | /dev/pts | /dev/mqueue) continue ;; esac
  for d in "${keep[@]}"; do [[ $point == "$d" ]] && continue 2; done
  mount -o remount,bind,ro "$point" 2>/dev/null || mount -o remount,ro "$point"
done < /proc/self/mountinfo
exec "$@"
'
exec unshare --mount --propagation private bash -c "$inner" readonly_run \
  "${#writable[@]}" "${writable[@]}" "$@"
