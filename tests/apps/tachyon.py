#!/usr/bin/env python3
"""The Tachyon ray tracer, built by Debian for MPICH (package libtachyon-mpich-0, loaded by the
program tachyon-nox of tachyon-bin-nox), run unchanged under gpurun on gpurun's libmpi.so.12.
Tachyon's MPI flavour splits the image's scanlines among the ranks; each rank sends its
scanlines to rank 0 through persistent requests (MPI_Send_init, MPI_Recv_init, MPI_Startall,
MPI_Testsome) and the ranks meet in MPI_Allgather and MPI_Barrier.

Each run renders a scene of this test's (two spheres, one of them transparent, over a
textured plane, with shadows and reflections; no antialiasing, whose random samples differ
between flavours) at one resolution, with one of the MPICH libraries (single-threaded, or
threads within each rank), and passes when the job exits 0, Tachyon lists as many nodes as
ranks (its verbose mode, +V), reports no internal MPI error (which it prints under MPICH's own
mpiexec too at some sizes, an odd height at -np 2 among them: the resolutions here are free of
it), and the image is byte for byte the one Tachyon's threaded library renders in one
process.

  tachyon.py --gpurun BIN --lib DIR [--program tachyon-nox] [--np 2,3,5]

Exit 1 when a run fails, with its output.
"""

import os
import re
import shutil
import sys
import tempfile

import apprun

LIBDIR = "/usr/lib/x86_64-linux-gnu"
REFERENCE = "libtachyon-mt-thr.so.0"
FLAVOURS = ["libtachyon-mpich.so.0", "libtachyon-mpich-thr.so.0"]
RESOLUTIONS = [(320, 240), (640, 480)]

SCENE = """BEGIN_SCENE
  RESOLUTION 320 240
CAMERA
  ZOOM 1.0
  ASPECTRATIO 1.0
  ANTIALIASING 0
  RAYDEPTH 6
  CENTER 0 1 -6
  VIEWDIR 0 -0.1 1
  UPDIR 0 1 0
END_CAMERA
LIGHT CENTER 4 5 -4 RAD 0.2 COLOR 1 1 1
SPHERE CENTER 0 0 0 RAD 1.0
  TEXTURE AMBIENT 0.1 DIFFUSE 0.6 SPECULAR 0.4 OPACITY 1.0
  PHONG PLASTIC 0.5 PHONG_SIZE 40
  COLOR 1 0.2 0.2
  TEXFUNC 0
SPHERE CENTER 1.8 -0.3 1 RAD 0.7
  TEXTURE AMBIENT 0.1 DIFFUSE 0.5 SPECULAR 0.0 OPACITY 0.6
  PHONG METAL 0.3 PHONG_SIZE 20
  COLOR 0.2 0.4 1
  TEXFUNC 0
PLANE CENTER 0 -1 0 NORMAL 0 1 0
  TEXTURE AMBIENT 0.1 DIFFUSE 0.8 SPECULAR 0.2 OPACITY 1.0
  COLOR 1 1 1
  TEXFUNC 1
    CENTER 0 -1 0 ROTATE 0 0 0 SCALE 1 1 1
END_SCENE
"""


def library_folder(workdir, library):
    """A folder whose libtachyon.so.0 is `library`: tachyon-nox loads that flavour from it."""
    folder = os.path.join(workdir, library)
    os.makedirs(folder, exist_ok=True)
    os.symlink(os.path.join(LIBDIR, library), os.path.join(folder, "libtachyon.so.0"))
    return folder


def render(cmd, libs, image, workdir):
    """(exit code or "timeout", output) of one rendering into `image`."""
    return apprun.run(cmd + ["-o", image, "-format", "PPM"], libs, workdir)


def verdict(rc, out, np, image, reference):
    if rc != 0:
        return "exit code %s" % rc
    nodes = len(re.findall(r"^ *Node +[0-9]+:", out, re.M))
    if nodes != np:
        return "Tachyon lists %d nodes, not %d" % (nodes, np)
    if "Internal Tachyon MPI error" in out:
        return "Tachyon reports an MPI error"
    if not os.path.exists(image):
        return "no image written"
    with open(image, "rb") as a, open(reference, "rb") as b:
        mine, theirs = a.read(), b.read()
    if mine != theirs:
        first = next((i for i in range(min(len(mine), len(theirs))) if mine[i] != theirs[i]),
                     min(len(mine), len(theirs)))
        return "image differs from the one-process image (%d vs %d bytes, first at byte %d)" % (
            len(mine), len(theirs), first)
    return None


def run_all(args, workdir, tally):
    """Every resolution, flavour and rank count; False when the one-process rendering failed."""
    with open(os.path.join(workdir, "scene.dat"), "w") as f:
        f.write(SCENE)
    reference_libs = [library_folder(workdir, REFERENCE)]
    flavour_libs = {f: [library_folder(workdir, f), args.lib] for f in FLAVOURS}
    image = os.path.join(workdir, "image.ppm")
    for width, height in RESOLUTIONS:
        base = [args.program, "scene.dat", "-res", str(width), str(height)]
        reference = os.path.join(workdir, "reference-%d.ppm" % width)
        rc, out = render(base, reference_libs, reference, workdir)
        if rc != 0 or not os.path.exists(reference):
            print("FAIL: the one-process rendering failed (%s):\n%s" % (rc, out[-2000:]))
            return False
        for flavour in FLAVOURS:
            for np in args.np:
                if os.path.exists(image):
                    os.remove(image)
                cmd = [args.gpurun, "-np", str(np), "--timeout", "60"] + base + ["+V"]
                rc, out = render(cmd, flavour_libs[flavour], image, workdir)
                tally.record("tachyon %dx%d %-26s -np %d" % (width, height, flavour, np),
                             verdict(rc, out, np, image, reference), out)
    return True


def main(argv):
    args = apprun.arguments(argv, __doc__, "/usr/bin/tachyon-nox", "2,3,5")
    missing = [f for f in [REFERENCE] + FLAVOURS if not os.path.exists(os.path.join(LIBDIR, f))]
    if shutil.which(args.program) is None or missing:
        print("FAIL: %s is missing: install Debian's tachyon-bin-nox, libtachyon-mt-0 and "
              "libtachyon-mpich-0 (scripts/deps.sh)" % (missing[0] if missing else args.program))
        return 1
    tally = apprun.Tally()
    with tempfile.TemporaryDirectory(prefix="gpurun-tachyon-") as workdir:
        if not run_all(args, workdir, tally):
            return 1
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
