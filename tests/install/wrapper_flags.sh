#!/usr/bin/env bash
# wrapper_flags.sh PREFIX SRC OUT VERSION
# The introspection flags of PREFIX/bin/mpicc, mpicxx and mpifort print what the peers' wrappers
# print, with PREFIX as the wrapper finds it at run time; compile-only commands get no link flags;
# MPICH_CC/OMPI_CC and -cc= choose the compiler; the wrapper works through symbolic links
# and from a directory whose name has a blank.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
prefix=$(realpath "$1") src=$2 out=$3 version=$4
mpicc=$prefix/bin/mpicc mpicxx=$prefix/bin/mpicxx
inc=$prefix/include lib=$prefix/lib
link="-L$lib -Wl,-rpath,$lib -Wl,--enable-new-dtags -lmpi"
cc=$("$mpicc" --showme:command)
cxx=$("$mpicxx" --showme:command)
command -v "$cc" >/dev/null || fail "--showme:command gave '$cc', not a compiler"
command -v "$cxx" >/dev/null || fail "mpicxx --showme:command gave '$cxx', not a compiler"
rm -rf "$out"
mkdir -p "$out"

# MPICH style: the whole command.
expect_same "$("$mpicc" -show)" "$cc -I$inc $link" "mpicc -show"
expect_same "$("$mpicc" -show hello.c -o hello)" "$cc -I$inc hello.c -o hello $link" \
  "mpicc -show with arguments"
expect_same "$("$mpicxx" -show a.cc)" "$cxx -I$inc a.cc $link" "mpicxx -show"
expect_same "$("$mpicc" -compile_info)" "$cc -I$inc" "mpicc -compile_info"
expect_same "$("$mpicc" -compile-info)" "$cc -I$inc" "mpicc -compile-info"
expect_same "$("$mpicc" -link_info)" "$cc -I$inc $link" "mpicc -link_info"
expect_same "$("$mpicc" -link-info)" "$cc -I$inc $link" "mpicc -link-info"

# Open MPI style: parts of it.
expect_same "$("$mpicc" --showme)" "$cc -I$inc $link" "mpicc --showme"
expect_same "$("$mpicc" --showme:compile)" "-I$inc" "mpicc --showme:compile"
expect_same "$("$mpicc" --showme:link)" "$link" "mpicc --showme:link"
expect_same "$("$mpicxx" -showme:link)" "$link" "mpicxx -showme:link"
expect_same "$("$mpicc" --showme:incdirs)" "$inc" "mpicc --showme:incdirs"
expect_same "$("$mpicc" --showme:libdirs)" "$lib" "mpicc --showme:libdirs"
expect_same "$("$mpicc" --showme:libs)" "mpi" "mpicc --showme:libs"
expect_same "$("$mpicc" --showme:version)" "mpicc: gpurun $version (Language: C)" \
  "mpicc --showme:version"
expect_same "$("$mpicxx" --showme:version)" "mpicxx: gpurun $version (Language: C++)" \
  "mpicxx --showme:version"
expect_contains "$("$mpicc" -help)" "--showme:link" "mpicc -help"
if "$mpicc" --showme:nonsense >/dev/null 2>&1; then fail "--showme:nonsense accepted"; fi

# Versions: ours first, then the compiler's own answer.
v=$("$mpicc" --version)
expect_same "$(head -1 <<<"$v")" "mpicc for gpurun version $version" "mpicc --version"
expect_same "$(tail -n +2 <<<"$v")" "$("$cc" --version)" "mpicc --version, compiler part"
v=$("$mpicc" -v 2>&1)
expect_contains "$v" "mpicc for gpurun version $version" "mpicc -v"
expect_contains "$v" "$("$cc" -dumpversion)" "mpicc -v, compiler part"

# Compile-only invocations get no link flags.
for flag in -c -E -S -M -MM -fsyntax-only; do
  expect_same "$("$mpicc" -show $flag x.c)" "$cc -I$inc $flag x.c" "mpicc -show $flag"
done
"$mpicc" -E -dM "$src/examples/hello.c" -o "$out/hello.i" || fail "mpicc -E"
grep -q "MPI_COMM_WORLD" "$out/hello.i" || fail "mpicc -E did not read PREFIX/include/mpi.h"

# Choosing the compiler: -cc= over MPICH_CC over OMPI_CC over the default.
expect_same "$(OMPI_CC=occ "$mpicc" -show -c x.c)" "occ -I$inc -c x.c" "OMPI_CC"
expect_same "$(MPICH_CC=mcc OMPI_CC=occ "$mpicc" -show -c x.c)" "mcc -I$inc -c x.c" "MPICH_CC"
expect_same "$(MPICH_CC=mcc "$mpicc" -cc=acc -show -c x.c)" "acc -I$inc -c x.c" "-cc="
expect_same "$(MPICH_CXX="ccache g++" "$mpicxx" -show -c a.cc)" "ccache g++ -I$inc -c a.cc" \
  "MPICH_CXX with words"
