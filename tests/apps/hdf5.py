#!/usr/bin/env python3
"""Parallel HDF5 built for MPICH, run unchanged under gpurun: tests/apps/hdf5_parallel.c is
compiled with MPICH's mpicc against Debian's HDF5 for MPICH (package libhdf5-mpich-dev), so its
MPI-IO calls come from a real library's MPI-IO driver, and run under gpurun on gpurun's
libmpi.so.12 at each rank count given. Exit 1 when a run fails or leaves a file behind.

  hdf5.py --gpurun BIN --lib DIR --np 1,3
"""

import argparse
import os
import subprocess
import sys
import tempfile

HDF5_INCLUDE = "/usr/include/hdf5/mpich"
HDF5_LIB = "/usr/lib/x86_64-linux-gnu/hdf5/mpich"
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hdf5_parallel.c")


def build(workdir):
    exe = os.path.join(workdir, "hdf5_parallel")
    cmd = ["mpicc.mpich", "-O1", "-I" + HDF5_INCLUDE, SOURCE, "-L" + HDF5_LIB, "-lhdf5", "-o", exe]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       check=False)
    if p.returncode != 0:
        sys.exit("hdf5.py: building with MPICH's mpicc failed (is libhdf5-mpich-dev "
                 "installed? scripts/deps.sh installs it):\n" + p.stdout)
    return exe


def run(args, exe, np, datadir):
    env = dict(os.environ, LD_LIBRARY_PATH=args.lib)
    cmd = [args.gpurun, "-np", str(np), "--timeout", "120", exe, datadir]
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace", check=False)
    problems = []
    if p.returncode != 0:
        problems.append("exit code %d" % p.returncode)
    if "No Errors" not in p.stdout:
        problems.append("no \"No Errors\"")
    left = os.listdir(datadir)
    if left:
        problems.append("files left behind: %s" % ", ".join(sorted(left)))
    return problems, p.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpurun", required=True)
    parser.add_argument("--lib", required=True)
    parser.add_argument("--np", default="1,3")
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory(prefix="gpurun-hdf5-") as workdir:
        exe = build(workdir)
        for np in [int(n) for n in args.np.split(",")]:
            datadir = os.path.join(workdir, "data%d" % np)
            os.mkdir(datadir)
            problems, out = run(args, exe, np, datadir)
            print("hdf5_parallel -np %d: %s" % (np, "; ".join(problems) or "ok"))
            if problems:
                failed = True
                print(out)
    print("No Errors" if not failed else "hdf5.py: FAILED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
