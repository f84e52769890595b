#!/usr/bin/env bash
# relocate.sh SRC WORK
# Moves the installed tree WORK/prefix to WORK/moved/gpurun (the original is gone after
# this), checks that no installed file still names the old prefix, and builds and runs hello
# from the moved tree as a singleton (hello_run.sh; install.hello_moved adds the launcher).
# The tests that need the moved tree run after this one.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
src=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
old=$work/prefix new=$work/moved/gpurun
[[ -d $old ]] || fail "no installed tree in $old (install.make_install sets it up)"
rm -rf "$work/moved"
mkdir -p "$work/moved"
mv "$old" "$new"

stale=$(grep -rlF -- "$old" "$new" || true)
[[ -z $stale ]] || fail "installed files still name the install prefix $old: $stale"

"$here/hello_run.sh" "$new" "$src" "$work/relocated-hello" --singleton-only
echo "moved $old to $new: it works there"