expect_same "$(OMPI_CXX=oxx "$mpicxx" -cxx=axx -show -c a.cc)" "axx -I$inc -c a.cc" "-cxx="
if err=$(MPICH_CC=/nonexistent/cc "$mpicc" -c x.c 2>&1); then fail "a missing compiler ran"; fi
expect_contains "$err" "compiler '/nonexistent/cc' not found" "missing compiler message"

# Correct calls with the ignore constants compile without a warning (GCC 11 and later warn on
# MPI_STATUSES_IGNORE passed to a parameter declared as an array; mpi_proto.h declares those
# parameters as pointers).
cat >"$out/ignore.c" <<'EOF_C'
#include <mpi.h>
int calls(MPI_Request *reqs) {
  int flag = 0, outcount = 0, indices[2];
  int err = MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  err |= MPI_Testall(2, reqs, &flag, MPI_STATUSES_IGNORE);
  err |= MPI_Waitsome(2, reqs, &outcount, indices, MPI_STATUSES_IGNORE);
  err |= MPI_Testsome(2, reqs, &outcount, indices, MPI_STATUSES_IGNORE);
  err |= MPI_Waitany(2, reqs, &outcount, MPI_STATUS_IGNORE);
  return err | MPI_Wait(reqs, MPI_STATUS_IGNORE);
}
EOF_C
"$mpicc" -O2 -Wall -Wextra -Werror -c "$out/ignore.c" -o "$out/ignore.o" ||
  fail "calls with MPI_STATUS(ES)_IGNORE gave warnings"

# Through symbolic links, absolute and relative, and a chain of them: PREFIX stays the same.
mkdir -p "$out/links/a" "$out/links/b"
ln -s "$mpicc" "$out/links/a/mpicc"
ln -s "../a/mpicc" "$out/links/b/mpicc"
ln -s "$prefix/bin/mpic++" "$out/links/b/mpic++"
expect_same "$("$out/links/a/mpicc" --showme:incdirs)" "$inc" "mpicc through a link"
expect_same "$("$out/links/b/mpicc" --showme:incdirs)" "$inc" "mpicc through two links"
expect_same "$("$out/links/b/mpic++" --showme:version)" "mpicxx: gpurun $version (Language: C++)" \
  "mpic++ through two links"
expect_same "$(cd "$prefix/bin" && sh mpicc --showme:libdirs)" "$lib" "sh mpicc from bin/"

# A copy of the tree under a directory whose name has a blank: the flags are quoted and the
# program it builds runs.
spaced="$out/with blank"
mkdir -p "$spaced"
cp -a "$prefix/bin" "$prefix/include" "$spaced/"
mkdir -p "$spaced/lib"
cp -a "$prefix/lib/"libmpi* "$spaced/lib/"
expect_same "$("$spaced/bin/mpicc" --showme:compile)" "\"-I$spaced/include\"" "quoted -I"
"$spaced/bin/mpicc" "$src/examples/hello.c" -o "$out/hello_blank" || fail "mpicc with a blank"
expect_libmpi_from "$out/hello_blank" "$spaced"
run_singleton "$out/hello_blank"
# mpifort (where made): MPICH's Fortran modules and bindings on gpurun's library, with an RPATH
# (not a RUNPATH) so that the bindings' libmpich.so.12 is gpurun's.
if [[ -x $prefix/bin/mpifort ]]; then
  mpifort=$prefix/bin/mpifort
  fc=$("$mpifort" --showme:command)
  fdir=$("$mpifort" --showme:incdirs | tail -1)
  [[ -f $fdir/mpi.mod ]] || fail "mpifort --showme:incdirs: no mpi.mod in '$fdir'"
  flink="-L$lib -Wl,-rpath,$lib -Wl,--disable-new-dtags -lmpichfort -lmpi"
  expect_same "$("$mpifort" -show a.f90)" "$fc -I$inc -I$fdir a.f90 $flink" "mpifort -show"
  expect_same "$("$mpifort" -show -c a.f90)" "$fc -I$inc -I$fdir -c a.f90" "mpifort -show -c"
  expect_same "$("$mpifort" --showme:link)" "$flink" "mpifort --showme:link"
  expect_same "$("$mpifort" --showme:libs)" "mpichfort mpi" "mpifort --showme:libs"
  expect_same "$("$prefix/bin/mpif90" --showme:version)" \
    "mpifort: gpurun $version (Language: Fortran)" "mpif90 --showme:version"
  expect_same "$(MPICH_FC=mfc "$mpifort" -fc=afc -show -c a.f90)" "afc -I$inc -I$fdir -c a.f90" \
    "-fc="
  expect_same "$(OMPI_FC=ofc "$mpifort" -show -c a.f90)" "ofc -I$inc -I$fdir -c a.f90" "OMPI_FC"
fi
echo "wrapper flags of $prefix: all as expected"
