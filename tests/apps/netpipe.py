#!/usr/bin/env python3
"""NetPIPE, built by Debian for MPICH (package netpipe-mpich2, program NPmpich2), run unchanged
under gpurun on gpurun's libmpi.so.12 with two ranks. NetPIPE sends messages of growing sizes,
each size also 3 bytes below and above, back and forth (MPI_Send/MPI_Recv), with receives posted
ahead (-a: MPI_Irecv), one way only (-s: streaming), with the cache flushed (-I), by
synchronous sends (-S: MPI_Ssend), and from buffers that start off alignment (-O). Every size
is sent a fixed number of times (-n) to keep the runs short. With -i every received byte is
checked against what was sent ("Integrity check passed" or "... failed" per size).

  netpipe.py --gpurun BIN --lib DIR [--program NPmpich2] [--upper BYTES] [--repeats N]

A run passes when it exits 0, prints a line for every size up to about the upper bound (at
least half of it), and with -i says "passed" on every line and "failed" on none. Exit 1 when a
run fails, with its output. Left out, as they fail under MPICH's own mpiexec too: -B
(bidirectional; "Can't prepare to receive: outstanding receive!") and -z (MPI_ANY_SOURCE; rank 1
leaves after the first size).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

# (arguments, whether NetPIPE checks the data)
RUNS = [
    (["-i"], True),
    (["-i", "-O", "1,3"], True),
    (["-i", "-a"], True),
    (["-i", "-s"], True),
    (["-i", "-I"], True),
    (["-i", "-S"], True),
    ([], False),
    (["-a"], False),
    (["-s"], False),
]
SIZE_LINE = re.compile(r"^\s*\d+:\s+(\d+) bytes\s+\d+ times -->\s+(.*)$")


def verdict(out, rc, checked, upper):
    if rc != 0:
        return "exit code %s" % rc
    sizes = []
    for line in out.splitlines():
        m = SIZE_LINE.match(line)
        if not m:
            if "failed" in line.lower():
                return "a failure: " + line.strip()
            continue
        sizes.append(int(m.group(1)))
        if checked and "Integrity check passed" not in m.group(2):
            return "size %s: %s" % (m.group(1), m.group(2).strip())
        if not checked and "Mbps" not in m.group(2):
            return "size %s: no rate (%s)" % (m.group(1), m.group(2).strip())
    if not sizes:
        return "no size measured"
    if max(sizes) < upper // 2:
        return "stopped at %d bytes" % max(sizes)
    return None


def run(args, options):
    env = dict(os.environ, LD_LIBRARY_PATH=args.lib)
    cmd = [args.gpurun, "-np", "2", "--timeout", "120", args.program, "-u", str(args.upper),
           "-n", str(args.repeats)]
    cmd += options
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace", check=False, timeout=150,
                           cwd=args.workdir)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        return "timeout", (e.stdout or b"").decode(errors="replace")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gpurun", required=True)
    parser.add_argument("--lib", required=True, help="the folder of gpurun's libmpi.so.12")
    parser.add_argument("--program", default="/usr/bin/NPmpich2")
    parser.add_argument("--upper", type=int, default=1 << 20, help="largest message, bytes")
    parser.add_argument("--repeats", type=int, default=20, help="round trips per size")
    args = parser.parse_args(argv)
    if shutil.which(args.program) is None:
        print("FAIL: %s is missing: install Debian's netpipe-mpich2 (scripts/deps.sh)"
              % args.program)
        return 1
    failures = 0
    with tempfile.TemporaryDirectory(prefix="gpurun-netpipe-") as workdir:
        args.workdir = workdir  # NetPIPE writes its results to np.out there
        for options, checked in RUNS:
            failures += report(options, run(args, options), checked, args.upper)
    print("%d of %d runs failed" % (failures, len(RUNS)) if failures
          else "all %d runs passed" % len(RUNS))
    return 1 if failures else 0


def report(options, result, checked, upper):
    rc, out = result
    why = verdict(out, rc, checked, upper)
    print("NPmpich2 %-14s %s" % (" ".join(options) or "(ping-pong)",
                                  "ok" if why is None else "FAILED: " + why))
    if why is not None:
        sys.stdout.write(out[-2000:])
    sys.stdout.flush()
    return 0 if why is None else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
