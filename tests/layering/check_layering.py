#!/usr/bin/env python3
"""Checks the layering of DESIGN.md: a file may include only from its own module and the
modules below it. Runs at every build (target `layering`) and as a CTest.

Usage: check_layering.py ROOT          check the tree at ROOT
       check_layering.py --self-test   check that violations are caught
"""
import pathlib
import re
import sys
import tempfile

# Bottom up. A module may include from itself and from every module before it.
LAYERS = [
    "runtime/base",
    "runtime/topo",
    "runtime/bootstrap",
    "runtime/progress",
    "runtime/accel",
    "runtime/transport",
    "runtime/core",
    "runtime/io",
    "cuda",
    "pml",
    "coll",
    "api",
]
# The launcher uses base, topo and the bootstrap protocol only, never pml, coll or api.
LAUNCHER_ALLOWED = ["runtime/base", "runtime/topo", "runtime/bootstrap", "launcher"]
# Only the API layer (and programs that use MPI) include the public MPI headers.
MPI_HEADERS = {"mpi.h", "mpi_proto.h", "mpi_proto_coll.h", "mpi_proto_io.h", "mpi_proto_rma.h",
               "mpix.h", "gpurun/device.cuh"}
CHECKED_TOPS = set(l.split("/")[0] for l in LAYERS) | {"launcher"}
SOURCE_SUFFIXES = {".h", ".cc", ".cu", ".cuh", ".c", ".hpp", ".cpp"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def module_of(rel):
    """The layer a path belongs to, or None for paths outside the layering."""
    text = rel.as_posix()
    for layer in sorted(LAYERS + ["launcher"], key=len, reverse=True):
        if text == layer or text.startswith(layer + "/"):
            return layer
    return None


def allowed(src_module, dst_module):
    if src_module == "launcher":
        return dst_module in LAUNCHER_ALLOWED
    if dst_module == "launcher":
        return False
    return LAYERS.index(dst_module) <= LAYERS.index(src_module)


def check_file(root, path):
    rel = path.relative_to(root)
    src = module_of(rel)
    if src is None:
        return []
    errors = []
    for lineno, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        m = INCLUDE.match(line)
        if not m:
            continue
        target = m.group(2)
        if pathlib.PurePosixPath(target).name in MPI_HEADERS and src != "api":
            errors.append(f"{rel}:{lineno}: {src} includes the public MPI header {target}; "
                          "only api/ may")
            continue
        dst = module_of(pathlib.PurePosixPath(target))
        if dst is not None and not allowed(src, dst):
            errors.append(f"{rel}:{lineno}: {src} includes {target} from {dst}, a layer above "
                          "it or outside what it may use (see DESIGN.md, Layout and layering)")
    return errors


def check_tree(root):
    errors = []
    for top in sorted(CHECKED_TOPS):
        base = root / top
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.suffix in SOURCE_SUFFIXES and path.is_file():
                errors.extend(check_file(root, path))
    return errors


def self_test():
    cases = {
        "runtime/core/ok.h": '#include "runtime/base/status.h"\n',
        "runtime/base/bad_up.h": '#include "runtime/core/group.h"\n',
        "launcher/bad_pml.cc": '#include "pml/pml.h"\n',
        "launcher/ok.cc": '#include "runtime/bootstrap/keys.h"\n',
        "pml/bad_mpi.cc": "#include <mpi.h>\n",
        "api/ok.cc": '#include <mpi.h>\n#include "coll/coll.h"\n',
    }
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        for name, text in cases.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        errors = check_tree(root)
    flagged = {e.split(":")[0] for e in errors}
    expected = {"runtime/base/bad_up.h", "launcher/bad_pml.cc", "pml/bad_mpi.cc"}
    if flagged != expected:
        print(f"self-test failed: flagged {sorted(flagged)}, expected {sorted(expected)}")
        return 1
    print("self-test passed: every planted violation was caught, nothing else")
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2:
        print(__doc__)
        return 2
    errors = check_tree(pathlib.Path(argv[1]).resolve())
    for e in errors:
        print(e)
    if errors:
        print(f"layering: {len(errors)} violation(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
