#!/usr/bin/env python3
"""ABI checks of gpurun's mpi.h and libmpi against MPICH 4.0.x (the ABI of libmpi.so.12).

  constants  every object-like MPI_*/MPIX_* macro of our mpi.h has MPICH's value and C type;
             every MPICH constant is ours too unless listed in OMITTED with its reason
  types      sizeof/alignof/type of every typedef and extern variable, the fields of the
             status structs, and the signatures of the functions both headers declare
  symbols    libmpi exports every function the headers declare (MPI_ weak, PMPI_ strong),
             declares every MPI_/PMPI_ function it exports, and exports nothing else but
             api/abi_globals.cc's symbols, gpurun_* hooks and the MPICH functions that MPICH's
             Fortran bindings call (MPICH_FORTRAN_SUPPORT); every MPI(X)_/PMPI(X)_ symbol that
             MPICH's library exports, libmpi exports too, and so every symbol that MPICH's
             Fortran bindings (libmpichfort.so.12) need from the MPI library

Each check prints what it compared and exits 1 with the list of differences on failure.
"""

import argparse
import os
import re
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abi_header  # noqa: E402
from abi_header import CompileError, Header, run  # noqa: E402

MPIX_OR_MPI = re.compile(r"^MPIX?_\w+$")
# Names a gpurun header may declare: MPI's, plus MPICH's helper that MPI_DUP_FN expands to.
DECLARABLE = re.compile(r"^(P?MPIX?_\w+|MPIR_Dup_fn)$")

# gpurun's own additions to the MPICH interface: names allowed in our headers that MPICH's lack.
GPURUN_EXTENSIONS = frozenset([
    # include/mpix.h: bfloat16 (MPICH 4.0 has no such type) and the per-call CUDA path query
    "MPIX_BFLOAT16", "MPIX_CUDA_PATH_REFUSED", "MPIX_CUDA_PATH_STAGED", "MPIX_CUDA_PATH_NATIVE",
    "MPIX_Query_cuda_path", "PMPIX_Query_cuda_path",
    "MPIX_Comm_query_cuda_path", "PMPIX_Comm_query_cuda_path",
] + [
    # include/mpix.h: MPICH 4.1's streams (Debian's MPICH 4.0 lacks them); MPICH's names,
    # signatures and MPIX_STREAM_NULL value
    "MPIX_Stream", "MPIX_STREAM_NULL",
] + [prefix + name for prefix in ("MPIX_", "PMPIX_") for name in [
    "Info_set_hex", "Stream_create", "Stream_free", "Stream_comm_create",
    "Stream_comm_create_multiplex", "Comm_get_stream", "Stream_progress",
    "Stream_send", "Stream_isend", "Stream_recv", "Stream_irecv",
    "Stream_send_c", "Stream_isend_c", "Stream_recv_c", "Stream_irecv_c",
    "Send_enqueue", "Recv_enqueue", "Isend_enqueue", "Irecv_enqueue", "Wait_enqueue",
    "Waitall_enqueue", "Allreduce_enqueue", "Send_enqueue_c", "Recv_enqueue_c",
    "Isend_enqueue_c", "Irecv_enqueue_c", "Allreduce_enqueue_c"]] + [
    # include/mpix.h: kernel-triggered partitioned communication (MPI-ACX's names; MPICH has
    # none)
    "MPIX_Prequest", "MPIX_PREQUEST_NULL", "MPIX_Prequest_create", "PMPIX_Prequest_create",
    "MPIX_Prequest_free", "PMPIX_Prequest_free"] + [
    # include/mpi_proto.h: MPI-4.1's removal of added error classes, codes and strings (MPICH
    # 4.0 has them as MPIX_Delete_error_*)
    prefix + "Remove_error_" + what for prefix in ("MPI_", "PMPI_")
    for what in ("class", "code", "string")] + [
    # include/mpi_proto.h: MPI-4.1's status accessors, non-destructive tests of request arrays
    # and pair types
    prefix + name for prefix in ("MPI_", "PMPI_") for name in [
        "Status_get_source", "Status_set_source", "Status_get_tag", "Status_set_tag",
        "Status_get_error", "Status_set_error", "Request_get_status_any",
        "Request_get_status_all", "Request_get_status_some", "Type_get_value_index"]] + [
    # include/mpi.h, mpi_proto.h: MPI-4.1's buffers for buffered sends on a communicator or a
    # session, automatic buffers, and flushes (MPICH 4.0 has none)
    "MPI_BUFFER_AUTOMATIC"] + [
    prefix + name for prefix in ("MPI_", "PMPI_") for name in [
        "Buffer_flush", "Buffer_iflush", "Comm_attach_buffer", "Comm_attach_buffer_c",
        "Comm_detach_buffer", "Comm_detach_buffer_c", "Comm_flush_buffer", "Comm_iflush_buffer",
        "Session_attach_buffer", "Session_attach_buffer_c", "Session_detach_buffer",
        "Session_detach_buffer_c", "Session_flush_buffer", "Session_iflush_buffer",
        "Get_hw_resource_info"]] + [
    # include/mpi_proto.h: MPI-5.0's ABI queries and handle conversions (api/abi_mpi5.cc)
    prefix + name for prefix in ("MPI_", "PMPI_") for name in
    ["Abi_get_version", "Abi_get_info"] +
    ["%s_%s" % (kind, way) for way in ("toint", "fromint") for kind in (
        "Comm", "Errhandler", "File", "Group", "Info", "Message", "Op", "Request", "Session",
        "Type", "Win")]])

