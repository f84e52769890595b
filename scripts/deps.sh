#!/usr/bin/env bash
# Installs the Debian 12 packages gpurun needs to build, test and benchmark.
# As root it runs apt-get; otherwise it prints the exact apt-get line and fails.
# Usage: scripts/deps.sh            (everything)
set -euo pipefail

PACKAGES=(
  # build
  cmake ninja-build make autoconf g++ gfortran pkg-config libgtest-dev
  # real components
  libpmix-dev libpmix-bin libhwloc-dev hwloc-nox libucx-dev ucx-utils libfabric-dev libfabric-bin
  nlohmann-json3-dev
  # peers: ABI reference, compatibility tests and benchmark comparison
  libmpich-dev mpich libopenmpi-dev openmpi-bin
  # applications built for MPICH, run unchanged (tests/apps): ScaLAPACK, parallel HDF5, NWChem,
  # OpenCoarrays' test programs (Fortran coarrays), BAGEL, NetPIPE, Message Passing Yorick,
  # the Tachyon ray tracer (its MPICH library, and its threaded one for the reference image)
  scalapack-mpi-test
  libhdf5-mpich-dev
  nwchem-mpich
  libcoarrays-mpich-dev
  bagel
  netpipe-mpich2
  yorick-mpy-mpich2
  tachyon-bin-nox libtachyon-mt-0 libtachyon-mpich-0
  # Slurm tests and test hosts
  slurm-wlm munge iproute2 util-linux procps
  # benchmark plots and timing
  gnuplot-nox hyperfine python3
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "gpurun: missing Debian packages; run as root:" >&2
  echo "  apt-get update && $line" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
echo "gpurun: installing ${missing[*]}" >&2
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
