#!/usr/bin/env python3
"""Message Passing Yorick (mpy), built by Debian for MPICH (package yorick-mpy-mpich2, program
mpy.mpich2), run unchanged under gpurun on gpurun's libmpi.so.12. mpy is an interpreter whose
rank 0 reads commands from standard input and hands parallel work to the other ranks; Debian
ships its self-checking test suite (testmp.i, in yorick-mpy-common's examples). Each run feeds
rank 0 a few of its tests through gpurun's standard input:

  testmp1, N   rank 0 and rank N send each other every message type and check them;
  testmp2, D   every rank sends to rank + D around the ring ("testmp2 passed on all N ranks");
  testmp3      mp_handout and mp_handin of every message type ("testmp3 passed ...");
  testmpool    a pool of tasks handed out and reaped, three ways ("nerrors=0" each);
  testmp4      a rank raises an error in a parallel task: every rank stops the task, rank 0
               reports the fault and asks whether to debug on that rank (the end of the input
               ends the job).

  mpy.py --gpurun BIN --lib DIR [--program mpy.mpich2] [--np 2,3,5]

A run passes when it exits 0 within its time and prints every line its tests promise. Exit 1
when a run fails, with its output.
"""

import gzip
import os
import shutil
import sys
import tempfile

import apprun

SUITE = "/usr/share/doc/yorick-mpy-common/examples/testmp.i.gz"


def runs(np):
    """(name, commands, lines the output must hold) for a job of np ranks."""
    passed = "passed on all %d ranks" % np
    pool = ["mpool finished (vpack) nerrors=0", "mpool self=1 finished (vsave) nerrors=0",
            "mpool list= finished (vpack) nerrors=0"]
    last = np - 1
    return [
        ("testmp", ["testmp"], ["testmp2 " + passed, "testmp3 " + passed] + pool),
        ("testmp1+testmp2", ["testmp1, %d" % last, "testmp2, %d" % max(1, last), "testmp2"],
         ["rank 0 send/recv worked", "rank %d send/recv worked" % last,
          "testmp2 " + passed]),
        ("testmp4", ["testmp4"],
         ["1 ranks report fault, parallel task halted", "this is the intentional fault",
          "debug on rank %d" % last]),
    ]


def run(args, np, commands, workdir):
    cmd = [args.gpurun, "-np", str(np), "--timeout", "60", args.program, "-j", "testmp.i"]
    return apprun.run(cmd, [args.lib], workdir, stdin="\n".join(commands + ["quit"]) + "\n")


def verdict(rc, out, expected):
    if rc != 0:
        return "exit code %s" % rc
    missing = [line for line in expected if line not in out]
    return "missing %r" % missing[0] if missing else None


def main(argv):
    args = apprun.arguments(argv, __doc__, "/usr/bin/mpy.mpich2", "2,3,5",
                            "comma-separated rank counts (2 or more)")
    if shutil.which(args.program) is None or not os.path.exists(SUITE):
        print("FAIL: %s or %s is missing: install Debian's yorick-mpy-mpich2 (scripts/deps.sh)"
              % (args.program, SUITE))
        return 1
    tally = apprun.Tally()
    with tempfile.TemporaryDirectory(prefix="gpurun-mpy-") as workdir:
        with gzip.open(SUITE, "rb") as src, open(os.path.join(workdir, "testmp.i"), "wb") as dst:
            dst.write(src.read())
        for np in args.np:
            for name, commands, expected in runs(np):
                rc, out = run(args, np, commands, workdir)
                tally.record("mpy -np %d %-16s" % (np, name), verdict(rc, out, expected), out)
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
