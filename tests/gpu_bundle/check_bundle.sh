#!/bin/bash
# check_bundle.sh PYTHON SOURCE_DIR BUILD_DIR WORK: makes the GPU bundle and runs its checks with
# the system's copies of the libraries it carries hidden, where a mount namespace can be had.
set -euo pipefail
python=$1 src=$2 build=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
"$python" "$src/scripts/gpu_bundle.py" --build "$build" --out "$work/bundle"
cat > "$work/hidden.sh" <<HIDE
set -e
mount -t tmpfs none /usr/lib/x86_64-linux-gnu/pmix2
mount -t tmpfs none /usr/lib/x86_64-linux-gnu/ucx
for f in libhwloc.so.15 libevent_core-2.1.so.7 libevent_pthreads-2.1.so.7 libmunge.so.2 \
         libucp.so.0 libucs.so.0 libuct.so.0 libucm.so.0 libfabric.so.1; do
  mount --bind /dev/null "\$(readlink -f /lib/x86_64-linux-gnu/\$f)"
done
b="$work/bundle"
for t in ucx ofi; do  # the gpu tests over ucx and ofi would say SKIPPED before a transport fails
  GPURUN_TRANSPORTS=\$t,self LD_LIBRARY_PATH="\$b/build/lib:\$b/lib" \\
    PMIX_MCA_mca_base_component_path="\$b/pmix" "\$b/build/bin/gpurun" -np 2 \\
    "\$b/build/bench/gpurun/osu_latency" -m 8:8 -i 10 -x 2 > "$work/\$t.log" 2>&1 || true
  grep -q '^8 ' "$work/\$t.log" ||
    { echo "check_bundle: osu_latency over \$t failed:"; cat "$work/\$t.log"; exit 1; }
done
exec "$python" "$src/scripts/gpu_check.py" --bundle "$work/bundle" --out "$work/out"
HIDE
if unshare -m --propagation private true 2>/dev/null; then
  unshare -m --propagation private bash "$work/hidden.sh" | tee "$work/log"
else
  echo "check_bundle: no mount namespace here: the system's libraries stay visible"
  "$python" "$src/scripts/gpu_check.py" --bundle "$work/bundle" --out "$work/out" | tee "$work/log"
fi
grep -Eq '^gpu_check: [0-9]+ passed, 0 failed, [0-9]+ skipped of [1-9]' "$work/log" ||
  { echo "check_bundle: a check failed (or none ran)"; exit 1; }
