#!/usr/bin/env python3
"""Checks the suite's text output against OSU's format, and its JSON and CSV modes.

  check_osu_format.py --bindir DIR -- LAUNCH-PREFIX...    (e.g. bench/launch mpich -np 2)

OSU's text format, as tools that parse it expect: a title line "# OSU MPI <name> Test vX.Y"
("# OSU MPI_<call> <name> Test vX.Y" for the one-sided programs),
optional "# ..." lines, a column header "# Size" followed by the column titles (or, without
sizes, the titles alone), then rows: an integer size left-aligned in 10 characters, and one
number per column right-aligned, plus Pass/Fail under "Validation" with -c. Sizes ascend in
powers of two.
"""
import argparse
import json
import re
import subprocess
import sys

TITLE = re.compile(r"^# OSU MPI[ _][A-Za-z_ /.-]+ Test v\d+\.\d+$")
NUMBER = r"-?\d+(?:\.\d+)?"
# column titles are separated by 2+ spaces (titles themselves have single spaces)
SPLIT = re.compile(r"\s{2,}")

CASES = [  # program, args, ranks, expected column titles after "Size"
    ("osu_latency", "-m 0:64 -i 10 -x 1", 2, ["Latency (us)"]),
    ("osu_latency", "-m 1:8 -i 10 -x 1 -c -f", 2,
     ["Latency (us)", "Min Latency (us)", "Max Latency (us)", "Iterations", "Validation"]),
    ("osu_bw", "-m 1:1024 -i 3 -x 1 -W 4", 2, ["Bandwidth (MB/s)"]),
    ("osu_bibw", "-m 1:1024 -i 3 -x 1 -W 4", 2, ["Bandwidth (MB/s)"]),
    ("osu_mbw_mr", "-m 1:64 -i 3 -x 1 -W 4", 2, ["MB/s", "Messages/s"]),
    ("osu_allreduce", "-m 4:256 -i 5 -x 1", 2, ["Avg Latency(us)"]),
    ("osu_bcast", "-m 1:256 -i 5 -x 1 -f", 2,
     ["Avg Latency(us)", "Min Latency(us)", "Max Latency(us)", "Iterations"]),
    ("osu_put_latency", "-m 1:64 -i 5 -x 1", 2, ["Latency (us)"]),
    ("osu_get_bw", "-m 1:64 -i 3 -x 1 -W 4 -s lock", 2, ["Bandwidth (MB/s)"]),
    ("osu_iallreduce", "-m 4:64 -i 5 -x 1", 2,
     ["Overall(us)", "Compute(us)", "Coll. Init(us)", "MPI_Test(us)", "MPI_Wait(us)",
      "Pure Comm.(us)", "Overlap(%)"]),
]


def run(launch, bindir, prog, args, ranks):
    """Output of prog under the launch prefix (which sets the rank count)."""
    del ranks  # every case runs on 2 ranks, as the launch prefix says
    cmd = [*launch, f"{bindir}/{prog}", *args.split()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise AssertionError(f"{prog} {args}: exit {proc.returncode}\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def check_table(name, out, columns):
    lines = out.rstrip("\n").split("\n")
    assert TITLE.match(lines[0]), f"{name}: title line {lines[0]!r}"
    header_at = next(i for i, ln in enumerate(lines) if ln.startswith("# Size"))
    assert all(ln.startswith("#") for ln in lines[:header_at]), f"{name}: header lines"
    titles = SPLIT.split(lines[header_at][len("# Size"):].strip())
    assert titles == columns, f"{name}: columns {titles} != {columns}"
    rows = lines[header_at + 1:]
    assert rows, f"{name}: no rows"
    sizes = []
    for row in rows:
        assert re.match(r"^\d+ *", row) and len(row.split()[0]) <= 10, f"{name}: row {row!r}"
        assert row[10] == " " or len(row.split()[0]) == 10, f"{name}: size field {row!r}"
        fields = row.split()
        assert len(fields) == 1 + len(columns), f"{name}: {len(fields)} fields in {row!r}"
        for title, value in zip(columns, fields[1:]):
            want = "Pass|Fail" if title == "Validation" else NUMBER
            assert re.fullmatch(want, value), f"{name}: {title} = {value!r}"
        sizes.append(int(fields[0]))
    assert sizes == sorted(sizes), f"{name}: sizes not ascending"
    assert all(b == 2 * a for a, b in zip(sizes, sizes[1:]) if a), f"{name}: sizes not doubling"


def check_special(launch, bindir):
    out = run(launch, bindir, "osu_barrier", "-i 10 -x 1", 2).split("\n")
    assert TITLE.match(out[0]) and out[1].strip() == "# Avg Latency(us)", out
    assert re.fullmatch(r"\s*" + NUMBER, out[2]), out
    out = run(launch, bindir, "osu_init", "", 2).split("\n")
    assert TITLE.match(out[0]), out
    assert re.fullmatch(r"nprocs: 2, min: \d+ ms, max: \d+ ms, avg: \d+ ms", out[1]), out
    out = run(launch, bindir, "osu_hello", "", 2).split("\n")
    assert TITLE.match(out[0]) and out[1] == "This is a test with 2 processes", out
    out = run(launch, bindir, "osu_put_latency", "-m 8:8 -i 5 -w dynamic -s pscw", 2).split("\n")
    assert out[1:3] == ["# Window creation: MPI_Win_create_dynamic",
                        "# Synchronization: MPI_Win_post/start/complete/wait"], out


def check_machine_readable(launch, bindir):
    doc = json.loads(run(launch, bindir, "osu_latency", "-m 1:16 -i 5 -c --format json", 2))
    assert doc["benchmark"] == "osu_latency" and doc["ranks"] == 2, doc
    assert [r["size"] for r in doc["rows"]] == [1, 2, 4, 8, 16], doc["rows"]
    assert all(r["validation"] == "pass" and r["latency_us"] > 0 for r in doc["rows"]), doc
    assert doc["columns"][0]["key"] == "latency_us" and doc["errors"] == 0, doc
    csv = run(launch, bindir, "osu_bw", "-m 1:4 -i 3 -W 2 --format csv", 2).strip().split("\n")
    assert csv[0] == "benchmark,size,bandwidth_mbps,validation", csv
    assert [ln.split(",")[1] for ln in csv[1:]] == ["1", "2", "4"], csv


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bindir", required=True)
    p.add_argument("launch", nargs=argparse.REMAINDER, help="launch prefix for 2 ranks")
    a = p.parse_args()
    launch = a.launch[1:] if a.launch and a.launch[0] == "--" else a.launch
    failures = 0
    checks = [(f"{prog} {args}", lambda c=(prog, args, n, cols):
               check_table(c[0], run(launch, a.bindir, c[0], c[1], c[2]), c[3]))
              for prog, args, n, cols in CASES]
    checks += [("barrier/init/hello", lambda: check_special(launch, a.bindir)),
               ("json/csv", lambda: check_machine_readable(launch, a.bindir))]
    for name, check in checks:
        try:
            check()
            print(f"ok   {name}")
        except (AssertionError, StopIteration, ValueError, KeyError) as err:
            failures += 1
            print(f"FAIL {name}: {err}")
    print(f"{len(checks) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
