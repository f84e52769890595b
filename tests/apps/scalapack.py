#!/usr/bin/env python3
"""Debian's ScaLAPACK test programs, built for MPICH (package scalapack-mpi-test), run unchanged
under gpurun on gpurun's libmpi.so.12: a real application's use of MPI (BLACS: communicators,
groups, derived datatypes, point-to-point, collectives and user ops) must give results that pass
the programs' own residual checks.

  scalapack.py --gpurun BIN --lib DIR [--dir MPICH_TESTS] [-np N]

Each program runs in a scratch copy of its input files. Exit 1 when a program fails, with the
lines that say why.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

DEFAULT_DIR = "/usr/lib/x86_64-linux-gnu/scalapack/mpich-tests"
# Drivers of the factorizations and eigensolvers (double and double complex): each reports
# "N tests completed and passed residual checks" and the number that failed.
# Left out: xdsep, one of whose random tests fails its residual check in some runs under
# MPICH's own mpiexec too, with the same residual; xdllt and xsllt, whose iterative refinement
# sometimes sends ranks into different collectives (ScaLAPACK's issue 121, "LU, LLT tests
# deadlocks and fails"): MPICH hangs there, gpurun ends the job naming the mismatch.
LAPACK = ["xdlu", "xzlu", "xdqr", "xzqr", "xdls", "xdinv", "xdnep", "xdhrd", "xdtrd", "xdbrd"]
# PBLAS level 1-3 (double; level 3 also double complex): a table of tests per routine with the
# counts passed, failed and skipped.
PBLAS = ["dpb1tst", "dpb2tst", "dpb3tst", "zpb3tst"]
# The BLACS tester: per suite "... TESTS; p PASSED, s SKIPPED, f FAILED." It ends with a test of
# BLACS_ABORT, which must end the whole job.
BLACS = "xCbtest"
BLACS_MIN_SUITES = 20


def run(args, workdir, program):
    env = dict(os.environ, LD_LIBRARY_PATH=args.lib)
    cmd = [args.gpurun, "-np", str(args.np), "--timeout", "120", os.path.join(workdir, program)]
    p = subprocess.run(cmd, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace", check=False)
    return p.returncode, p.stdout


def check_lapack(rc, out):
    passed = [int(n) for n in re.findall(r"(\d+) tests completed and passed", out)]
    failed = [int(n) for n in re.findall(r"(\d+) tests completed and failed", out)]
    if rc != 0:
        return "exit code %d" % rc
    if not passed or sum(passed) == 0:
        return "no test passed its residual checks"
    if sum(failed) != 0:
        return "%d tests failed their residual checks" % sum(failed)
    return None


def check_pblas(rc, out):
    rows = re.findall(r"^\s*\|\s+P\w+\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$", out, re.M)
    if rc != 0:
        return "exit code %d" % rc
    if not rows or sum(int(p) for _, p, _, _ in rows) == 0:
        return "no test passed"
    if any(int(f) != 0 for _, _, f, _ in rows):
        return "a routine has failed tests"
    return None


def check_blacs(rc, out):
    suites = re.findall(r"TESTS;\s*(\d+) PASSED,\s*(\d+) SKIPPED,\s*(\d+) FAILED", out)
    if len(suites) < BLACS_MIN_SUITES:
        return "%d test suites reported, expected at least %d" % (len(suites), BLACS_MIN_SUITES)
    if any(int(f) != 0 for _, _, f in suites):
        return "a suite has failures"
    if sum(int(p) for p, _, _ in suites) == 0:
        return "no test passed"
    if rc == 0 or "MPI_Abort" not in out:
        return "BLACS_ABORT did not end the job through MPI_Abort (exit code %d)" % rc
    return None


def link_inputs(source, workdir):
    """Links the programs and input files of `source` (relative links, resolved) into workdir."""
    os.mkdir(workdir)
    for name in os.listdir(source):
        path = os.path.realpath(os.path.join(source, name))
        if os.path.isfile(path) and "Testfile" not in name:
            os.symlink(path, os.path.join(workdir, name))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gpurun", required=True)
    parser.add_argument("--lib", required=True, help="the folder of gpurun's libmpi.so.12")
    parser.add_argument("--dir", default=DEFAULT_DIR)
    parser.add_argument("-np", type=int, default=4)
    args = parser.parse_args(argv)
    if not os.path.isdir(args.dir):
        print("FAIL: %s is missing: install Debian's scalapack-mpi-test (scripts/deps.sh)"
              % args.dir)
        return 1
    plan = [(p, "", check_lapack) for p in LAPACK]
    plan += [(p, "PBLAS", check_pblas) for p in PBLAS]
    plan.append((BLACS, "BLACS", check_blacs))
    failures = 0
    with tempfile.TemporaryDirectory(prefix="gpurun-scalapack-") as scratch:
        for program, sub, check in plan:
            workdir = os.path.join(scratch, sub or "top")
            if not os.path.isdir(workdir):
                link_inputs(os.path.join(args.dir, sub), workdir)
            start = time.monotonic()
            rc, out = run(args, workdir, program)
            why = check(rc, out)
            print("%-8s %5.1f s  %s" % (program, time.monotonic() - start,
                                        "ok" if why is None else "FAILED: " + why))
            sys.stdout.flush()
            if why is not None:
                failures += 1
                sys.stdout.write(out[-3000:])
    print("%d of %d programs failed" % (failures, len(plan)) if failures else
          "all %d programs passed" % len(plan))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
