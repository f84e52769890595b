#!/usr/bin/env python3
"""bench/sweep on a tiny allreduce: a column per forced algorithm beside the table's choice,
one row per size with its fastest cell in bold, a device algorithm marked as fallen back on
host buffers; an algorithm gpurun does not register is refused before anything runs.

  sweep_test.py SWEEP BUILD_DIR
"""
import re
import subprocess
import sys


def ratio_fits(ratio: float, table: float, fastest: float) -> bool:
    """Whether a printed ratio can come from the unrounded values behind two 2-decimal cells.

    A loaded machine stretches some runs a thousandfold, so the rounding of the cells moves
    the ratio by much more than a fixed tolerance: bound it from the cells' rounding intervals.
    """
    half = 0.005 + 1e-9
    low = (table - half) / (fastest + half)
    high = (table + half) / (fastest - half) if fastest > half else float("inf")
    return low - half <= ratio <= high + half


def main(sweep: str, build: str) -> int:
    base = [sweep, "--build", build, "-np", "2", "--rounds", "2"]
    proc = subprocess.run([*base, "--coll", "allreduce", "--algos",
                           "shm,recursive_doubling,device_ring", "--args", "-m 8:64 -i 5 -x 1"],
                          capture_output=True, text=True, timeout=300)
    print(proc.stdout, proc.stderr)
    assert proc.returncode == 0, f"sweep exited {proc.returncode}"
    lines = proc.stdout.splitlines()
    header = next(line for line in lines if line.startswith("| Size"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    assert cols == ["Size", "table", "shm", "recursive_doubling", "device_ring (fell back)",
                    "table / fastest"], cols
    rows = [line for line in lines if re.match(r"\| \d+ \|", line)]
    assert [int(r.split("|")[1]) for r in rows] == [8, 16, 32, 64], rows
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")][1:]
        assert len(cells) == 5, row
        values = [float(c.strip("*")) for c in cells[:4]]
        bold = [c for c in cells[:4] if c.startswith("**")]
        assert len(bold) == 1 and float(bold[0].strip("*")) == min(values), row
        assert ratio_fits(float(cells[4]), values[0], min(values)), row
    bad = subprocess.run([*base, "--coll", "allreduce", "--algos", "shm,no_such"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "no allreduce algorithm no_such" in bad.stderr, bad.stderr
    assert "| Size" not in bad.stdout, bad.stdout
    print("sweep_test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
