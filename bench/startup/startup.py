#!/usr/bin/env python3
"""Startup bar: wall time of `<launcher> -np N ./hello` (MPI_Init + MPI_Finalize) for gpurun,
Debian's MPICH (mpiexec.mpich, hydra) and Open MPI (mpirun.openmpi), each with hello built by
its own compiler wrapper (gpurun's: the build tree's include/ and lib/ directly). Runs are
interleaved (one of each launcher per round) so that load from elsewhere hits all alike, and
a launch of /bin/true shows the launcher's own share. Prints a Markdown table of medians.
--programs K starts the ranks as K programs of one job (`-np a prog : -np b prog ...`, MPMD),
which every launcher here takes alike.

usage: bench/startup/startup.py [--build build] [--runs 20] [--np 2] [--programs 1]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def build_hellos(build, work):
    """Returns {name: (launcher argv prefix, hello path)} for every MPI found."""
    src = os.path.join(HERE, "hello.c")
    out = {}
    gpurun = os.path.join(build, "bin", "gpurun")
    lib = os.path.join(build, "lib")
    if os.path.exists(gpurun) and os.path.exists(os.path.join(lib, "libmpi.so.12")):
        exe = os.path.join(work, "hello-gpurun")
        subprocess.run(["cc", "-O2", src, "-o", exe, "-I", os.path.join(ROOT, "include"),
                        "-L", lib, "-lmpi", f"-Wl,-rpath,{lib}"], check=True)
        out["gpurun"] = ([gpurun], exe)
    else:
        sys.exit(f"startup.py: {gpurun} or {lib}/libmpi.so.12 missing: build gpurun first")
    peers = {"mpich": ("mpicc.mpich", ["mpiexec.mpich"]),
             "openmpi": ("mpicc.openmpi", ["mpirun.openmpi", "--allow-run-as-root"])}
    for name, (cc, launcher) in peers.items():
        if shutil.which(cc) is None or shutil.which(launcher[0]) is None:
            print(f"startup.py: {name} not installed ({cc}, {launcher[0]}); skipped",
                  file=sys.stderr)
            continue
        exe = os.path.join(work, f"hello-{name}")
        subprocess.run([cc, "-O2", src, "-o", exe], check=True)
        out[name] = (launcher, exe)
    return out


def command(launcher, np, programs, exe):
    """`launcher -np N exe`, or the N ranks split over `programs` copies of exe, ':' apart."""
    argv = list(launcher)
    for k in range(programs):
        share = np // programs + (1 if k < np % programs else 0)
        argv += ([":"] if k else []) + ["-np", str(share), exe]
    return argv


def timed(argv, env):
    start = time.perf_counter()
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, env=env, timeout=120)
    elapsed = time.perf_counter() - start
    if r.returncode != 0:
        sys.exit(f"startup.py: {' '.join(argv)} failed ({r.returncode}): {r.stderr.decode()}")
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--programs", type=int, default=1)
    args = parser.parse_args()
    if not 1 <= args.programs <= args.np:
        sys.exit("startup.py: --programs must be between 1 and --np")
    env = dict(os.environ, OMPI_MCA_btl_base_warn_component_unused="0",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    with tempfile.TemporaryDirectory(prefix="gpurun-startup-") as work:
        hellos = build_hellos(os.path.abspath(args.build), work)
        cases = []
        for name, (launcher, exe) in hellos.items():
            cases.append((name, "hello", command(launcher, args.np, args.programs, exe)))
            cases.append((name, "/bin/true",
                          command(launcher, args.np, args.programs, "/bin/true")))
        for _, _, argv in cases:  # warm the page cache once
            timed(argv, env)
        times = {(name, prog): [] for name, prog, _ in cases}
        for _ in range(args.runs):
            for name, prog, argv in cases:
                times[(name, prog)].append(timed(argv, env))
    shape = (f"-np {args.np} <program>" if args.programs == 1 else
             f"{args.np} ranks as {args.programs} programs (`-np a <program> : ...`)")
    print(f"Startup, `<launcher> {shape}`, wall time in ms over {args.runs} "
          f"interleaved runs ({os.cpu_count()} CPUs):\n")
    print("| launcher | program | median | min | max |")
    print("|---|---|---:|---:|---:|")
    for (name, prog), values in times.items():
        ms = [v * 1000 for v in values]
        print(f"| {name} | {prog} | {statistics.median(ms):.1f} | {min(ms):.1f} | {max(ms):.1f} |")


if __name__ == "__main__":
    main()