# MPICH names that gpurun's mpi.h leaves out on purpose, with the reason.
OMITTED = [
    (r"MPI_AINT_FMT_(DEC|HEX)_SPEC", "MPICH's own printf helpers, not MPI"),
    (r"MPI_INCLUDED|MPI_PROTO_H_INCLUDED|MPI_FILE_DEFINED", "MPICH's include guards"),
    (r"MPIX_ERR_\w+", "gpurun ends the job when a process fails: a program that tests for the "
     "fault-tolerance classes with #ifdef builds without its fault-tolerant path (mpix.h)"),
    (r"MPI_F08_status_\w*|MPIR_\w+|QMPI_\w+", "MPICH internals"),
]

# Scalar and pointer types a constant may have; anything else is reported as a function pointer
# and compared by the symbol it points to.
C_TYPES = ["_Bool", "char", "signed char", "unsigned char", "short", "unsigned short", "int",
           "unsigned int", "long", "unsigned long", "long long", "unsigned long long", "float",
           "double", "void *", "int *", "char *", "const char *", "char **", "char ***",
           "MPI_Status *"]

CONSTANTS_PRELUDE = r"""
#define _GNU_SOURCE /* dladdr */
#include <mpi.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#define TYPE_OF(x) _Generic((x), %s, default: "function pointer")
static void show(const char *name, const char *type, long long value) {
  Dl_info info;
  void *address = (void *)(intptr_t)value;
  if (strcmp(type, "function pointer") != 0 || value == 0) {
    printf("%%s %%s %%lld (0x%%llx)\n", name, type, value, (unsigned long long)value);
  } else if (dladdr(address, &info) && info.dli_sname && info.dli_saddr == address) {
    printf("%%s %%s &%%s\n", name, type, info.dli_sname);
  } else {
    printf("%%s %%s unnamed address\n", name, type);
  }
}
int main(void) {
""" % ", ".join('%s: "%s"' % (t, t) for t in C_TYPES)

TYPES_PRELUDE = r"""
#include <mpi.h>
#include <cstddef>
#include <cstdio>
#include <type_traits>
#include <typeinfo>
template <class T> void show_type(const char *name) {
  if constexpr (std::is_function_v<T>) {
    std::printf("type %s function %s\n", name, typeid(T).name());
  } else {
    std::printf("type %s size %zu align %zu %s\n", name, sizeof(T), alignof(T), typeid(T).name());
  }
}
#define SHOW_FIELD(s, f) \
  std::printf("field %s.%s offset %zu size %zu %s\n", #s, #f, offsetof(s, f), sizeof(s::f), \
              typeid(decltype(s::f)).name())
#define SHOW_VAR(v) std::printf("variable %s %s\n", #v, typeid(decltype(v)).name())
#define SHOW_FUNC(f) std::printf("function %s %s\n", #f, typeid(f).name())
int main() {
"""


