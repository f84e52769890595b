#!/usr/bin/env bash
# autotools.sh PREFIX SRC OUT
# An autoconf configure (tests/install/autotools: AC_PROG_CC, AC_CHECK_HEADER(mpi.h),
# AC_CHECK_FUNC(MPI_Init)) run with CC=PREFIX/bin/mpicc accepts the wrapper as a C compiler
# and finds MPI. The same configure with the plain compiler must not find MPI_Init, or the
# check would prove nothing.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
prefix=$(realpath "$1") src=$2 out=$3
project=$src/tests/install/autotools
rm -rf "$out"
mkdir -p "$out/mpicc" "$out/plain"

(cd "$out/mpicc" && env -u LD_LIBRARY_PATH "$project/configure" CC="$prefix/bin/mpicc") ||
  { cat "$out/mpicc/config.log"; fail "configure CC=$prefix/bin/mpicc"; }
cache=$(cat "$out/mpicc/config.log")
expect_contains "$cache" "ac_cv_header_mpi_h=yes" "mpi.h through mpicc"
expect_contains "$cache" "ac_cv_func_MPI_Init=yes" "MPI_Init through mpicc"
expect_contains "$cache" "ac_cv_func_MPI_Comm_rank=yes" "MPI_Comm_rank through mpicc"
expect_contains "$cache" "ac_cv_prog_cc_c11=" "AC_PROG_CC's C11 check through mpicc"

plain=$("$prefix/bin/mpicc" --showme:command)
if (cd "$out/plain" && "$project/configure" CC="$plain" >/dev/null 2>&1); then
  fail "configure CC=$plain found MPI without the wrapper"
fi
echo "autoconf's checks find MPI with CC=$prefix/bin/mpicc"
