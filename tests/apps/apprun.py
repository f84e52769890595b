"""What the application tests share: their command line, running one job, and the tally of
runs (a line per run, the output's end for a failed one, the summary that CTest matches)."""

import argparse
import os
import subprocess
import sys


def arguments(argv, doc, program, np_default, np_help="comma-separated rank counts"):
    """The parsed --gpurun, --lib, --program and --np; gpurun's path made absolute, since the
    runs start in a folder of their own."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--gpurun", required=True)
    parser.add_argument("--lib", required=True, help="the folder of gpurun's libmpi.so.12")
    parser.add_argument("--program", default=program)
    parser.add_argument("--np", default=np_default, help=np_help)
    args = parser.parse_args(argv)
    args.gpurun = os.path.abspath(args.gpurun)
    args.np = [int(n) for n in args.np.split(",")]
    return args


def run(cmd, libs, workdir, stdin=None, timeout=90):
    """(exit code or "timeout", output) of `cmd` with LD_LIBRARY_PATH `libs` (a list)."""
    env = dict(os.environ, LD_LIBRARY_PATH=":".join(libs))
    try:
        p = subprocess.run(cmd, env=env, input=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace", check=False,
                           timeout=timeout, cwd=workdir)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout or b""
        return "timeout", out.decode(errors="replace") if isinstance(out, bytes) else out


class Tally:
    def __init__(self):
        self.failures = self.total = 0

    def record(self, what, why, out):
        """One run: `why` is None when it passed, else what went wrong."""
        self.total += 1
        print("%s %s" % (what, "ok" if why is None else "FAILED: " + why))
        if why is not None:
            self.failures += 1
            sys.stdout.write(out[-2000:])
        sys.stdout.flush()

    def summary(self):
        """Prints the summary; the exit code."""
        if self.failures:
            print("%d of %d runs failed" % (self.failures, self.total))
            return 1
        print("all %d runs passed" % self.total)
        return 0
