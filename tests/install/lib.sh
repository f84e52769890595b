# shellcheck shell=bash
# Helpers shared by the install tests (sourced).
set -euo pipefail

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# excerpt TEXT: at most its first 40 lines, for failure messages.
excerpt() {
  head -n 40 <<<"$1"
}

# expect_contains TEXT WORD WHAT: TEXT must contain WORD.
expect_contains() {
  [[ $1 == *"$2"* ]] || fail "$3: expected '$2' in: $(excerpt "$1")"
}

# expect_lacks TEXT WORD WHAT: TEXT must not contain WORD.
expect_lacks() {
  [[ $1 != *"$2"* ]] || fail "$3: unexpected '$2' in: $(excerpt "$1")"
}

# expect_same A B WHAT
expect_same() {
  [[ $1 == "$2" ]] || fail "$3: expected '$2', got '$1'"
}

# resolved_lib BINARY NAME: the file the dynamic loader picks for NAME, without LD_LIBRARY_PATH.
resolved_lib() {
  env -u LD_LIBRARY_PATH ldd "$1" | sed -n "s/^[[:space:]]*$2 => \\(.*\\) (0x[0-9a-f]*)\$/\\1/p"
}

# expect_libmpi_from BINARY PREFIX: BINARY loads libmpi.so.12 from PREFIX/lib, and nothing
# it needs is missing.
expect_libmpi_from() {
  local deps
  deps=$(env -u LD_LIBRARY_PATH ldd "$1")
  expect_lacks "$deps" "not found" "libraries of $1"
  expect_same "$(realpath "$(resolved_lib "$1" libmpi.so.12)")" \
    "$(realpath "$2/lib/libmpi.so.12")" "libmpi.so.12 loaded by $1"
}

# run_singleton PROGRAM: runs an MPI hello as a singleton and checks what it prints.
run_singleton() {
  local out
  out=$(env -u LD_LIBRARY_PATH timeout 60 "$1") || fail "$1 exited with $?: $out"
  expect_contains "$out" "rank 0 of 1" "singleton run of $1"
}

# expect_cache CACHE KEY VALUE WHAT: the CMake cache file CACHE sets KEY (any type) to VALUE.
expect_cache() {
  local got
  got=$(sed -n "s/^$2:[A-Z]*=//p" "$1")
  [[ $got == "$3" ]] || fail "$4: expected $2=$3 in $1, got '$got'"
}
