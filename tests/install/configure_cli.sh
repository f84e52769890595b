#!/usr/bin/env bash
# configure_cli.sh SRC OUT CMAKE VERSION
# The ./configure front end: --help lists its options; a bad option stops it with one
# "configure: error:" line naming the option, before CMake runs; the options reach CMake's
# cache as documented (checked in a real CMake configure, with CUDA when nvcc is here); the
# Makefile hands make's -jN to the build; configure's version is CMake's project version.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
src=$1 out=$2 cmake=$3 version=$4
rm -rf "$out"
mkdir -p "$out/errors" "$out/options"

help=$("$src/configure" --help)
for option in --prefix= --with-cuda --with-cuda-arch= --with-ucx --with-ofi --with-pmix= \
  --with-hwloc= --disable-tests --disable-bench --enable-debug "CC " "CXX " "CFLAGS " \
  "CXXFLAGS " "LDFLAGS " "CMAKE "; do
  expect_contains "$help" "$option" "configure --help"
done
expect_same "$("$src/configure" --version | head -1)" "gpurun configure $version" \
  "configure --version against CMake's project version"

# expect_error OPTION... : configure fails with a single error line that names the option.
expect_error() {
  local err
  if err=$(cd "$out/errors" && CMAKE=$cmake "$src/configure" "$@" 2>&1 >/dev/null); then
    fail "configure $* succeeded"
  fi
  expect_same "$(grep -c '^configure: error:' <<<"$err")" 1 "error lines of configure $*"
  expect_same "$(wc -l <<<"$err")" 1 "stderr lines of configure $*"
  expect_contains "$err" "${1%%=*}" "error of configure $*"
  [[ ! -e $out/errors/build-configure/CMakeCache.txt ]] || fail "CMake ran for configure $*"
}
expect_error --with-cuda=/nonexistent
expect_error --with-cuda-arch=native
expect_error --with-cuda-arch=80,9x
expect_error --with-ucx=/nonexistent
expect_error --with-ofi=/nonexistent
expect_error --with-pmix=/nonexistent
expect_error --without-hwloc

# The options, as CMake got them.
nvcc=/usr/local/cuda/bin/nvcc
if [[ -x $nvcc ]]; then
  cuda=(--with-cuda=/usr/local/cuda "--with-cuda-arch=90,80-real")
else
  echo "no $nvcc: --with-cuda=DIR not checked, --with-cuda=no instead"
  cuda=(--with-cuda=no)
fi
cc=$(command -v cc)
(cd "$out/options" && "$src/configure" --prefix="$out/p" "${cuda[@]}" --with-ucx=no \
  --with-ofi=/usr --disable-tests --disable-bench --enable-debug CMAKE="$cmake" CC="$cc" \
  CFLAGS=-O1 CPPFLAGS=-DFROM_CPPFLAGS=1 >"$out/options.log" 2>&1) ||
  { cat "$out/options.log"; fail "configure with options"; }
cache=$out/options/build-configure/CMakeCache.txt
config=$(cat "$out/options/build-configure/generated/gpurun/build_config.h")
expect_cache "$cache" CMAKE_INSTALL_PREFIX "$out/p" "--prefix"
expect_cache "$cache" CMAKE_BUILD_TYPE "Debug" "--enable-debug"
expect_cache "$cache" GPURUN_WITH_UCX "off" "--with-ucx=no"
expect_contains "$config" "GPURUN_HAVE_UCX 0" "--with-ucx=no"
expect_cache "$cache" GPURUN_WITH_OFI "on" "--with-ofi=DIR"
expect_cache "$cache" CMAKE_PREFIX_PATH "/usr" "--with-ofi=DIR"
expect_contains "$config" "GPURUN_HAVE_OFI 1" "--with-ofi=DIR"
expect_cache "$cache" GPURUN_BUILD_TESTS "OFF" "--disable-tests"
expect_cache "$cache" GPURUN_BUILD_BENCH "OFF" "--disable-bench"
expect_cache "$cache" CMAKE_C_COMPILER "$cc" "CC"
expect_cache "$cache" CMAKE_C_FLAGS "-DFROM_CPPFLAGS=1 -O1" "CFLAGS and CPPFLAGS"
expect_cache "$cache" CMAKE_CXX_FLAGS "-DFROM_CPPFLAGS=1" "CPPFLAGS for C++"
if [[ -x $nvcc ]]; then
  expect_cache "$cache" CMAKE_CUDA_COMPILER "$nvcc" "--with-cuda=DIR"
  expect_cache "$cache" CMAKE_CUDA_ARCHITECTURES "90;80-real" \
    "--with-cuda-arch"
  expect_contains "$config" "GPURUN_HAVE_CUDA 1" "--with-cuda=DIR"
  expect_contains "$config" "architectures 90;80-real" "--with-cuda-arch"
else
  expect_contains "$config" "GPURUN_HAVE_CUDA 0" "--with-cuda=no"
fi

# make's -jN reaches the build tool; no -j builds one job at a time.
makefile=$out/options/Makefile
expect_contains "$(make -n -f "$makefile" -j3 all)" "--parallel 3" "make -j3"
expect_contains "$(make -n -f "$makefile" all)" "--parallel 1" "make"
expect_contains "$(make -n -f "$makefile" install prefix=/elsewhere)" '--prefix "/elsewhere"' \
  "make install prefix="
echo "configure: help, errors and options as documented"
