#!/usr/bin/env bash
# pkgconfig.sh PREFIX SRC OUT VERSION
# With PKG_CONFIG_PATH=PREFIX/lib/pkgconfig, every name gpurun installs (gpurun, mpi, mpi-c,
# mpi-cxx, mpich) resolves to PREFIX ahead of the system's MPI .pc files, and
# `cc hello.c $(pkg-config --cflags --libs mpi)` builds a program that loads PREFIX's libmpi
# and runs.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
prefix=$(realpath "$1") src=$2 out=$3 version=$4
rm -rf "$out"
mkdir -p "$out"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
cc=$("$prefix/bin/mpicc" --showme:command)

for name in gpurun mpi mpi-c mpi-cxx mpich; do
  expect_same "$(pkg-config --modversion "$name")" "$version" "pkg-config --modversion $name"
  pc_prefix=$(pkg-config --variable=prefix "$name")
  expect_same "$(realpath "$pc_prefix")" "$prefix" "prefix of $name.pc"
  flags=$(pkg-config --cflags --libs "$name")
  expect_contains "$flags" "-I$pc_prefix/include" "pkg-config --cflags $name"
  expect_contains "$flags" "-L$pc_prefix/lib" "pkg-config --libs $name"
  expect_contains "$flags" "-lmpi" "pkg-config --libs $name"
done

# shellcheck disable=SC2046  # the flags are words
"$cc" "$src/examples/hello.c" -o "$out/hello" $(pkg-config --cflags --libs mpi) ||
  fail "cc hello.c \$(pkg-config --cflags --libs mpi)"
expect_libmpi_from "$out/hello" "$prefix"
run_singleton "$out/hello"
echo "pkg-config finds gpurun in $prefix"