class Check:
    """Collects differences; report() prints them and returns the exit status."""

    def __init__(self, name):
        self.name = name
        self.errors = []

    def fail(self, message):
        self.errors.append(message)

    def report(self, compared):
        for e in self.errors:
            print("FAIL: " + e)
        print("%s: compared %d items, %d differences" % (self.name, compared, len(self.errors)))
        return 1 if self.errors else 0


def omitted(name):
    return any(re.fullmatch(pattern, name) for pattern, _ in OMITTED)


def build_and_run(args, source, name, lang, link):
    """Compiles source as C or C++ with link["cflags"], links link["libs"], runs it."""
    src = os.path.join(args.workdir, name + (".c" if lang == "c" else ".cc"))
    exe = os.path.join(args.workdir, name)
    with open(src, "w") as f:
        f.write(source)
    compiler = args.cc if lang == "c" else args.cxx
    std = "-std=c11" if lang == "c" else "-std=c++20"
    obj = exe + ".o"
    run([compiler, std, "-fPIE", "-w", "-DMPICH_SKIP_MPICXX", "-c", src, "-o", obj] +
        link["cflags"])
    run([args.cxx, "-pie", "-rdynamic", obj, "-o", exe] + link["libs"] + ["-ldl"])
    return run([exe])


def parse_lines(text, key_fields=1):
    """'a b rest...' lines -> {'a b': 'rest...'} keyed by the first key_fields words."""
    result = {}
    for line in text.splitlines():
        words = line.split(" ")
        result[" ".join(words[:key_fields])] = " ".join(words[key_fields:])
    return result


def side_flags(args, ours):
    """Compiler and linker arguments that build a probe against our header or MPICH's."""
    if ours:
        obj = os.path.join(args.workdir, "abi_globals.o")
        if not os.path.exists(obj):
            run([args.cxx, "-std=c++20", "-fPIC", "-I", args.our_include, "-c", args.abi_globals,
                 "-o", obj])
        return {"cflags": ["-I", args.our_include], "libs": [obj]}
    return {"cflags": ["-I", args.mpich_include], "libs": [args.mpich_lib]}


def check_constants(args):
    check = Check("constants")
    our_header = Header(args.cc, args.our_include, args.workdir)
    ours = our_header.macros()
    # Enumerators (MPI_T_cb_safety's, as MPICH has them) are compared by value like macros.
    ours.update((name, "enumerator") for name in
                our_header.declarations(only_file="mpi.h").enumerators)
    mpich_header = Header(args.cc, args.mpich_include, args.workdir)
    theirs = set(mpich_header.macros()) | set(
        mpich_header.declarations(only_file="mpi.h").enumerators)
    if not ours:
        check.fail("no MPI_ constants found in %s/mpi.h" % args.our_include)
    shared = sorted(name for name in ours if name in theirs)
    for name in sorted(set(ours) - theirs):
        if name not in GPURUN_EXTENSIONS:
            check.fail("%s is defined by gpurun (as %s) but not by MPICH" % (name, ours[name]))
    body = []
    for name in shared:
        if ours[name] == "":
            body.append('  puts("%s defined");' % name)
        else:
            body.append('  show("%s", TYPE_OF(%s), (long long)(%s));' % (name, name, name))
    source = CONSTANTS_PRELUDE + "\n".join(body) + "\n  return 0;\n}\n"
    got = parse_lines(build_and_run(args, source, "constants_gpurun", "c", side_flags(args, True)))
    want = parse_lines(build_and_run(args, source, "constants_mpich", "c",
                                     side_flags(args, False)))
    for name in shared:
        if got.get(name) != want.get(name):
            check.fail("%s: gpurun %s, MPICH %s" % (name, got.get(name), want.get(name)))
    for name in sorted(theirs):
        if MPIX_OR_MPI.match(name) and name not in ours and not omitted(name):
            check.fail("%s is defined by MPICH but missing from gpurun's mpi.h" % name)
    return check.report(len(ours))


def shared_names(check, kind, ours, theirs):
    """Names both headers declare; reports the ones only one of them declares."""
    for name in sorted(set(ours) - set(theirs)):
        if not DECLARABLE.match(name):
            check.fail("%s %s in gpurun's headers is outside the MPI namespace" % (kind, name))
        elif name not in GPURUN_EXTENSIONS:
            check.fail("%s %s is declared by gpurun but not by MPICH" % (kind, name))
    if kind != "function":  # functions arrive as the library implements them
        for name in sorted(set(theirs) - set(ours)):
            if MPIX_OR_MPI.match(name) and not omitted(name):
                check.fail("%s %s is declared by MPICH but missing from gpurun's mpi.h" %
                           (kind, name))
    return sorted(set(ours) & set(theirs))


