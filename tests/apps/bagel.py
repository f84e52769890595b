#!/usr/bin/env python3
"""Debian's BAGEL built for MPICH (package bagel) run unchanged under gpurun on gpurun's
libmpi.so.12. BAGEL runs threads beside MPI (MPI_Init_thread) and keeps distributed matrices in
one-sided windows moved by request-based operations (MPI_Rget, MPI_Rput, MPI_Raccumulate under
MPI_Win_lock_all), beside collectives, communicators and point-to-point with MPI_Cancel: HF, MP2
and CASSCF energies of a water molecule must equal those of MPICH's own run.

  bagel.py --gpurun BIN --lib DIR [--np 2,3] [--bagel PATH]
           [--prefix 'CMD ...'] [--gpurun-args 'ARG;ARG...']

Exit 1 when a run fails or an energy differs, with the output's end.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

INPUT = """{ "bagel" : [
{ "title" : "molecule", "basis" : "svp", "df_basis" : "svp-jkfit", "angstrom" : true,
  "geometry" : [
    { "atom" : "O", "xyz" : [0.0, 0.0, 0.117] },
    { "atom" : "H", "xyz" : [0.0, 0.757, -0.469] },
    { "atom" : "H", "xyz" : [0.0, -0.757, -0.469] } ] },
{ "title" : "hf" },
{ "title" : "mp2" },
{ "title" : "casscf", "nact" : 4, "nclosed" : 3, "nstate" : 1 }
]}
"""
# The last SCF iteration's energy (HF, then CASSCF's macro iterations), and MP2's total.
SCF_LINE = re.compile(r"^\s+\d+\s+0?\s*(-\d+\.\d+)\s+\d\.\d+e[-+]\d+\s+\d+\.\d+\s*$", re.M)
MP2_LINE = re.compile(r"MP2 total energy:\s+(-\d+\.\d+)")
# BAGEL prints 8 decimals for SCF and 10 for MP2; runs on any rank count agree to all of them.
TOLERANCE = 2e-8


def energies(out):
    scf = SCF_LINE.findall(out)
    mp2 = MP2_LINE.findall(out)
    if not scf or not mp2:
        return None
    return {"casscf": float(scf[-1]), "mp2": float(mp2[-1])}


def run(cmd, env, workdir):
    try:
        p = subprocess.run(cmd + ["h2o.json"], cwd=workdir, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace", check=False,
                           timeout=180)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        return "timeout", (e.stdout or b"").decode(errors="replace")


def differs(got, want):
    if want is None:
        return None
    for k in want:
        if abs(got[k] - want[k]) > TOLERANCE:
            return "%s energy %.10f, MPICH's %.10f" % (k, got[k], want[k])
    return None


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gpurun", required=True)
    parser.add_argument("--lib", required=True, help="the folder of gpurun's libmpi.so.12")
    parser.add_argument("--np", default="2,3", help="rank counts, comma-separated")
    parser.add_argument("--bagel", default="/usr/bin/BAGEL")
    parser.add_argument("--prefix", default="", help="a command gpurun runs under")
    parser.add_argument("--gpurun-args", default="", help="more arguments, ';'-separated")
    args = parser.parse_args(argv)
    if not os.path.exists(args.bagel):
        print("FAIL: %s is missing: install Debian's bagel (scripts/deps.sh)" % args.bagel)
        return 1
    args.gpurun, args.lib = os.path.abspath(args.gpurun), os.path.abspath(args.lib)
    extra = [a for a in args.gpurun_args.split(";") if a]
    runs = [("mpich -np 1", ["mpiexec.mpich", "-np", "1", args.bagel], dict(os.environ))]
    for np in args.np.split(","):
        cmd = args.prefix.split() + [args.gpurun] + extra + ["-np", np, "--timeout", "150",
                                                            args.bagel]
        runs.append(("gpurun -np " + np, cmd, dict(os.environ, LD_LIBRARY_PATH=args.lib)))
    failures, reference = 0, None
    with tempfile.TemporaryDirectory(prefix="gpurun-bagel-", dir=os.getcwd()) as workdir:
        with open(os.path.join(workdir, "h2o.json"), "w", encoding="ascii") as f:
            f.write(INPUT)
        for label, cmd, env in runs:
            rc, out = run(cmd, env, workdir)
            got = energies(out)
            why = ("exit code %s" % rc if rc != 0 else "no energies printed" if got is None
                   else differs(got, reference))
            if reference is None and why is None:
                reference = got
            print("%-16s %s" % (label, "FAILED: " + why if why else
                                "MP2 %.10f CASSCF %.8f ok" % (got["mp2"], got["casscf"])))
            if why:
                failures += 1
                sys.stdout.write(out[-3000:])
            sys.stdout.flush()
    print("%d of %d runs failed" % (failures, len(runs)) if failures
          else "all %d runs passed" % len(runs))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
