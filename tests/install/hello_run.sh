#!/usr/bin/env bash
# hello_run.sh PREFIX SRC OUT [--singleton-only]
# PREFIX/bin/mpicc and mpicxx build SRC/examples/hello.c into OUT, and PREFIX/bin/mpifort (where
# made) SRC/examples/hello.f90; the programs load libmpi from PREFIX/lib with no
# LD_LIBRARY_PATH (the rpath the wrapper computed; the Fortran one also loads no MPICH library)
# and run as singletons. With a launcher in PREFIX/bin they also run under gpurun -np 2,
# mpiexec -n 2 and mpirun -np 2, unless --singleton-only.
# PREFIX may be the build tree, an install prefix, or a prefix moved after install.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
prefix=$(realpath "$1") src=$2 out=$3 mode=${4:-}
rm -rf "$out"
mkdir -p "$out"
cd "$out" || exit 1

"$prefix/bin/mpicc" "$src/examples/hello.c" -o hello_c || fail "mpicc could not build hello.c"
"$prefix/bin/mpicxx" -x c++ "$src/examples/hello.c" -o hello_cxx ||
  fail "mpicxx could not build hello.c as C++"
"$prefix/bin/mpicc" -c "$src/examples/hello.c" -o hello.o || fail "mpicc -c"
"$prefix/bin/mpicc" hello.o -o hello_linked || fail "mpicc linking an object"

for program in hello_c hello_cxx hello_linked; do
  runpath=$(readelf -d "$program" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
  expect_same "$runpath" "$prefix/lib" "RUNPATH of $program"
  expect_libmpi_from "$program" "$prefix"
  run_singleton "./$program"
done

programs=(hello_c)
if [[ -x $prefix/bin/mpifort ]]; then
  "$prefix/bin/mpifort" "$src/examples/hello.f90" -o hello_f ||
    fail "mpifort could not build hello.f90"
  rpath=$(readelf -d hello_f | sed -n 's/.*(RPATH).*\[\(.*\)\]/\1/p')
  expect_same "$rpath" "$prefix/lib" "RPATH of hello_f"
  expect_libmpi_from hello_f "$prefix"
  # MPICH's Fortran bindings ask for libmpich.so.12: the loader finds gpurun's (the same file
  # as libmpi.so.12, loaded once), never MPICH's own.
  deps=$(env -u LD_LIBRARY_PATH ldd hello_f)
  expect_lacks "$deps" "libmpich.so.12 =>" "libraries of hello_f (MPICH's library loaded)"
  run_singleton ./hello_f
  programs+=(hello_f)
else
  echo "no mpifort in $prefix/bin: Fortran not checked"
fi

launcher=$prefix/bin/gpurun
if [[ $mode == --singleton-only ]]; then
  echo "runs under the launcher not checked here (--singleton-only)"
elif [[ -x $launcher ]]; then
  for program in "${programs[@]}"; do
    for run in "gpurun -np" "mpiexec -n" "mpirun -np"; do
      out2=$(env -u LD_LIBRARY_PATH timeout 120 "$prefix/bin/${run% *}" "${run#* }" 2 \
        "./$program") || fail "$run 2 ./$program: $out2"
      expect_contains "$out2" "rank 0 of 2" "$run 2 ./$program"
      expect_contains "$out2" "rank 1 of 2" "$run 2 ./$program"
    done
  done
else
  echo "no launcher in $prefix/bin: -np 2 runs not checked"
fi
echo "hello built and run from $prefix"