def check_types(args):
    check = Check("types")
    ours_h = Header(args.cc, args.our_include, args.workdir)
    theirs_h = Header(args.cc, args.mpich_include, args.workdir)
    ours, theirs = ours_h.declarations(), theirs_h.declarations()
    lines = ['show_type<%s>("%s");' % (name, name)
             for name in shared_names(check, "type", ours.typedefs, theirs.typedefs)]
    lines += ["SHOW_VAR(%s);" % name
              for name in shared_names(check, "variable", ours.variables, theirs.variables)]
    lines += ["SHOW_FUNC(%s);" % name
              for name in shared_names(check, "function", ours_h.prototypes(),
                                       theirs_h.prototypes())]
    for struct, fields in sorted(ours.fields.items()):
        if theirs.fields.get(struct) != fields:
            check.fail("struct %s fields: gpurun %s, MPICH %s" %
                       (struct, fields, theirs.fields.get(struct)))
        lines += ["SHOW_FIELD(%s, %s);" % (struct, f) for f in fields]
    source = TYPES_PRELUDE + "\n".join("  " + line for line in lines) + "\n  return 0;\n}\n"
    got = parse_lines(build_and_run(args, source, "types_gpurun", "c++", side_flags(args, True)),
                      2)
    want = parse_lines(build_and_run(args, source, "types_mpich", "c++", side_flags(args, False)),
                       2)
    for key in sorted(got):
        if got[key] != want.get(key):
            check.fail("%s: gpurun %s, MPICH %s" % (key, got[key], want.get(key)))
    return check.report(len(got))


# MPICH's own functions that its Fortran bindings call besides MPI's (api/attr_fortran.cc,
# api/grequest.cc): libmpi exports them, undeclared, so that Fortran programs built with MPICH
# run on it.
MPICH_FORTRAN_SUPPORT = frozenset(
    ["MPII_%s_%s_attr" % (obj, op) for obj in ("Comm", "Type", "Win") for op in ("set", "get")] +
    ["MPII_Keyval_set_proxy", "MPII_Grequest_set_lang_f77"])


def undefined_symbols(args, path):
    """Unversioned undefined dynamic symbols of a shared library (those it takes from a library
    that versions none, such as MPICH's; glibc's and libgfortran's carry a version)."""
    names = set()
    for line in run([args.nm, "-D", "--undefined-only", path]).splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U" and "@" not in parts[1]:
            names.add(parts[1])
    return names


def exported_symbols(args, path):
    """Defined dynamic symbols of a shared library: name -> nm type letter."""
    symbols = {}
    for line in run([args.nm, "-D", "--defined-only", path]).splitlines():
        parts = line.split()
        if len(parts) == 3:
            symbols[parts[2]] = parts[1]
    return symbols


def abi_globals_exports(args):
    """Global default-visibility symbols that api/abi_globals.cc defines."""
    obj = os.path.join(args.workdir, "abi_globals_hidden.o")
    run([args.cxx, "-std=c++20", "-fPIC", "-fvisibility=hidden", "-I", args.our_include, "-c",
         args.abi_globals, "-o", obj])
    names = set()
    for line in run([args.readelf, "-sW", obj]).splitlines():
        parts = line.split()
        if (len(parts) == 8 and parts[4] in ("GLOBAL", "WEAK") and parts[5] == "DEFAULT" and
                parts[6] != "UND"):
            names.add(parts[7])
    return names


