#!/usr/bin/env python3
"""bench/compare's runner on stand-in launchers (shell scripts, no MPI): a run that hangs is
ended with every process it started, and a peer that hung only after printing complete
results keeps its values (ended a grace period after them, not at the timeout), while
gpurun's own hang is a failure; a program that exits 77 (the
MPI lacks what it measures) is skipped, not failed; the CPU time of processes that a launcher
leaves behind when it exits (Open MPI's agents across the test hosts) counts as the run's, not
as other load.

  runner_test.py BENCH_DIR
"""
import os
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(sys.argv.pop(1)).resolve()))
from benchlib.mpis import Config, Mpi  # noqa: E402
from benchlib import runner  # noqa: E402
from benchlib.runner import run_one  # noqa: E402

DOC = ('{"benchmark": "osu_x", "columns": [{"key": "latency_us", "title": "Latency(us)"}], '
       '"rows": [{"size": 8, "latency_us": 1.5}], "errors": 0}')


class StandIn:
    """A launcher script: prints OUTPUT, starts a child that records its pid, then ENDING."""

    def __init__(self, tmp: Path, output: str, ending: str):
        self.pidfile = tmp / "child.pid"
        self.script = tmp / "launcher.sh"
        self.script.write_text(f"#!/bin/sh\nprintf '%s\\n' '{output}'\n"
                               f"sleep 600 & echo $! > {self.pidfile}\n{ending}\n")
        self.script.chmod(0o755)

    def config(self, family: str) -> Config:
        return Config(family, Mpi(family, family, str(self.script)), flags=[])

    def child_alive(self) -> bool:
        pid = int(self.pidfile.read_text())
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        # a zombie until init reaps it counts as gone
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"


def run(standin: StandIn, family: str, timeout: float = 1.0):
    return run_one(standin.config(family), Path("osu_x"), [], 2, 1, timeout, 1.0)


class Hangs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def gone_soon(self, standin: StandIn) -> bool:
        for _ in range(50):
            if not standin.child_alive():
                return True
            time.sleep(0.1)
        return False

    def test_a_peer_hung_after_complete_results_keeps_its_values(self):
        standin = StandIn(self.dir, DOC, "sleep 600")
        r = run(standin, "mpich")
        self.assertTrue(r.ok, r.status)
        self.assertTrue(r.hung_at_exit)
        self.assertEqual(r.values, {8: 1.5})
        self.assertIn("hung at exit", r.status)
        self.assertTrue(self.gone_soon(standin), "the run's child outlived the timeout")

    def test_a_peer_hung_after_complete_results_is_ended_soon_after_them(self):
        standin = StandIn(self.dir, DOC, "sleep 600")
        grace, runner.EXIT_GRACE_S = runner.EXIT_GRACE_S, 1.0
        try:
            r = run(standin, "mpich", timeout=120)
        finally:
            runner.EXIT_GRACE_S = grace
        self.assertTrue(r.ok, r.status)
        self.assertTrue(r.hung_at_exit)
        self.assertEqual(r.values, {8: 1.5})
        self.assertEqual(r.status, "hung at exit after complete results (killed 1 s after them)")
        self.assertLess(r.wall_s, 60, "waited for the timeout, not for the grace after results")
        self.assertTrue(self.gone_soon(standin))

    def test_gpurun_hung_after_complete_results_is_a_failure(self):
        standin = StandIn(self.dir, DOC, "sleep 600")
        r = run(standin, "gpurun")
        self.assertFalse(r.ok)
        self.assertEqual(r.status, "timeout after complete results")
        self.assertTrue(self.gone_soon(standin))

    def test_a_hang_before_complete_results_is_a_failure(self):
        standin = StandIn(self.dir, DOC[:40], "sleep 600")
        r = run(standin, "mpich")
        self.assertFalse(r.ok)
        self.assertFalse(r.hung_at_exit)
        self.assertEqual(r.status, "timeout")
        self.assertTrue(self.gone_soon(standin))

    def test_a_run_that_ends_is_read_whole(self):
        standin = StandIn(self.dir, DOC, "kill $(cat " + str(self.dir / "child.pid") + ")")
        r = run(standin, "mpich", timeout=30)
        self.assertTrue(r.ok, r.status)
        self.assertEqual((r.status, r.hung_at_exit, r.values), ("ok", False, {8: 1.5}))

    def test_a_program_that_exits_77_is_skipped_not_failed(self):
        kill = "kill $(cat " + str(self.dir / "child.pid") + ")"
        standin = StandIn(self.dir, "", kill + "\necho 'osu_x: not supported by this MPI' >&2"
                          "\nexit 77")
        r = run(standin, "openmpi", timeout=30)
        self.assertFalse(r.ok)
        self.assertTrue(r.skipped)
        self.assertEqual(r.status, "skipped: osu_x: not supported by this MPI")



class Orphans(unittest.TestCase):
    def test_cpu_of_what_the_launcher_left_behind_is_the_runs(self):
        with tempfile.TemporaryDirectory() as tmp:
            burn = "import time\nwhile time.process_time() < 0.4: pass"
            script = Path(tmp) / "launcher.sh"
            script.write_text(f"#!/bin/sh\n{sys.executable} -c '{burn}' &\n"
                              f"printf '%s\\n' '{DOC}'\n")
            script.chmod(0o755)
            r = run_one(Config("openmpi", Mpi("openmpi", "openmpi", str(script)), flags=[]),
                        Path("osu_x"), [], 2, 1, 30, 1.0)
        self.assertTrue(r.ok, r.status)
        self.assertGreaterEqual(r.own_cpu_s, 0.35)
        self.assertLess(r.own_cpu_s, 5.0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
