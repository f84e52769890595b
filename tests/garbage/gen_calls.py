#!/usr/bin/env python3
"""Writes garbage_calls.c: one function per MPI function that mpi.h declares, which calls it
with arguments drawn by the test driver (garbage.c): handles that are valid, null, of another
kind or made up; negative, zero and moderate counts; null, valid and MPI_IN_PLACE buffers.

    gen_calls.py INCLUDE_DIR OUT.c
"""
import re
import sys

HEADERS = ["mpi_proto.h", "mpi_proto_coll.h", "mpi_proto_io.h", "mpi_proto_rma.h", "mpix.h"]

# Calls the driver never makes: they start or end MPI, start processes, or wait for a process
# or port that does not exist.
SKIP = {
    "MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Abort", "MPI_Comm_spawn",
    "MPI_Comm_spawn_multiple", "MPI_Comm_accept", "MPI_Comm_connect", "MPI_Comm_join",
    "MPI_Open_port", "MPI_Close_port", "MPI_Publish_name", "MPI_Lookup_name",
    "MPI_Unpublish_name", "MPI_T_init_thread", "MPI_T_finalize", "MPI_Pcontrol",
}

# Handle kinds, by C type: the driver's pool for each (garbage.c, enum pool).
HANDLE_POOLS = {
    "MPI_Comm": "kComm", "MPI_Group": "kGroup", "MPI_Datatype": "kType", "MPI_Op": "kOp",
    "MPI_Errhandler": "kErrhandler", "MPI_Request": "kRequest", "MPI_Message": "kMessage",
    "MPI_Info": "kInfo", "MPI_Win": "kWin", "MPI_Session": "kSession", "MPIX_Stream": "kStream",
    "MPI_Fint": "kFint", "MPIX_Grequest_class": "kFint",
}


# void* arguments that are no message buffer: addresses received (the caller's pointer
# variable), a value's bytes, state handed back to callbacks. MPI_IN_PLACE means nothing there.
NOT_BUFFERS = {"baseptr", "buffer_addr", "attribute_val", "value", "extra_state", "location",
               "obj_handle", "user_data"}


def prototypes(include_dir):
    text = ""
    for name in HEADERS:
        body = open(f"{include_dir}/{name}").read()
        body = body.split("/* BEGIN PMPI")[0]
        text += re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    pattern = r"^(?:int|double|MPI_\w+)\s+(MPIX?_\w+)\(([^;]*?)\)\s*GPURUN_API;"
    return re.findall(pattern, text, re.M | re.S)


def argument(index, param):
    """The C expression that draws argument `index` of type `param`, or None."""
    m = re.match(r"(.*?)(\w+)((?:\[\])*(?:\[3\])?)$", param)
    if not m:
        return None
    is_const = "const" in m.group(1)
    ctype = (m.group(1).replace("const", "").strip() + ("*" if m.group(3) else ""))
    ctype = ctype.replace(" ", "")
    if "[][3]" in param:
        return f"(int(*)[3])pick_pointer({index}, kData)"
    if ctype in HANDLE_POOLS:
        return f"({ctype})pick_handle({index}, {HANDLE_POOLS[ctype]})"
    if ctype in ("int", "MPI_T_cb_safety", "MPI_T_source_order"):
        return f"({ctype})pick_int({index})"
    if ctype in ("MPI_Count", "MPI_Aint", "MPI_Offset"):
        return f"({ctype})pick_long({index})"
    if ctype == "double":
        return "0.5"
    if ctype == "MPI_File":
        return f"pick_file({index})"
    if re.search(r"(function|_fn)\*?$", ctype):
        return f"({ctype.rstrip('*')}*)pick_function({index})"
    if ctype.startswith("MPI_T_") and not ctype.endswith("*"):
        return f"({ctype})0"
    if ctype == "MPI_Status*":
        return f"(MPI_Status*)pick_pointer({index}, kStatus)"
    if ctype == "char*":
        return f"(char*)pick_pointer({index}, {'kString' if is_const else 'kData'})"
    if ctype == "void*" and m.group(2) in NOT_BUFFERS:
        return f"(void*)pick_pointer({index}, kData)"
    if ctype == "void*":
        return f"({'const ' if is_const else ''}void*)pick_pointer({index}, kBuffer)"
    element = ctype[:-1] if ctype.endswith("*") else None
    if element == "int":
        return f"({ctype})pick_pointer({index}, kInts)"
    if element in ("MPI_Count", "MPI_Aint", "MPI_Offset"):
        return f"({ctype})pick_pointer({index}, kLongs)"
    if element in HANDLE_POOLS:
        return f"({ctype})pick_handles({index}, {HANDLE_POOLS[element]})"
    if element is not None:
        return f"({ctype})pick_pointer({index}, kData)"
    return None


def main():
    include_dir, out_path = sys.argv[1], sys.argv[2]
    out = ['/* Written by tests/garbage/gen_calls.py from mpi.h: do not edit. */',
           '#include "garbage.h"']
    names = []
    for name, params in prototypes(include_dir):
        params = " ".join(params.split())
        if name in SKIP or params in ("", "void"):
            continue
        args = []
        for i, p in enumerate(a.strip() for a in params.split(",")):
            if p == "...":
                continue
            expr = argument(i, p)
            if expr is None:
                sys.exit(f"gen_calls.py: {name}: no rule for argument '{p}'")
            args.append(expr)
        names.append(name)
        out.append(f"static void call_{name}(void) {{ (void){name}({', '.join(args)}); }}")
    out.append("const struct garbage_call garbage_calls[] = {")
    out += [f'    {{"{n}", call_{n}}},' for n in names]
    out.append("    {0, 0}};")
    with open(out_path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
