#!/usr/bin/env python3
"""Debian's NWChem built for MPICH (package nwchem-mpich) run unchanged under gpurun on gpurun's
libmpi.so.12. NWChem keeps its matrices in Global Arrays over ARMCI-MPI, that is MPI-3 one-sided
communication (windows, passive-target locks, accumulates, request-based RMA), beside
collectives and point-to-point: a quantum-chemistry run gives the energy that MPICH's own run
gives, to the printed digits' tolerance.

  nwchem.py --gpurun BIN --lib DIR [--np 2,3] [--nwchem PATH] [--jobs scf,dft,ccsd,mp2]
            [--scratch DIR] [--prefix 'CMD ...'] [--gpurun-args 'ARG;ARG...']

--prefix runs gpurun under a command (nsenter into a test host) and --gpurun-args hands it more
arguments (a launch agent and hosts, ';'-separated); --scratch must then be a folder every host
sees (a test host's /tmp is its own).

Each job (SCF, DFT, CCSD, MP2 gradient on a water molecule) first runs on one rank under MPICH's
mpiexec, for the reference energy, then under gpurun at each rank count, with ARMCI-MPI's window
allocation both through MPI_Win_allocate and through MPI_Win_create. Exit 1 when a run fails or
an energy differs, with the lines that say why.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

GEOMETRY = """geometry units angstroms
  O  0.000  0.000  0.117
  H  0.000  0.757 -0.469
  H  0.000 -0.757 -0.469
end
"""
# name -> (input after the geometry, the line whose number is the job's final energy)
JOBS = {
    "scf": ("basis\n  * library 6-31g*\nend\ntask scf energy\n",
            r"Total SCF energy =\s*(-?\d+\.\d+)"),
    "dft": ("basis\n  * library cc-pvdz\nend\ndft\n  xc b3lyp\nend\ntask dft energy\n",
            r"Total DFT energy =\s*(-?\d+\.\d+)"),
    "ccsd": ("basis\n  * library 6-31g\nend\ntce\n  ccsd\nend\ntask tce energy\n",
             r"CCSD total energy / hartree\s*=\s*(-?\d+\.\d+)"),
    "mp2": ("basis\n  * library cc-pvdz\nend\ntask mp2 gradient\n",
            r"Total MP2 energy\s+(-?\d+\.\d+)"),
}
# Parallel sums add in another order than one rank's: the energies agree to about 1e-10 hartree;
# a wrong byte in a transfer moves them by far more.
TOLERANCE = 1e-7


def energy(job, out):
    found = re.findall(JOBS[job][1], out)
    return float(found[-1]) if found else None


def run_job(cmd, job, env, scratch):
    """Runs one NWChem job in its own folder; returns (exit code, output, seconds)."""
    workdir = tempfile.mkdtemp(prefix=job + "-", dir=scratch)
    with open(os.path.join(workdir, job + ".nw"), "w", encoding="ascii") as f:
        f.write('start %s\ntitle "water %s"\n%s%s' % (job, job, GEOMETRY, JOBS[job][0]))
    start = time.monotonic()
    try:
        p = subprocess.run(cmd + [job + ".nw"], cwd=workdir, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace", check=False,
                           timeout=300)
        rc, out = p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        rc, out = "timeout", (e.stdout or b"").decode(errors="replace")
    return rc, out, time.monotonic() - start


def check(rc, value, reference):
    if rc != 0:
        return "exit code %s" % rc
    if value is None:
        return "no final energy printed"
    if reference is not None and abs(value - reference) > TOLERANCE:
        return "energy %.12f, MPICH's %.12f" % (value, reference)
    return None


def report(label, why, value, seconds, out):
    print("%-30s %6.1f s  %s" % (label, seconds, "%.12f ok" % value if why is None
                                  else "FAILED: " + why))
    if why is not None:
        sys.stdout.write(out[-3000:])
    sys.stdout.flush()


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gpurun", required=True)
    parser.add_argument("--lib", required=True, help="the folder of gpurun's libmpi.so.12")
    parser.add_argument("--np", default="2,3", help="rank counts, comma-separated")
    parser.add_argument("--nwchem", default="/usr/bin/nwchem.mpich")
    parser.add_argument("--jobs", default=",".join(JOBS))
    parser.add_argument("--scratch", default=None, help="where the jobs' folders go")
    parser.add_argument("--prefix", default="", help="a command gpurun runs under")
    parser.add_argument("--gpurun-args", default="", help="more arguments, ';'-separated")
    args = parser.parse_args(argv)
    if not os.path.exists(args.nwchem):
        print("FAIL: %s is missing: install Debian's nwchem-mpich (scripts/deps.sh)" % args.nwchem)
        return 1
    failures = runs = 0
    extra = [a for a in args.gpurun_args.split(";") if a]
    with tempfile.TemporaryDirectory(prefix="gpurun-nwchem-", dir=args.scratch) as scratch:
        for job in args.jobs.split(","):
            env = dict(os.environ, ARMCI_USE_WIN_ALLOCATE="0")
            rc, out, secs = run_job(["mpiexec.mpich", "-np", "1", args.nwchem], job, env, scratch)
            reference = energy(job, out)
            why = check(rc, reference, None)
            report("%s mpich -np 1" % job, why, reference or 0.0, secs, out)
            runs += 1
            failures += why is not None
            for np in args.np.split(","):
                for win_allocate in ("1", "0"):
                    env = dict(os.environ, LD_LIBRARY_PATH=args.lib,
                               ARMCI_USE_WIN_ALLOCATE=win_allocate)
                    cmd = args.prefix.split() + [args.gpurun] + extra + [
                        "-np", np, "--timeout", "250", args.nwchem]
                    rc, out, secs = run_job(cmd, job, env, scratch)
                    value = energy(job, out)
                    label = "%s gpurun -np %s %s" % (
                        job, np, "win_allocate" if win_allocate == "1" else "win_create")
                    why = check(rc, value, reference)
                    report(label, why, value or 0.0, secs, out)
                    runs += 1
                    failures += why is not None
    print("%d of %d runs failed" % (failures, runs) if failures else "all %d runs passed" % runs)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
