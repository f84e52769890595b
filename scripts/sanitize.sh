#!/usr/bin/env bash
# The test suite built with AddressSanitizer and UndefinedBehaviorSanitizer: gpurun, its library
# and every test program, with leak checking (scripts/sanitize/lsan.supp lists the libraries'
# own). A test fails when a sanitizer reports: the report goes to the test's output. Left out:
# the applications built for MPICH (label apps) and the GPU bundle check, whose programs are not
# built with the sanitizers and cannot load a library that is.
# Usage: scripts/sanitize.sh [build-dir] [extra ctest arguments...]   (default build-sanitize)
# Two cores: about 20 minutes to build and 20 to test.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-sanitize}
shift || true

scripts/deps.sh
export CUDACXX=${CUDACXX:-/usr/local/cuda/bin/nvcc}
jobs=$(nproc)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGPURUN_SANITIZE=address,undefined
cmake --build "$build" -j "$jobs"
# allocator_may_return_null: tests ask for impossible sizes and expect MPI_ERR_NO_MEM.
# verify_asan_link_order: programs that tests build with gpurun's mpicc are not instrumented.
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:verify_asan_link_order=0
# use_tls: scanning thread-local storage crashes LeakSanitizer (GCC 12) once a library with TLS
# was dlopened and closed again (UCX, spawned jobs).
export LSAN_OPTIONS=use_tls=0:suppressions=$PWD/scripts/sanitize/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Topology.HostIoDevicesWhenAsked runs hwloc's PCI plugin, whose libpciaccess allocations stay
# after hwloc unloads it: a leak no suppression can name (its module is gone), so that test runs
# without the leak check.
no_leak_check='^Topology\.HostIoDevicesWhenAsked$'
status=0
ctest --test-dir "$build" --output-on-failure -j "$jobs" --timeout 900 -LE apps \
  -E "^gpu_bundle\\.|$no_leak_check" "$@" || status=$?
ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 \
  ctest --test-dir "$build" --output-on-failure --timeout 900 -R "$no_leak_check" || status=$?
exit $status
