#!/usr/bin/env bash
# cmake_package.sh PREFIX SRC OUT CMAKE VERSION
# A CMake project using find_package(gpurun VERSION EXACT CONFIG) with CMAKE_PREFIX_PATH=PREFIX
# gets gpurun::mpi from PREFIX and builds hello, which loads PREFIX's libmpi and runs. The
# version file refuses another major version, an unknown component is not found, and the
# launcher component is found exactly when PREFIX has a launcher.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
prefix=$(realpath "$1") src=$2 out=$3 cmake=$4 version=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out"

"$cmake" -S "$here/find_package" -B "$out" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DGPURUN_EXPECTED_VERSION="$version" -DHELLO_SOURCE="$src/examples/hello.c" \
  >"$out.log" 2>&1 || { cat "$out.log"; fail "find_package(gpurun CONFIG)"; }
"$cmake" --build "$out" || fail "building against gpurun::mpi"
found=$(cat "$out/found.txt")$'\n'
expect_contains "$found" "gpurun_DIR=$prefix/lib/cmake/gpurun"$'\n' "gpurun_DIR"
expect_contains "$found" "gpurun_VERSION=$version"$'\n' "gpurun_VERSION"
expect_contains "$found" "location=$prefix/lib/libmpi.so.12"$'\n' "gpurun::mpi location"
expect_contains "$found" "includes=$prefix/include"$'\n' "gpurun::mpi include directories"
expect_contains "$found" "mpicc=$prefix/bin/mpicc"$'\n' "gpurun_MPICC"
expect_contains "$found" "newer_major=0"$'\n' "find_package(gpurun 99.0)"
expect_contains "$found" "unknown_component=0"$'\n' "find_package(gpurun COMPONENTS nosuch)"
if [[ -x $prefix/bin/gpurun ]]; then
  expect_contains "$found" "launcher=$prefix/bin/gpurun"$'\n' "gpurun_LAUNCHER"
  expect_contains "$found" "launcher_component=1"$'\n' "COMPONENTS launcher"
else
  expect_contains "$found" "launcher="$'\n' "gpurun_LAUNCHER without a launcher"
  expect_contains "$found" "launcher_component=0"$'\n' "COMPONENTS launcher without one"
fi
expect_libmpi_from "$out/hello" "$prefix"
run_singleton "$out/hello"
echo "find_package(gpurun CONFIG) finds $prefix"
