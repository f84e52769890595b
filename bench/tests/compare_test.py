#!/usr/bin/env python3
"""A tiny bench/compare run must produce its index, a Markdown table with one row per size and
a column per configuration, a PNG plot and the raw runs.

  compare_test.py COMPARE OUT_DIR [compare options...]
  compare_test.py --under-load COMPARE OUT_DIR [compare options...]

With --under-load, two processes that keep both CPUs busy run beside compare (for at most
a minute, and are ended by PID): every run must then be flagged as disturbed, in the raw runs
and in the table's notes, rather than reported silently.
"""
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path


HOG = "import time\nend = time.monotonic() + 60\nwhile time.monotonic() < end: pass\n"


def under_load(compare: str, out: Path, extra: list[str]) -> int:
    shutil.rmtree(out, ignore_errors=True)
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(2)]
    try:
        cmd = [compare, "--bench", "osu_latency", "--reps", "1", "--args", "-m 1:4 -i 100000",
               "--out", str(out), *extra]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    print(proc.stdout, proc.stderr)
    assert proc.returncode == 0, f"compare exited {proc.returncode}"
    runs = json.loads((out / "runs.json").read_text())
    assert runs and all(r["disturbed"] for r in runs), [(r["config"], r["foreign"]) for r in runs]
    assert "DISTURBED" in proc.stderr, "progress lines do not flag the runs"
    table = (out / "osu_latency.md").read_text()
    assert "disturbed by other load" in table and "paired ratios include them" in table, table
    print("1 passed, 0 failed")
    return 0


def main() -> int:
    if sys.argv[1] == "--under-load":
        return under_load(sys.argv[2], Path(sys.argv[3]), sys.argv[4:])
    compare, out, extra = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
    shutil.rmtree(out, ignore_errors=True)
    cmd = [compare, "--bench", "osu_latency,osu_barrier,osu_iallreduce", "--reps", "2",
           "--args", "-m 1:64 -i 20 -x 2", "--out", str(out), *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    print(proc.stdout, proc.stderr)
    assert proc.returncode == 0, f"compare exited {proc.returncode}"
    assert str(out) in proc.stdout, "compare does not say where the results are"
    table = (out / "osu_latency.md").read_text()
    head = next(ln for ln in table.splitlines() if ln.startswith("| Size"))
    configs = [c.strip() for c in head.strip("|").split("|")][1:-1]
    assert configs and head.rstrip().endswith("gpurun / best peer (paired) |"), head
    rows = [ln for ln in table.splitlines() if re.match(r"\| \d+ \|", ln)]
    assert [int(r.split("|")[1]) for r in rows] == [1, 2, 4, 8, 16, 32, 64], rows
    for r in rows:
        cells = [c.strip() for c in r.strip("|").split("|")]
        assert len(cells) == len(configs) + 2, r
        assert all(re.fullmatch(r"(\d+(\.\d\d)?|0\.0*\d{3})\*?", c) for c in cells[1:-1]), r
    for name in ("osu_latency.png", "osu_barrier.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{name} is not a PNG"
    assert re.search(r"\| — \| ", (out / "osu_barrier.md").read_text()), "barrier table"
    nbc = (out / "osu_iallreduce.md").read_text()
    assert nbc.count("| Size |") == 2 and "Overlap(%), median" in nbc, nbc
    overall, overlap = nbc.split("Overlap(%), median")
    sizes = [ln.split("|")[1] for ln in overall.splitlines() if re.match(r"\| \d+ \|", ln)]
    assert sizes == [" 4 ", " 8 ", " 16 ", " 32 ", " 64 "], nbc  # from 4 bytes: one int
    assert [ln.split("|")[1] for ln in overlap.splitlines()
            if re.match(r"\| \d+ \|", ln)] == sizes, nbc
    runs = json.loads((out / "runs.json").read_text())
    assert len(runs) == 3 * 2 * len(configs), f"{len(runs)} runs"
    assert all(len(r["overlap"]) == 5 for r in runs if r["bench"] == "osu_iallreduce"), \
        "overlap missing from the raw runs"
    assert all("foreign" in r and "disturbed" in r for r in runs), "load not measured"
    assert all(r["ok"] and not r["hung_at_exit"] for r in runs if r["config"] == "gpurun"), \
        [r["status"] for r in runs if r["config"] == "gpurun"]
    assert all(r.get("hop_ns") for r in runs), "the core-to-core probe did not run"
    assert "host placement" in table, "the table does not say how the host placed the cores"
    index = (out / "README.md").read_text()
    assert "(osu_latency.md)" in index and "(osu_latency.png)" in index, index
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as err:
        print(f"FAIL: {err}\n0 passed, 1 failed")
        sys.exit(1)
