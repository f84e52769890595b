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

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile

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
    env = dict(os.environ, LD_LIBRARY_PATH=args.lib)
    cmd = [args.gpurun, "-np", str(np), "--timeout", "60", args.program, "-j", "testmp.i"]
    stdin = "\n".join(commands + ["quit"]) + "\n"
    try:
        p = subprocess.run(cmd, env=env, input=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace", check=False,
                           timeout=90, cwd=workdir)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout or b""
        return "timeout", out.decode(errors="replace") if isinstance(out, bytes) else out


def verdict(rc, out, expected):
    if rc != 0:
        return "exit code %s" % rc
    missing = [line for line in expected if line not in out]
    return "missing %r" % missing[0] if missing else None


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gpurun", required=True)
    parser.add_argument("--lib", required=True, help="the folder of gpurun's libmpi.so.12")
    parser.add_argument("--program", default="/usr/bin/mpy.mpich2")
    parser.add_argument("--np", default="2,3,5", help="comma-separated rank counts (2 or more)")
    args = parser.parse_args(argv)
    args.gpurun = os.path.abspath(args.gpurun)  # the runs start in a folder of their own
    if shutil.which(args.program) is None or not os.path.exists(SUITE):
        print("FAIL: %s or %s is missing: install Debian's yorick-mpy-mpich2 (scripts/deps.sh)"
              % (args.program, SUITE))
        return 1
    failures = total = 0
    with tempfile.TemporaryDirectory(prefix="gpurun-mpy-") as workdir:
        with gzip.open(SUITE, "rb") as src, open(os.path.join(workdir, "testmp.i"), "wb") as dst:
            dst.write(src.read())
        for np in [int(n) for n in args.np.split(",")]:
            for name, commands, expected in runs(np):
                total += 1
                rc, out = run(args, np, commands, workdir)
                why = verdict(rc, out, expected)
                print("mpy -np %d %-16s %s" % (np, name, "ok" if why is None else "FAILED: " + why))
                if why is not None:
                    failures += 1
                    sys.stdout.write(out[-2000:])
                sys.stdout.flush()
    print("%d of %d runs failed" % (failures, total) if failures else "all %d runs passed" % total)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
