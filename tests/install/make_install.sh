#!/usr/bin/env bash
# make_install.sh SRC WORK CMAKE CC CXX LAUNCHER
# The MPI users' path: SRC/configure --prefix=WORK/prefix, make -j2, make install, run from
# the build directory WORK/obj as a VPATH build. Then checks that:
#   - make install ran with every file system read-only except WORK/prefix and WORK/obj, so
#     it wrote nothing anywhere else (checked first to refuse writes at all);
#   - the install manifest lists only files under the prefix, and the prefix holds only them;
#   - the prefix holds exactly the expected layout (bin, lib, include, package files,
#     gpurun, mpirun, mpiexec when LAUNCHER is "yes": the project has a launcher target, and
#     mpifort, mpif90, mpif77 where gfortran and MPICH's Fortran bindings are);
#   - the installed library finds everything it needs, with no build-tree path in its rpath.
# WORK/obj is kept between runs so that the build is incremental; the prefix is not.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
src=$1 work=$2 cmake=$3 cc=$4 cxx=$5 launcher=$6
here=$(cd "$(dirname "$0")" && pwd)
prefix=$work/prefix obj=$work/obj
rm -rf "$prefix" "$work/moved"
mkdir -p "$prefix" "$obj" "$obj/tmp"

cd "$obj" || exit 1
"$src/configure" --prefix="$prefix" --with-cuda=no --disable-tests --disable-bench \
  CMAKE="$cmake" CC="$cc" CXX="$cxx" || fail "configure"
make -j2 || fail "make -j2"

# The sandbox must refuse writes outside, or its pass below would mean nothing. Without
# mount namespaces (not root) only the manifest checks below remain, and the log says so.
sandbox=("$here/readonly_run.sh" "$prefix" "$obj" --)
if "${sandbox[@]}" touch "$work/outside" 2>/dev/null; then
  rm -f "$work/outside"
  fail "readonly_run.sh let a write outside its directories through"
elif [[ $? -eq 77 ]]; then
  echo "WARNING: no mount namespaces: writes outside $prefix are checked by the manifest only"
  sandbox=()
fi
TMPDIR=$obj/tmp "${sandbox[@]}" make install ||
  fail "make install failed, or wrote outside $prefix (see the read-only errors above)"

manifest=$obj/build-configure/install_manifest.txt
[[ -s $manifest ]] || fail "no install manifest"
while IFS= read -r f; do
  [[ $f == "$prefix"/* ]] || fail "the manifest lists $f, outside $prefix"
done <"$manifest"
installed=$(cd "$prefix" && find . ! -type d | sed 's|^\./||' | sort)
listed=$(sed "s|^$prefix/||" "$manifest" | sort)
expect_same "$installed" "$listed" "files under the prefix against the manifest"

# The layout. Headers: every *.h and *.cuh of SRC/include. Anything under share/ is allowed.
expected="bin/mpic++ bin/mpicc bin/mpicxx
lib/cmake/gpurun/gpurunConfig.cmake lib/cmake/gpurun/gpurunConfigVersion.cmake
lib/libmpi.so lib/libmpi.so.12 lib/libmpi.so.12.0.0 lib/libmpich.so.12
lib/pkgconfig/gpurun.pc lib/pkgconfig/mpi-c.pc lib/pkgconfig/mpi-cxx.pc lib/pkgconfig/mpi.pc
lib/pkgconfig/mpich.pc"
[[ $launcher == yes ]] && expected+=" bin/gpurun bin/mpiexec bin/mpirun"
# mpifort where gfortran and MPICH's Fortran bindings are (scripts/deps.sh installs them)
command -v gfortran >/dev/null && [[ -f /usr/lib/x86_64-linux-gnu/mpich/include/mpi.mod ]] &&
  expected+=" bin/mpif77 bin/mpif90 bin/mpifort"
headers=$(cd "$src" && find include \( -name '*.h' -o -name '*.cuh' \) -type f)
# shellcheck disable=SC2086  # one path a word
expected=$(printf '%s\n' $expected $headers | sort)
expect_same "$(grep -v '^share/' <<<"$installed")" "$expected" "installed layout"

links=(lib/libmpich.so.12 lib/libmpi.so.12 lib/libmpi.so bin/mpic++)
[[ -e $prefix/bin/mpifort ]] && links+=(bin/mpif90 bin/mpif77)
for link in "${links[@]}"; do
  [[ -L $prefix/$link ]] || fail "$link is not a symbolic link"
  [[ $(readlink "$prefix/$link") != /* ]] || fail "$link points to an absolute path"
done
expect_same "$(realpath "$prefix/lib/libmpich.so.12")" "$prefix/lib/libmpi.so.12.0.0" \
  "libmpich.so.12 target"
deps=$(env -u LD_LIBRARY_PATH ldd "$prefix/lib/libmpi.so.12")
expect_lacks "$deps" "not found" "libraries of the installed libmpi"
runpath=$(readelf -d "$prefix/lib/libmpi.so.12" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
# shellcheck disable=SC2016  # $ORIGIN is literal in an rpath
expect_contains "$runpath" '$ORIGIN' "RUNPATH of the installed libmpi"
expect_lacks "$runpath" "$obj" "RUNPATH of the installed libmpi"
expect_lacks "$runpath" "$src" "RUNPATH of the installed libmpi"
echo "installed into $prefix: $(wc -l <<<"$installed") files, nothing written elsewhere"
