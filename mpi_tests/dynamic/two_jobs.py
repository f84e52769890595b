#!/usr/bin/env python3
"""Runs mpi_tests/dynamic/ports.c as two jobs started apart that meet on a port: one accepts and
writes the port name into a file, the other reads it and connects. Each pair of sizes runs once;
the connecting side may be a singleton (the program started without gpurun). Passes when both
jobs exit 0 and print "No Errors"; prints both outputs otherwise.

Usage: two_jobs.py GPURUN PROGRAM ACCEPT_NP CONNECT_NP [singleton]
"""
import os
import subprocess
import sys
import tempfile


def main():
    gpurun, program, accept_np, connect_np = sys.argv[1:5]
    singleton = len(sys.argv) > 5 and sys.argv[5] == "singleton"
    with tempfile.TemporaryDirectory(prefix="gpurun-ports-") as tmp:
        name_file = os.path.join(tmp, "port")
        accept = [gpurun, "-np", accept_np, "--timeout", "100", program, "accept", name_file]
        connect = [program, "connect", name_file] if singleton else \
            [gpurun, "-np", connect_np, "--timeout", "100", program, "connect", name_file]
        a = subprocess.Popen(accept, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        c = subprocess.Popen(connect, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
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
    for name, rc, out in outputs:
        print(f"--- {name}: exit {rc}\n{out}")
    print("FAILED" if failed else "both jobs: No Errors")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