def check_symbols(args):
    check = Check("symbols")
    soname = re.search(r"\(SONAME\)\s+Library soname: \[([^]]+)\]",
                       run([args.readelf, "-dW", args.lib]))
    if not soname or soname.group(1) != "libmpi.so.12":
        check.fail("%s has SONAME %s, not libmpi.so.12" %
                   (args.lib, soname.group(1) if soname else "(none)"))
    extra = [os.path.basename(p) for p in args.extra_header]
    header = Header(args.cc, args.our_include, args.workdir, extra)
    functions, variables = set(header.prototypes()), set(header.declarations().variables)
    globals_ = abi_globals_exports(args)
    exported = exported_symbols(args, args.lib)
    for name in sorted(functions):
        binding = exported.get(name)
        want = "W" if re.match(r"MPIX?_", name) else "T"
        if binding is None:
            check.fail("function %s is declared but not exported" % name)
        elif binding != want:
            check.fail("function %s is exported as '%s', expected '%s' (%s)" %
                       (name, binding, want, "weak" if want == "W" else "strong"))
    for name in sorted(variables):
        if exported.get(name) not in ("D", "B", "R", "V"):
            check.fail("variable %s is declared but not exported as data (nm '%s')" %
                       (name, exported.get(name)))
    for name in sorted(globals_ - variables - functions):
        check.fail("api/abi_globals.cc defines %s, which no header declares" % name)
    for name in sorted(globals_ - set(exported)):
        check.fail("api/abi_globals.cc defines %s, which the library does not export" % name)
    # A binary built against MPICH may refer to any MPI symbol MPICH's library exports;
    # each must resolve here, else such a binary does not load, or dies in the dynamic linker at
    # the call.
    mpich_exports = exported_symbols(args, args.mpich_lib)
    for name in sorted(mpich_exports):
        if re.match(r"P?MPIX?_", name) and name not in exported:
            check.fail("%s is exported by MPICH's library but not by gpurun's: a binary built "
                       "against MPICH that refers to it cannot run" % name)
    for name in sorted(undefined_symbols(args, args.mpich_fort_lib)):
        if name not in exported:
            check.fail("MPICH's Fortran bindings (%s) need %s, which gpurun's library does not "
                       "export: a Fortran program built with MPICH fails when it calls it" %
                       (os.path.basename(args.mpich_fort_lib), name))
    for name, kind in sorted(exported.items()):
        if name in functions or name in variables or name in globals_:
            continue
        if name in MPICH_FORTRAN_SUPPORT:
            continue
        if name.startswith("gpurun_"):
            continue
        what = "MPI function" if re.match(r"P?MPIX?_", name) else "symbol"
        check.fail("%s %s (nm '%s') is exported but not declared" % (what, name, kind))
    return check.report(len(exported))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("check", choices=["constants", "types", "symbols"])
    p.add_argument("--cc", default="cc")
    p.add_argument("--cxx", default="c++")
    p.add_argument("--nm", default="nm")
    p.add_argument("--readelf", default="readelf")
    p.add_argument("--our-include", required=True, help="gpurun's include/ directory")
    p.add_argument("--abi-globals", required=True, help="path of api/abi_globals.cc")
    p.add_argument("--mpich-include", default="/usr/include/x86_64-linux-gnu/mpich")
    p.add_argument("--mpich-lib", default="/usr/lib/x86_64-linux-gnu/libmpich.so.12")
    p.add_argument("--mpich-fort-lib", default="/usr/lib/x86_64-linux-gnu/libmpichfort.so.12")
    p.add_argument("--lib", help="libmpi.so.12 to check (symbols)")
    p.add_argument("--extra-header", action="append", default=[],
                   help="another public header to scan for declarations (symbols)")
    p.add_argument("--workdir", required=True, help="scratch directory for generated files")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    args.workdir = abi_header.scratch_dir(args.workdir, args.check)
    for attr in ("our_include", "abi_globals", "mpich_include", "mpich_lib", "mpich_fort_lib",
                 "lib"):
        if getattr(args, attr):
            setattr(args, attr, os.path.abspath(getattr(args, attr)))
    if args.check in ("constants", "types"):
        for path in (os.path.join(args.mpich_include, "mpi.h"), args.mpich_lib):
            if not os.path.exists(path):
                print("FAIL: %s is missing: the ABI reference is MPICH's; install libmpich-dev "
                      "(scripts/deps.sh)" % path)
                return 1
    if args.check == "symbols" and not (args.lib and os.path.exists(args.lib)):
        print("FAIL: library %s not found" % args.lib)
        return 1
    if args.check == "symbols" and not os.path.exists(args.mpich_fort_lib):
        print("FAIL: %s is missing: install libmpich-dev (scripts/deps.sh)" % args.mpich_fort_lib)
        return 1
    try:
        return {"constants": check_constants, "types": check_types,
                "symbols": check_symbols}[args.check](args)
    except CompileError as e:
        print("FAIL: %s" % e)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
