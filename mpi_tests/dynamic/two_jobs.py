#!/usr/bin/env python3
"""Runs mpi_tests/dynamic/ports.c as two jobs started apart that meet on a port: one accepts and
writes the port name into a file, the other reads it and connects; with "names", the port goes
through MPI_Publish_name and MPI_Lookup_name instead, in a name directory of the test's own that
must be gone afterwards (every name unpublished, by the program or by MPI_Finalize). The
connecting side may be a singleton (the program started without gpurun). Passes when both jobs
exit 0 and print "No Errors"; prints both outputs otherwise.

Usage: two_jobs.py GPURUN PROGRAM ACCEPT_NP CONNECT_NP [singleton] [names]
"""
import os
import subprocess
import sys
import tempfile


def main():
    gpurun, program, accept_np, connect_np = sys.argv[1:5]
    singleton = "singleton" in sys.argv[5:]
    names = "names" in sys.argv[5:]
    with tempfile.TemporaryDirectory(prefix="gpurun-ports-") as tmp:
        names_dir = os.path.join(tmp, "names")
        env = dict(os.environ, GPURUN_NAME_DIR=names_dir)
        if names:
            meet = ("accept-name", "connect-name", "gpurun-test-service-%d" % os.getpid())
        else:
            meet = ("accept", "connect", os.path.join(tmp, "port"))
        accept = [gpurun, "-np", accept_np, "--timeout", "100", program, meet[0], meet[2]]
        connect = [program, meet[1], meet[2]] if singleton else \
            [gpurun, "-np", connect_np, "--timeout", "100", program, meet[1], meet[2]]
        a = subprocess.Popen(accept, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=env)
        c = subprocess.Popen(connect, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=env)
        outputs = []
        failed = False
        for name, proc in (("connecting job", c), ("accepting job", a)):
            try:
                out, _ = proc.communicate(timeout=110)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, _ = proc.communicate()
                out += "\n(timed out)"
            outputs.append((name, proc.returncode, out))
            failed |= proc.returncode != 0 or "No Errors" not in out
        if os.path.exists(names_dir):
            outputs.append(("name directory", 1, "left behind: %s" % os.listdir(names_dir)))
            failed = True
    for name, rc, out in outputs:
        print(f"--- {name}: exit {rc}\n{out}")
    print("FAILED" if failed else "both jobs: No Errors")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
