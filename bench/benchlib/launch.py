"""bench/launch: start a program under one named configuration, with the same flags and
environment that bench/compare uses. Used by the CTest tests and by hand:

    bench/launch openmpi-tuned -np 2 build/bench/peers/openmpi/bin/osu_bw -m 1:1M
    bench/launch --show mpich -np 2 ./osu_latency      # print the command only
"""

import argparse
import os
import shlex
import sys
from pathlib import Path

from . import mpis


_VALUED = {"-np", "--build", "--gpurun"}


def _split(argv: list[str]) -> tuple[list[str], list[str]]:
    """Our arguments (options and the configuration) and the program with its arguments."""
    seen_config = False
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in _VALUED:
            i += 2
            continue
        if not a.startswith("-"):
            if seen_config:
                break
            seen_config = True
        i += 1
    return argv[:i], argv[i:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="bench/launch", usage="bench/launch [options] CONFIG [-np N] PROGRAM [ARGS...]",
        description="Run PROGRAM under an MPI configuration "
        "(openmpi, openmpi-tuned, mpich, mpich-tuned, gpurun).")
    parser.add_argument("config", help="configuration name")
    parser.add_argument("-np", type=int, default=2, help="number of ranks (default 2)")
    parser.add_argument("--build", default=str(mpis.REPO_DIR / "build"),
                        help="gpurun's build directory (default: build/)")
    parser.add_argument("--gpurun", help="gpurun launcher (default: BUILD/bin/gpurun)")
    parser.add_argument("--show", action="store_true", help="print the command, do not run it")
    ours, program = _split(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(ours)
    if not program:
        parser.error("no program given")
    try:
        config = mpis.launch_config(args.config, Path(args.build), args.gpurun)
    except ValueError as err:
        print(f"bench/launch: {err}", file=sys.stderr)
        return 2
    cmd = config.command(args.np, program)
    env = config.environ()
    if args.show:
        extra = [f"{k}={v}" for k, v in env.items() if os.environ.get(k) != v]
        print(shlex.join(["env", *extra, *cmd]) if extra else shlex.join(cmd))
        return 0
    if not Path(config.mpi.launcher).exists():
        print(f"bench/launch: {config.mpi.launcher} not found", file=sys.stderr)
        return 2
    sys.stdout.flush()
    os.execvpe(cmd[0], cmd, env)
    return 127
