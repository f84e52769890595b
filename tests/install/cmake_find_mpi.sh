#!/usr/bin/env bash
# cmake_find_mpi.sh PREFIX SRC OUT CMAKE
# A CMake project using find_package(MPI REQUIRED) with MPI_C_COMPILER=PREFIX/bin/mpicc (and
# mpicxx) finds gpurun: libraries and headers in PREFIX, the MPI version of PREFIX's mpi.h;
# the programs it builds load PREFIX's libmpi and run. With a launcher installed, the same
# holds with PREFIX/bin first on PATH and no compiler named, and mpiexec is PREFIX's. Where
# PREFIX/bin/mpifort is, a Fortran project finds it with MPI_Fortran_COMPILER.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
prefix=$(realpath "$1") src=$2 out=$3 cmake=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out"

header_version() {
  local major minor
  major=$(sed -n 's/^#define MPI_VERSION \([0-9]*\)/\1/p' "$prefix/include/mpi.h")
  minor=$(sed -n 's/^#define MPI_SUBVERSION \([0-9]*\)/\1/p' "$prefix/include/mpi.h")
  echo "$major.$minor"
}

# check_project BUILD: what FindMPI found in BUILD points into PREFIX, and the programs run.
check_project() {
  local found
  found=$(cat "$1/found.txt")
  expect_contains "$found" "MPI_C_COMPILER=$prefix/bin/mpicc"$'\n' "FindMPI's C compiler"
  expect_contains "$found" "MPI_C_LIBRARIES=$prefix/lib/libmpi.so"$'\n' "FindMPI's C libraries"
  expect_contains "$found" "MPI_CXX_LIBRARIES=$prefix/lib/libmpi.so"$'\n' "FindMPI's C++ libraries"
  expect_contains "$found" "MPI_C_INCLUDE_DIRS=$prefix/include"$'\n' "FindMPI's C includes"
  expect_contains "$found" "MPI_CXX_INCLUDE_DIRS=$prefix/include"$'\n' "FindMPI's C++ includes"
  expect_contains "$found" "MPI_C_VERSION=$(header_version)"$'\n' "FindMPI's MPI version"
  for program in hello_c hello_cxx; do
    expect_libmpi_from "$1/$program" "$prefix"
    run_singleton "$1/$program"
  done
}

"$cmake" -S "$here/find_mpi" -B "$out/by-compiler" -G Ninja \
  -DMPI_C_COMPILER="$prefix/bin/mpicc" -DMPI_CXX_COMPILER="$prefix/bin/mpicxx" \
  -DHELLO_SOURCE="$src/examples/hello.c" >"$out.by-compiler.log" 2>&1 ||
  { cat "$out.by-compiler.log"; fail "FindMPI with MPI_C_COMPILER"; }
"$cmake" --build "$out/by-compiler" || fail "building the FindMPI project"
check_project "$out/by-compiler"

if [[ -x $prefix/bin/mpiexec ]]; then
  PATH=$prefix/bin:$PATH "$cmake" -S "$here/find_mpi" -B "$out/by-path" -G Ninja \
    -DHELLO_SOURCE="$src/examples/hello.c" >"$out.by-path.log" 2>&1 ||
    { cat "$out.by-path.log"; fail "FindMPI with PREFIX/bin on PATH"; }
  "$cmake" --build "$out/by-path" || fail "building the FindMPI project found by PATH"
  check_project "$out/by-path"
  expect_contains "$(cat "$out/by-path/found.txt")" "MPIEXEC_EXECUTABLE=$prefix/bin/mpiexec" \
    "FindMPI's mpiexec"
else
  echo "no launcher in $prefix/bin: FindMPI by PATH and mpiexec not checked"
fi
# Fortran through PREFIX/bin/mpifort (where made): MPICH's bindings with PREFIX's libmpi, and
# the program loads no MPICH library.
if [[ -x $prefix/bin/mpifort ]]; then
  "$cmake" -S "$here/find_mpi_fortran" -B "$out/fortran" -G Ninja \
    -DMPI_Fortran_COMPILER="$prefix/bin/mpifort" -DHELLO_SOURCE="$src/examples/hello.f90" \
    >"$out.fortran.log" 2>&1 ||
    { cat "$out.fortran.log"; fail "FindMPI with MPI_Fortran_COMPILER"; }
  "$cmake" --build "$out/fortran" || fail "building the Fortran FindMPI project"
  found=$(cat "$out/fortran/found.txt")
  expect_contains "$found" ";$prefix/lib/libmpi.so"$'\n' "FindMPI's Fortran libraries"
  expect_contains "$found" "MPI_Fortran_HAVE_F08_MODULE=TRUE" "FindMPI's mpi_f08 module"
  expect_libmpi_from "$out/fortran/hello_f" "$prefix"
  expect_lacks "$(env -u LD_LIBRARY_PATH ldd "$out/fortran/hello_f")" "libmpich.so.12 =>" \
    "libraries of the Fortran FindMPI program (MPICH's library loaded)"
  run_singleton "$out/fortran/hello_f"
else
  echo "no mpifort in $prefix/bin: FindMPI for Fortran not checked"
fi
echo "FindMPI finds gpurun in $prefix"
