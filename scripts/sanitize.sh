#!/usr/bin/env bash
# The test suite built with sanitizers: gpurun, its library and every test program. A test fails
# when a sanitizer reports: the report goes to the test's output. Left out: the applications
# built for MPICH (label apps) and the GPU bundle check, whose programs are not built with the
# sanitizers and cannot load a library that is.
#   scripts/sanitize.sh [build-dir] [ctest arguments...]
#       AddressSanitizer and UndefinedBehaviorSanitizer with leak checking
#       (scripts/sanitize/lsan.supp lists the libraries' own leaks); default build-sanitize.
#   scripts/sanitize.sh --thread [build-dir] [ctest arguments...]
#       ThreadSanitizer (scripts/sanitize/tsan.supp lists the races that are not gpurun's);
#       default build-tsan.
# Two cores: 10-20 minutes to build, then about 20 to test (address: 17, thread: 19).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=address
if [[ ${1:-} == --thread ]]; then
  mode=thread
  shift
fi
if [[ $mode == thread ]]; then build=${1:-build-tsan}; else build=${1:-build-sanitize}; fi
shift || true

scripts/deps.sh
export CUDACXX=${CUDACXX:-/usr/local/cuda/bin/nvcc}
jobs=$(nproc)
sanitizers=address,undefined
[[ $mode == thread ]] && sanitizers=thread
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPURUN_SANITIZE=$sanitizers
cmake --build "$build" -j "$jobs"
skip='^gpu_bundle\.'
# The sanitizers' operator new ends the process when the allocator finds no memory, where the C++
# library's throws std::bad_alloc: the test of a rank that finds no memory for a
# collective's scratch (coll.no_memory) cannot run under them.
skip="$skip|\\.coll\\.no_memory\\."
# They also handle SIGSEGV themselves, so gpurun's fault report (errors.fault_report) is not
# installed under them: that test cannot pass there.
skip="$skip|\\.errors\\.fault_report\\."
# Fortran programs built by mpifort.mpich (tests/abi) are not instrumented, and their Fortran
# runtime calls functions the sanitizer intercepts before it has started, unless its runtime is
# loaded first (otherwise they die at a null address before main): they run with it preloaded
# (address), or not at all (thread).
fortran='^abi_mpich_fortran'
status=0

if [[ $mode == thread ]]; then
  # UCX's memory hooks (madvise, mmap) run in a thread that is ending, after ThreadSanitizer has
  # let go of the thread's state: every rank that loaded UCX died there with SIGSEGV.
  export UCX_MEM_EVENTS=no
  # allocator_may_return_null: tests ask for impossible sizes and expect MPI_ERR_NO_MEM.
  export TSAN_OPTIONS=suppressions=$PWD/scripts/sanitize/tsan.supp:allocator_may_return_null=1
  # The pt2pt.large tests move messages of more than 2 GiB: with ThreadSanitizer's shadow
  # memory their ranks need more memory than a 24 GiB machine has, and the kernel ends them.
  ctest --test-dir "$build" --output-on-failure -j "$jobs" --timeout 900 -LE apps \
    -E "$skip|$fortran|\.pt2pt\.large\." "$@" || status=$?
  exit $status
fi

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
ctest --test-dir "$build" --output-on-failure -j "$jobs" --timeout 900 -LE apps \
  -E "$skip|$no_leak_check|$fortran" "$@" || status=$?
ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 \
  ctest --test-dir "$build" --output-on-failure --timeout 900 -R "$no_leak_check" || status=$?
LD_PRELOAD=$("${CC:-cc}" -print-file-name=libasan.so) \
  ctest --test-dir "$build" --output-on-failure --timeout 900 -R "$fortran" || status=$?
exit $status
